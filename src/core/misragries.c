/* misragries.c — Misra–Gries with DataSketches-style purge by median. See misragries.h.
 *
 * Layout in the caller's buffer:
 *   hp_misragries header | uint64_t keys[T] | uint64_t counts[T] | uint64_t scratch_keys[M+1]
 *   | uint64_t scratch_counts[M+1]     (T = table size, M = max_active = 3T/4)
 * A slot is occupied iff counts[slot] > 0 (so key 0 is an ordinary key). The scratch arrays hold
 * the survivors and the counters for the median selection during a purge.
 * Serialized form: kind u32, version u32, table size u32, active u32, offset u64, total u64,
 * then (key u64, count u64) per held key in slot order.
 */
#include "core/misragries.h"
#include <string.h>
#include "core/bytes.h"
#include "core/hash.h"

#define MG_VERSION 1u
#define MG_MIN_TABLE 8u

struct hp_misragries {
    uint32_t table, max_active, active, reserved;
    uint64_t offset, total;
};

static uint64_t *mg_keys(const hp_misragries *mg) { return (uint64_t *)(void *)((uint8_t *)(uintptr_t)mg + sizeof *mg); }
static uint64_t *mg_counts(const hp_misragries *mg) { return mg_keys(mg) + mg->table; }
static uint64_t *mg_scratch_keys(const hp_misragries *mg) { return mg_counts(mg) + mg->table; }
static uint64_t *mg_scratch_counts(const hp_misragries *mg) { return mg_scratch_keys(mg) + mg->max_active + 1; }

static size_t mg_bytes(uint32_t table)
{
    uint32_t m = table / 4 * 3;
    return sizeof(hp_misragries) + (size_t)table * 16 + (size_t)(m + 1) * 16;
}

static hp_misragries *mg_place(void *mem, size_t budget, uint32_t table)
{
    if (!mem || table < MG_MIN_TABLE || (table & (table - 1)) || mg_bytes(table) > budget) return NULL;
    hp_misragries *mg = (hp_misragries *)mem;
    mg->table = table;
    mg->max_active = table / 4 * 3;
    mg->active = 0;
    mg->reserved = 0;
    mg->offset = 0;
    mg->total = 0;
    memset(mg_counts(mg), 0, (size_t)table * 8);
    return mg;
}

hp_misragries *hp_misragries_init(void *mem, size_t budget, uint64_t seed)
{
    (void)seed; /* deterministic: no randomness */
    uint32_t table = MG_MIN_TABLE;
    if (mg_bytes(table) > budget) return NULL;
    while (table < (1u << 28) && mg_bytes(table * 2) <= budget) table *= 2;
    return mg_place(mem, budget, table);
}

static uint32_t mg_slot(const hp_misragries *mg, uint64_t key)
{
    const uint64_t *k = mg_keys(mg), *c = mg_counts(mg);
    uint32_t mask = mg->table - 1, s = (uint32_t)hp_mix64(key) & mask;
    while (c[s] && k[s] != key) s = (s + 1) & mask;
    return s;
}

uint64_t hp_misragries_count(const hp_misragries *mg, uint64_t key) { return mg_counts(mg)[mg_slot(mg, key)]; }
uint64_t hp_misragries_offset(const hp_misragries *mg) { return mg->offset; }
uint32_t hp_misragries_capacity(const hp_misragries *mg) { return mg->max_active; }
uint32_t hp_misragries_active(const hp_misragries *mg) { return mg->active; }

static void swap_u64(uint64_t *a, uint64_t *b) { uint64_t t = *a; *a = *b; *b = t; }

/* k-th smallest of v[0..n) (0-based), rearranging v: quickselect with a three-way partition,
 * pivot = median of first, middle and last. */
static uint64_t select_kth(uint64_t *v, uint32_t n, uint32_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint64_t a = v[lo], b = v[mid], c = v[hi];
        uint64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            if (v[i] < pivot) swap_u64(&v[lt++], &v[i++]);
            else if (v[i] > pivot) swap_u64(&v[i], &v[gt--]);
            else i++;
        }
        if ((int64_t)k < lt) hi = lt - 1;
        else if ((int64_t)k > gt) lo = gt + 1;
        else return pivot;
    }
    return v[k];
}

static void mg_insert_fresh(hp_misragries *mg, uint64_t key, uint64_t count)
{
    uint32_t s = mg_slot(mg, key);
    mg_keys(mg)[s] = key;
    mg_counts(mg)[s] = count;
    mg->active++;
}

/* Subtract the median counter from all, drop the non-positive, offset += median. */
static void mg_purge(hp_misragries *mg)
{
    uint64_t *k = mg_keys(mg), *c = mg_counts(mg);
    uint64_t *sk = mg_scratch_keys(mg), *sc = mg_scratch_counts(mg);
    uint32_t n = 0;
    for (uint32_t s = 0; s < mg->table; s++)
        if (c[s]) { sk[n] = k[s]; sc[n] = c[s]; n++; }
    memcpy(k, sc, (size_t)n * 8); /* keys[] doubles as selection space; rebuilt below */
    uint64_t median = select_kth(k, n, n / 2);
    memset(c, 0, (size_t)mg->table * 8);
    mg->active = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sc[i] > median) mg_insert_fresh(mg, sk[i], sc[i] - median);
    mg->offset += median;
}

void hp_misragries_update(hp_misragries *mg, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    mg->total += weight;
    uint32_t s = mg_slot(mg, key);
    uint64_t *c = mg_counts(mg);
    if (c[s]) { c[s] = c[s] + weight < c[s] ? UINT64_MAX : c[s] + weight; return; }
    mg_keys(mg)[s] = key;
    c[s] = weight;
    if (++mg->active > mg->max_active) mg_purge(mg);
}

int hp_misragries_merge(hp_misragries *dst, const hp_misragries *src)
{
    if (dst == src) return -1;
    const uint64_t *k = mg_keys(src), *c = mg_counts(src);
    uint64_t total = dst->total + src->total;
    for (uint32_t s = 0; s < src->table; s++)
        if (c[s]) hp_misragries_update(dst, k[s], c[s]);
    dst->offset += src->offset;
    dst->total = total;
    return 0;
}

/* ---- vtable glue ---- */

static void mg_fill(const hp_misragries *mg, uint64_t key, uint64_t count, hp_estimate *out)
{
    out->key = key;
    out->count = count;
    out->lower = count;
    out->upper = count + mg->offset < count ? UINT64_MAX : count + mg->offset;
}

static void *vt_init(void *mem, size_t budget, uint64_t seed) { return hp_misragries_init(mem, budget, seed); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_misragries_update((hp_misragries *)s, key, w); }

static int est_before(const hp_estimate *a, const hp_estimate *b)
{
    return a->count > b->count || (a->count == b->count && a->key < b->key);
}

static size_t vt_topk(const void *sv, hp_estimate *out, size_t k)
{
    const hp_misragries *mg = (const hp_misragries *)sv;
    const uint64_t *keys = mg_keys(mg), *c = mg_counts(mg);
    size_t m = 0;
    for (uint32_t s = 0; s < mg->table; s++) {
        if (!c[s]) continue;
        hp_estimate v;
        mg_fill(mg, keys[s], c[s], &v);
        if (m == k && (k == 0 || !est_before(&v, &out[m - 1]))) continue;
        size_t j = m < k ? m++ : m - 1;
        while (j > 0 && est_before(&v, &out[j - 1])) { out[j] = out[j - 1]; j--; }
        out[j] = v;
    }
    return m;
}

static int vt_query(const void *sv, uint64_t key, hp_estimate *out)
{
    const hp_misragries *mg = (const hp_misragries *)sv;
    uint64_t c = hp_misragries_count(mg, key);
    mg_fill(mg, key, c, out);
    return c > 0;
}

static int vt_merge(void *d, const void *s) { return hp_misragries_merge((hp_misragries *)d, (const hp_misragries *)s); }

static size_t vt_serialized_size(const void *sv)
{
    const hp_misragries *mg = (const hp_misragries *)sv;
    return 4 + 4 + 4 + 4 + 8 + 8 + (size_t)mg->active * 16;
}

static size_t vt_serialize(const void *sv, void *buf, size_t cap)
{
    const hp_misragries *mg = (const hp_misragries *)sv;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_MISRAGRIES);
    hp_put_u32(&w, MG_VERSION);
    hp_put_u32(&w, mg->table);
    hp_put_u32(&w, mg->active);
    hp_put_u64(&w, mg->offset);
    hp_put_u64(&w, mg->total);
    const uint64_t *k = mg_keys(mg), *c = mg_counts(mg);
    for (uint32_t s = 0; s < mg->table; s++)
        if (c[s]) { hp_put_u64(&w, k[s]); hp_put_u64(&w, c[s]); }
    return w.ok ? w.len : 0;
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_SUMMARY_MISRAGRIES || hp_get_u32(&r) != MG_VERSION) return NULL;
    uint32_t table = hp_get_u32(&r), active = hp_get_u32(&r);
    uint64_t offset = hp_get_u64(&r), total = hp_get_u64(&r);
    if (!r.ok || table < MG_MIN_TABLE || table > (1u << 28) || (table & (table - 1))) return NULL;
    if (active > table / 4 * 3 || hp_rbuf_left(&r) != (size_t)active * 16) return NULL;
    hp_misragries *mg = mg_place(mem, budget, table);
    if (!mg) return NULL;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < active; i++) {
        uint64_t key = hp_get_u64(&r), count = hp_get_u64(&r);
        if (count == 0 || hp_misragries_count(mg, key) != 0) return NULL; /* zero or duplicate */
        if (sum + count < sum) return NULL;
        sum += count;
        mg_insert_fresh(mg, key, count);
    }
    if (sum > total || offset > total) return NULL; /* counters never exceed the weight seen */
    mg->offset = offset;
    mg->total = total;
    return r.ok ? mg : NULL;
}

static size_t vt_bytes_used(const void *sv) { return mg_bytes(((const hp_misragries *)sv)->table); }
static uint64_t vt_total(const void *sv) { return ((const hp_misragries *)sv)->total; }

const hp_summary_vt hp_misragries_vt = {
    "misragries", HP_SUMMARY_MISRAGRIES, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize, vt_bytes_used, vt_total,
};

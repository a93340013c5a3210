/* misragries.c — Misra–Gries with DataSketches-style purge by median. See misragries.h.
 *
 * Layout in the caller's buffer:
 *   hp_misragries header | mg_slot slots[T] | uint64_t scratch[M+1]     (M = max_active = 3T/4)
 * slots is a linear-probing map of (key, count) over T slots (any T >= 8: the home slot is the
 * Fibonacci hash of the key scaled by a multiply-high), so the whole budget is used (22 bytes per
 * slot: 16 KB holds T = 742, M = 556 keys; a power-of-two table with a key scratch held 384).
 * A slot is occupied iff its count > 0 (so key 0 is an ordinary key). Key and count share a slot:
 * one cache line per probe.
 * Purge (when M + 1 keys are held): the counts are copied to scratch and the median m found by
 * quickselect; the survivors (count > m, fewer than (M + 2) / 2 of them) go to scratch as
 * (key, count - m) pairs, which fit in its M + 1 words, and are reinserted into the cleared
 * table. O(T) per purge, and a purge frees at least half of the M + 1 keys, so O(1) amortized per
 * new key. (The scratch used to hold keys and counts of every key: 16 bytes per key, now 8.)
 * Serialized form: kind u32, version u32, table size u32, active u32, offset u64, total u64,
 * then (key u64, count u64) per held key in slot order from the first empty slot on (so a copy has
 * the same layout and serializes to the same bytes). Version 2 allows any table size >= 8;
 * version 1 (power-of-two tables) is still read.
 */
#include "core/summary/misragries.h"
#include <string.h>
#include "core/base/bytes.h"
#include "core/base/hash.h"

#define MG_VERSION 2u
#define MG_MIN_TABLE 8u
#define MG_MAX_TABLE (1u << 28)

typedef struct mg_slot { uint64_t key, count; } mg_slot;

struct hp_misragries {
    uint32_t table, max_active, active, reserved;
    uint64_t offset, total;
};

static mg_slot *mg_slots(const hp_misragries *mg) { return (mg_slot *)(void *)((uint8_t *)(uintptr_t)mg + sizeof *mg); }
static uint64_t *mg_scratch(const hp_misragries *mg) { return (uint64_t *)(void *)(mg_slots(mg) + mg->table); }

static uint32_t max_active_for(uint32_t table) { return (uint32_t)((uint64_t)table * 3 / 4); }

static size_t mg_bytes(uint32_t table)
{
    return sizeof(hp_misragries) + (size_t)table * sizeof(mg_slot) + ((size_t)max_active_for(table) + 1) * 8;
}

static hp_misragries *mg_place(void *mem, size_t budget, uint32_t table)
{
    if (!mem || table < MG_MIN_TABLE || table > MG_MAX_TABLE || mg_bytes(table) > budget) return NULL;
    hp_misragries *mg = (hp_misragries *)mem;
    mg->table = table;
    mg->max_active = max_active_for(table);
    mg->active = 0;
    mg->reserved = 0;
    mg->offset = 0;
    mg->total = 0;
    memset(mg_slots(mg), 0, (size_t)table * sizeof(mg_slot));
    return mg;
}

hp_misragries *hp_misragries_init(void *mem, size_t budget, uint64_t seed)
{
    (void)seed; /* deterministic: no randomness */
    if (mg_bytes(MG_MIN_TABLE) > budget) return NULL;
    uint32_t lo = MG_MIN_TABLE, hi = MG_MAX_TABLE; /* the largest table that fits */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (mg_bytes(mid) <= budget) lo = mid;
        else hi = mid - 1;
    }
    return mg_place(mem, budget, lo);
}

static uint32_t mg_home(const hp_misragries *mg, uint64_t key)
{
    return (uint32_t)(((__uint128_t)(key * 0x9e3779b97f4a7c15ull) * mg->table) >> 64);
}

static uint32_t mg_slot_of(const hp_misragries *mg, uint64_t key)
{
    const mg_slot *sl = mg_slots(mg);
    uint32_t s = mg_home(mg, key);
    while (sl[s].count && sl[s].key != key)
        if (++s == mg->table) s = 0;
    return s;
}

uint64_t hp_misragries_count(const hp_misragries *mg, uint64_t key) { return mg_slots(mg)[mg_slot_of(mg, key)].count; }
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
    mg_slot *sl = &mg_slots(mg)[mg_slot_of(mg, key)];
    sl->key = key;
    sl->count = count;
    mg->active++;
}

/* Subtract the median counter from all, drop the non-positive, offset += median. */
static void mg_purge(hp_misragries *mg)
{
    mg_slot *sl = mg_slots(mg);
    uint64_t *sc = mg_scratch(mg);
    uint32_t n = 0, k = 0;
    for (uint32_t s = 0; s < mg->table; s++)
        if (sl[s].count) sc[n++] = sl[s].count;
    uint64_t median = select_kth(sc, n, n / 2);
    /* survivors as (key, count - median) pairs into scratch: fewer than (n + 1) / 2 of them
     * (the median's own rank and those below drop), so 2 words each fit in the n <= M + 1 words */
    for (uint32_t s = 0; s < mg->table; s++)
        if (sl[s].count > median) {
            sc[k++] = sl[s].key;
            sc[k++] = sl[s].count - median;
        }
    memset(sl, 0, (size_t)mg->table * sizeof *sl);
    mg->active = 0;
    for (uint32_t i = 0; i < k; i += 2) mg_insert_fresh(mg, sc[i], sc[i + 1]);
    mg->offset += median;
}

void hp_misragries_update(hp_misragries *mg, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    mg->total += weight;
    mg_slot *sl = &mg_slots(mg)[mg_slot_of(mg, key)];
    if (sl->count) { sl->count = sl->count + weight < sl->count ? UINT64_MAX : sl->count + weight; return; }
    sl->key = key;
    sl->count = weight;
    if (++mg->active > mg->max_active) mg_purge(mg);
}

int hp_misragries_merge(hp_misragries *dst, const hp_misragries *src)
{
    if (dst == src) return -1;
    const mg_slot *sl = mg_slots(src);
    uint64_t total = dst->total + src->total;
    for (uint32_t s = 0; s < src->table; s++)
        if (sl[s].count) hp_misragries_update(dst, sl[s].key, sl[s].count);
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
    const mg_slot *sl = mg_slots(mg);
    size_t m = 0;
    for (uint32_t s = 0; s < mg->table; s++) {
        if (!sl[s].count) continue;
        hp_estimate v;
        mg_fill(mg, sl[s].key, sl[s].count, &v);
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
    /* slot order, starting after an empty slot (there is one: active <= 3T/4): reinserting in this
     * order rebuilds the same layout, so a copy serializes to the same bytes */
    const mg_slot *sl = mg_slots(mg);
    uint32_t start = 0;
    while (sl[start].count) start++;
    for (uint32_t i = 1; i <= mg->table; i++) {
        uint32_t s = (start + i) % mg->table;
        if (sl[s].count) { hp_put_u64(&w, sl[s].key); hp_put_u64(&w, sl[s].count); }
    }
    return w.ok ? w.len : 0;
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    uint32_t kind = hp_get_u32(&r), version = hp_get_u32(&r);
    if (kind != HP_SUMMARY_MISRAGRIES || (version != MG_VERSION && version != 1)) return NULL;
    uint32_t table = hp_get_u32(&r), active = hp_get_u32(&r);
    uint64_t offset = hp_get_u64(&r), total = hp_get_u64(&r);
    if (!r.ok || table < MG_MIN_TABLE || table > MG_MAX_TABLE) return NULL;
    if (version == 1 && (table & (table - 1))) return NULL; /* version 1 tables are powers of two */
    if (active > max_active_for(table) || hp_rbuf_left(&r) != (size_t)active * 16) return NULL;
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

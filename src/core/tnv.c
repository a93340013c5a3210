/* tnv.c — TNV table with LFU replacement and periodic lower-half clearing. See tnv.h.
 *
 * Layout: hp_tnv header | hp_tnv_entry e[N]; entries [0, used) are live, in table order.
 * Serialized form: kind u32, version u32, N u32, K u32, used u32, since_clear u32, total u64,
 * clears u64, then (value u64, count u64) per live entry in table order.
 */
#include "core/tnv.h"
#include "core/bytes.h"

#define TNV_VERSION 1u

struct hp_tnv {
    uint32_t n, clear_interval, used, since_clear;
    uint64_t total, clears;
};

static hp_tnv_entry *tnv_e(const hp_tnv *t) { return (hp_tnv_entry *)(void *)((uint8_t *)(uintptr_t)t + sizeof *t); }

size_t hp_tnv_bytes(uint32_t n_entries) { return sizeof(hp_tnv) + (size_t)n_entries * sizeof(hp_tnv_entry); }

hp_tnv *hp_tnv_init(void *mem, size_t budget, uint32_t n_entries, uint32_t clear_interval)
{
    if (!mem || n_entries == 0 || n_entries > HP_TNV_MAX_N || clear_interval == 0) return NULL;
    if (hp_tnv_bytes(n_entries) > budget) return NULL;
    hp_tnv *t = (hp_tnv *)mem;
    t->n = n_entries;
    t->clear_interval = clear_interval;
    t->used = 0;
    t->since_clear = 0;
    t->total = 0;
    t->clears = 0;
    return t;
}

uint32_t hp_tnv_entries(const hp_tnv *t, const hp_tnv_entry **out)
{
    *out = tnv_e(t);
    return t->used;
}

uint64_t hp_tnv_clears(const hp_tnv *t) { return t->clears; }

/* Stable insertion sort by count, highest first (N is small). */
static void sort_by_count(hp_tnv_entry *e, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        hp_tnv_entry v = e[i];
        uint32_t j = i;
        while (j > 0 && e[j - 1].count < v.count) { e[j] = e[j - 1]; j--; }
        e[j] = v;
    }
}

/* Keep the steady part (the N - N/2 highest counts), clear the rest. */
static void clear_lower_half(hp_tnv *t)
{
    uint32_t steady = t->n - t->n / 2;
    sort_by_count(tnv_e(t), t->used);
    if (t->used > steady) t->used = steady;
    t->clears++;
}

static uint32_t lfu_index(const hp_tnv *t)
{
    const hp_tnv_entry *e = tnv_e(t);
    uint32_t m = 0;
    for (uint32_t i = 1; i < t->used; i++) if (e[i].count < e[m].count) m = i;
    return m;
}

static void tnv_insert(hp_tnv *t, uint64_t value, uint64_t weight)
{
    hp_tnv_entry *e = tnv_e(t);
    for (uint32_t i = 0; i < t->used; i++)
        if (e[i].value == value) { e[i].count = e[i].count + weight < e[i].count ? UINT64_MAX : e[i].count + weight; return; }
    uint32_t slot = t->used < t->n ? t->used++ : lfu_index(t);
    e[slot].value = value;
    e[slot].count = weight;
}

void hp_tnv_update(hp_tnv *t, uint64_t value, uint64_t weight)
{
    if (weight == 0) return;
    t->total = t->total + weight < t->total ? UINT64_MAX : t->total + weight;
    tnv_insert(t, value, weight);
    if (++t->since_clear >= t->clear_interval) {
        clear_lower_half(t);
        t->since_clear = 0;
    }
}

/* ---- vtable glue ---- */

static uint64_t tnv_sum(const hp_tnv *t)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < t->used; i++) s = s + tnv_e(t)[i].count < s ? UINT64_MAX : s + tnv_e(t)[i].count;
    return s;
}

static void tnv_fill(const hp_tnv *t, uint64_t value, uint64_t count, uint64_t sum_all, hp_estimate *out)
{
    uint64_t others = sum_all - count;
    out->key = value;
    out->count = count;
    out->lower = count;
    out->upper = t->total >= others ? t->total - others : count;
}

static void *vt_init(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_tnv_init(mem, budget, HP_TNV_DEFAULT_N, HP_TNV_DEFAULT_CLEAR); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_tnv_update((hp_tnv *)s, key, w); }

static int before(const hp_estimate *a, const hp_estimate *b)
{
    return a->count > b->count || (a->count == b->count && a->key < b->key);
}

static size_t vt_topk(const void *s, hp_estimate *out, size_t k)
{
    const hp_tnv *t = (const hp_tnv *)s;
    uint64_t sum = tnv_sum(t);
    size_t m = 0;
    for (uint32_t i = 0; i < t->used; i++) {
        hp_estimate v;
        tnv_fill(t, tnv_e(t)[i].value, tnv_e(t)[i].count, sum, &v);
        if (m == k && (k == 0 || !before(&v, &out[m - 1]))) continue;
        size_t j = m < k ? m++ : m - 1;
        while (j > 0 && before(&v, &out[j - 1])) { out[j] = out[j - 1]; j--; }
        out[j] = v;
    }
    return m;
}

static int vt_query(const void *s, uint64_t key, hp_estimate *out)
{
    const hp_tnv *t = (const hp_tnv *)s;
    uint64_t sum = tnv_sum(t);
    for (uint32_t i = 0; i < t->used; i++)
        if (tnv_e(t)[i].value == key) { tnv_fill(t, key, tnv_e(t)[i].count, sum, out); return 1; }
    out->key = key;
    out->count = out->lower = 0;
    out->upper = t->total >= sum ? t->total - sum : 0;
    return 0;
}

static int vt_merge(void *d, const void *s) { (void)d; (void)s; return -1; }

static size_t vt_serialized_size(const void *s) { return 6 * 4 + 8 + 8 + (size_t)((const hp_tnv *)s)->used * 16; }

static size_t vt_serialize(const void *s, void *buf, size_t cap)
{
    const hp_tnv *t = (const hp_tnv *)s;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_TNV);
    hp_put_u32(&w, TNV_VERSION);
    hp_put_u32(&w, t->n);
    hp_put_u32(&w, t->clear_interval);
    hp_put_u32(&w, t->used);
    hp_put_u32(&w, t->since_clear);
    hp_put_u64(&w, t->total);
    hp_put_u64(&w, t->clears);
    for (uint32_t i = 0; i < t->used; i++) { hp_put_u64(&w, tnv_e(t)[i].value); hp_put_u64(&w, tnv_e(t)[i].count); }
    return w.ok ? w.len : 0;
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_SUMMARY_TNV || hp_get_u32(&r) != TNV_VERSION) return NULL;
    uint32_t n = hp_get_u32(&r), k = hp_get_u32(&r), used = hp_get_u32(&r), since = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r), clears = hp_get_u64(&r);
    if (!r.ok || used > n || since >= k || hp_rbuf_left(&r) != (size_t)used * 16) return NULL;
    hp_tnv *t = hp_tnv_init(mem, budget, n, k);
    if (!t) return NULL;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < used; i++) {
        uint64_t value = hp_get_u64(&r), count = hp_get_u64(&r);
        for (uint32_t j = 0; j < i; j++) if (tnv_e(t)[j].value == value) return NULL;
        if (count == 0 || sum + count < sum) return NULL;
        sum += count;
        tnv_e(t)[i].value = value;
        tnv_e(t)[i].count = count;
    }
    if (sum > total) return NULL;
    t->used = used;
    t->since_clear = since;
    t->total = total;
    t->clears = clears;
    return r.ok ? t : NULL;
}

static size_t vt_bytes_used(const void *s) { return hp_tnv_bytes(((const hp_tnv *)s)->n); }
static uint64_t vt_total(const void *s) { return ((const hp_tnv *)s)->total; }

const hp_summary_vt hp_tnv_vt = {
    "tnv", HP_SUMMARY_TNV, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize, vt_bytes_used, vt_total,
};

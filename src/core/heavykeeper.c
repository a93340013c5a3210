/* heavykeeper.c — HeavyKeeper with exponential-weakening decay + top-k heap. See heavykeeper.h.
 *
 * Layout in the caller's buffer:
 *   hp_heavykeeper header | hk_bucket buckets[HP_HK_ARRAYS * width] | hp_topheap
 * Serialized form: kind u32, version u32, seed u64, width u32, heap cap u32, total u64,
 * rng state 4 x u64, buckets (fp u32, count u32), heap size u32, (key u64, count u64) entries.
 */
#include "core/heavykeeper.h"
#include <math.h>
#include <string.h>
#include "core/bytes.h"
#include "core/hash.h"
#include "core/rng.h"

#define HK_VERSION 1u
/* b^-c < 2^-64 beyond this count: the decay never fires in practice, skip the draw. */
#define HK_NO_DECAY_COUNT 577u

typedef struct hk_bucket { uint32_t fp, count; } hk_bucket;

struct hp_heavykeeper {
    uint32_t width, heap_cap;
    uint64_t seed, total, fp_seed;
    uint64_t row_seed[HP_HK_ARRAYS];
    hp_rng rng;
};

static hk_bucket *hk_buckets(const hp_heavykeeper *hk) { return (hk_bucket *)(void *)((uint8_t *)(uintptr_t)hk + sizeof *hk); }
static size_t hk_bucket_bytes(uint32_t width) { return (size_t)HP_HK_ARRAYS * width * sizeof(hk_bucket); }
static hp_topheap *hk_heap(const hp_heavykeeper *hk)
{
    return (hp_topheap *)(void *)((uint8_t *)(uintptr_t)hk + sizeof *hk + hk_bucket_bytes(hk->width));
}
static size_t hk_bytes(uint32_t width, uint32_t heap_cap)
{
    return sizeof(hp_heavykeeper) + hk_bucket_bytes(width) + hp_topheap_bytes(heap_cap);
}

uint32_t hp_heavykeeper_width(const hp_heavykeeper *hk) { return hk->width; }
uint32_t hp_heavykeeper_heap_cap(const hp_heavykeeper *hk) { return hk->heap_cap; }

static hp_heavykeeper *hk_place(void *mem, size_t budget, uint64_t seed, uint32_t width, uint32_t heap_cap)
{
    if (!mem || width == 0 || heap_cap == 0 || hk_bytes(width, heap_cap) > budget) return NULL;
    hp_heavykeeper *hk = (hp_heavykeeper *)mem;
    hk->width = width;
    hk->heap_cap = heap_cap;
    hk->seed = seed;
    hk->total = 0;
    uint64_t sm = seed;
    hk->fp_seed = hp_splitmix64(&sm);
    for (int j = 0; j < HP_HK_ARRAYS; j++) hk->row_seed[j] = hp_splitmix64(&sm);
    hp_rng_seed(&hk->rng, hp_splitmix64(&sm));
    memset(hk_buckets(hk), 0, hk_bucket_bytes(width));
    hp_topheap_init(hk_heap(hk), heap_cap);
    return hk;
}

hp_heavykeeper *hp_heavykeeper_init_shape(void *mem, size_t budget, uint64_t seed, uint32_t width, uint32_t heap_cap)
{
    if (width > (1u << 28) || heap_cap > (1u << 24)) return NULL;
    return hk_place(mem, budget, seed, width, heap_cap);
}

hp_heavykeeper *hp_heavykeeper_init(void *mem, size_t budget, uint64_t seed)
{
    uint32_t heap_cap = hp_topheap_cap_for(budget / HP_HK_HEAP_SHARE);
    size_t fixed = sizeof(hp_heavykeeper) + hp_topheap_bytes(heap_cap);
    if (heap_cap == 0 || fixed >= budget) return NULL;
    size_t w = (budget - fixed) / (HP_HK_ARRAYS * sizeof(hk_bucket));
    return hk_place(mem, budget, seed, w > (1u << 28) ? (1u << 28) : (uint32_t)w, heap_cap);
}

static uint32_t hk_fingerprint(const hp_heavykeeper *hk, uint64_t key) { return (uint32_t)hp_mix64(key ^ hk->fp_seed); }
static hk_bucket *hk_bucket_of(const hp_heavykeeper *hk, int j, uint64_t key)
{
    return &hk_buckets(hk)[(size_t)j * hk->width + hp_reduce(hp_mix64(key ^ hk->row_seed[j]), hk->width)];
}

static uint32_t sat_add32(uint32_t a, uint64_t b) { return b >= (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b; }

/* `units` unit updates of fingerprint fp against an occupied bucket holding another fingerprint. */
static void hk_decay(hp_heavykeeper *hk, hk_bucket *b, uint32_t fp, uint64_t units)
{
    while (units > 0) {
        if (b->count >= HK_NO_DECAY_COUNT) return;
        double p = pow(HP_HK_DECAY_BASE, -(double)b->count);
        uint64_t misses = units == 1 ? (hp_rng_double(&hk->rng) < p ? 0 : 1) : hp_rng_geometric(&hk->rng, p);
        if (misses >= units) return;
        units -= misses + 1;
        if (--b->count == 0) { b->fp = fp; b->count = sat_add32(1, units); return; }
    }
}

uint64_t hp_heavykeeper_estimate(const hp_heavykeeper *hk, uint64_t key)
{
    uint32_t fp = hk_fingerprint(hk, key), best = 0;
    for (int j = 0; j < HP_HK_ARRAYS; j++) {
        const hk_bucket *b = hk_bucket_of(hk, j, key);
        if (b->count && b->fp == fp && b->count > best) best = b->count;
    }
    return best;
}

void hp_heavykeeper_update(hp_heavykeeper *hk, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    hk->total += weight;
    uint32_t fp = hk_fingerprint(hk, key);
    for (int j = 0; j < HP_HK_ARRAYS; j++) {
        hk_bucket *b = hk_bucket_of(hk, j, key);
        if (b->count == 0) { b->fp = fp; b->count = sat_add32(0, weight); }
        else if (b->fp == fp) b->count = sat_add32(b->count, weight);
        else hk_decay(hk, b, fp, weight);
    }
    uint64_t est = hp_heavykeeper_estimate(hk, key);
    if (est > 0) hp_topheap_offer(hk_heap(hk), key, est);
}

/* ---- vtable glue ---- */

static void hk_fill(const hp_heavykeeper *hk, uint64_t key, uint64_t est, hp_estimate *out)
{
    out->key = key;
    out->count = est;
    out->lower = est;
    out->upper = hk->total;
}

static void *vt_init(void *mem, size_t budget, uint64_t seed) { return hp_heavykeeper_init(mem, budget, seed); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_heavykeeper_update((hp_heavykeeper *)s, key, w); }

static size_t vt_topk(const void *s, hp_estimate *out, size_t k)
{
    const hp_heavykeeper *hk = (const hp_heavykeeper *)s;
    hp_topentry tmp[64];
    size_t done = 0;
    /* sorted in chunks through a small buffer to avoid a second large array */
    if (k <= 64) {
        done = hp_topheap_sorted(hk_heap(hk), tmp, k);
        for (size_t i = 0; i < done; i++) hk_fill(hk, tmp[i].key, tmp[i].count, &out[i]);
        return done;
    }
    const hp_topheap *h = hk_heap(hk);
    const hp_topentry *e = hp_topheap_entries(h);
    for (uint32_t i = 0; i < h->n; i++) {
        hp_estimate v;
        hk_fill(hk, e[i].key, e[i].count, &v);
        if (done == k && !(v.count > out[done - 1].count)) continue;
        size_t j = done < k ? done++ : done - 1;
        while (j > 0 && (v.count > out[j - 1].count || (v.count == out[j - 1].count && v.key < out[j - 1].key))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = v;
    }
    return done;
}

static int vt_query(const void *s, uint64_t key, hp_estimate *out)
{
    const hp_heavykeeper *hk = (const hp_heavykeeper *)s;
    long pos = hp_topheap_find(hk_heap(hk), key);
    uint64_t est = pos >= 0 ? hp_topheap_entries(hk_heap(hk))[pos].count : hp_heavykeeper_estimate(hk, key);
    hk_fill(hk, key, est, out);
    return pos >= 0;
}

static int vt_merge(void *d, const void *s) { (void)d; (void)s; return -1; }

static size_t vt_serialized_size(const void *s)
{
    const hp_heavykeeper *hk = (const hp_heavykeeper *)s;
    return 4 + 4 + 8 + 4 + 4 + 8 + 32 + hk_bucket_bytes(hk->width) + 4 + (size_t)hk_heap(hk)->n * 16;
}

static size_t vt_serialize(const void *s, void *buf, size_t cap)
{
    const hp_heavykeeper *hk = (const hp_heavykeeper *)s;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_HEAVYKEEPER);
    hp_put_u32(&w, HK_VERSION);
    hp_put_u64(&w, hk->seed);
    hp_put_u32(&w, hk->width);
    hp_put_u32(&w, hk->heap_cap);
    hp_put_u64(&w, hk->total);
    for (int i = 0; i < 4; i++) hp_put_u64(&w, hk->rng.s[i]);
    const hk_bucket *b = hk_buckets(hk);
    for (size_t i = 0; i < (size_t)HP_HK_ARRAYS * hk->width; i++) { hp_put_u32(&w, b[i].fp); hp_put_u32(&w, b[i].count); }
    const hp_topheap *h = hk_heap(hk);
    const hp_topentry *e = hp_topheap_entries(h);
    hp_put_u32(&w, h->n);
    for (uint32_t i = 0; i < h->n; i++) { hp_put_u64(&w, e[i].key); hp_put_u64(&w, e[i].count); }
    return w.ok ? w.len : 0;
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_SUMMARY_HEAVYKEEPER || hp_get_u32(&r) != HK_VERSION) return NULL;
    uint64_t seed = hp_get_u64(&r);
    uint32_t width = hp_get_u32(&r), heap_cap = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r);
    uint64_t rs[4];
    for (int i = 0; i < 4; i++) rs[i] = hp_get_u64(&r);
    if (!r.ok || width == 0 || width > (1u << 28) || heap_cap == 0 || heap_cap > (1u << 24)) return NULL;
    if ((rs[0] | rs[1] | rs[2] | rs[3]) == 0) return NULL; /* xoshiro's one forbidden state */
    if (hp_rbuf_left(&r) < hk_bucket_bytes(width) + 4) return NULL;
    hp_heavykeeper *hk = hk_place(mem, budget, seed, width, heap_cap);
    if (!hk) return NULL;
    hk->total = total;
    for (int i = 0; i < 4; i++) hk->rng.s[i] = rs[i];
    hk_bucket *b = hk_buckets(hk);
    for (size_t i = 0; i < (size_t)HP_HK_ARRAYS * width; i++) {
        b[i].fp = hp_get_u32(&r);
        b[i].count = hp_get_u32(&r);
        if (b[i].count > total) return NULL;
    }
    uint32_t n = hp_get_u32(&r);
    if (!r.ok || n > heap_cap || hp_rbuf_left(&r) != (size_t)n * 16) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t key = hp_get_u64(&r), count = hp_get_u64(&r);
        if (count == 0 || count > total || hp_topheap_push(hk_heap(hk), key, count) != 0) return NULL;
    }
    return r.ok ? hk : NULL;
}

static size_t vt_bytes_used(const void *s)
{
    const hp_heavykeeper *hk = (const hp_heavykeeper *)s;
    return hk_bytes(hk->width, hk->heap_cap);
}

static uint64_t vt_total(const void *s) { return ((const hp_heavykeeper *)s)->total; }

const hp_summary_vt hp_heavykeeper_vt = {
    "heavykeeper", HP_SUMMARY_HEAVYKEEPER, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize, vt_bytes_used, vt_total,
};

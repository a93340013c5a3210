/* heavykeeper.c — HeavyKeeper with exponential-weakening decay + top-k heap. See heavykeeper.h.
 *
 * Layout in the caller's buffer:
 *   hp_heavykeeper header | hk_bucket buckets[HP_HK_ARRAYS * width] | hp_topheap
 * Serialized form (version 2): kind u32, version u32, seed u64, width u32, heap cap u32, total u64,
 * rng state 4 x u64, buckets (fp u32, count u32), heap size u32, (key u64, count u64) entries.
 */
#include "core/summary/heavykeeper.h"
#include <string.h>
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/base/rng.h"

#define HK_VERSION 2u /* 2: fingerprint and buckets from one hash (1: a hash each) */
/* b^-c < 2^-64 beyond this count: the decay never fires in practice, skip the draw. */
#define HK_NO_DECAY_COUNT 577u

/* The decay probability b^-c = HK_POW_LO[c % 64] * HK_POW_HI[c / 64] for c < 577 (b = 1.08,
 * HP_HK_DECAY_BASE; within 2 ulp of pow(), which cost more than the rest of a colliding update). */
static const double HK_POW_LO[64] = {
    1, 0.92592592592592582, 0.8573388203017831, 0.79383224102016958, 0.73502985279645328,
    0.68058319703375292, 0.63016962688310452, 0.58349039526213375, 0.54026888450197574,
    0.50024896713145894, 0.46319348808468419, 0.42888285933767051, 0.39711375864599119,
    0.36769792467221402, 0.34046104136316113, 0.31524170496588988, 0.29189046756100917,
    0.27026895144537882, 0.25024902911609148, 0.231712063996381, 0.21454820740405647,
    0.19865574759634858, 0.18394050703365605, 0.17031528429042228, 0.15769933730594654,
    0.14601790491291344, 0.13520176380825319, 0.12518681834097517, 0.1159137206860881,
    0.10732751915378527, 0.099377332549801176, 0.092016048657223307, 0.085200045052984535,
    0.078888930604615312, 0.07304530611538454, 0.067634542699430117, 0.062624576573546406,
    0.057985719049580005, 0.053690480601462962, 0.049713407964317551, 0.046030933300294029,
    0.042621234537309281, 0.039464106053064149, 0.036540838938022353, 0.033834110127798474,
    0.03132787974796155, 0.02900729606292736, 0.026858607465673479, 0.024869080986734703,
    0.023026926839569167, 0.021321228555156634, 0.019741878291811697, 0.01827951693686268,
    0.016925478645243221, 0.015671739486336315, 0.014510869894755847, 0.013435990643292451,
    0.012440732077122638, 0.011519196367706146, 0.010665922562690874, 0.0098758542247137718,
    0.009144309467327567, 0.008466953210488487, 0.0078397714911930434
};
static const double HK_POW_HI[10] = {
    1, 0.007259047677030595, 5.2693773177403271e-05, 3.825066117774063e-07, 2.7766337316716245e-09,
    2.0155716639855698e-11, 1.4631130805343141e-13, 1.062080760848569e-15, 7.7096948798566914e-18,
    5.5965042708238384e-20
};

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
    for (int j = 0; j < HP_HK_ARRAYS; j++) hk->row_seed[j] = hp_splitmix64(&sm) | 1u;
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

/* One hash per key: h = hp_mix64(key ^ fp_seed). The fingerprint is its low 32 bits; array j's
 * bucket is the high bits of h * a_j (a_j a seeded odd multiplier: multiply-shift), scaled to
 * the width by a multiply-high, so it depends on all 64 bits of h, not only on the fingerprint. */
static uint64_t hk_hash(const hp_heavykeeper *hk, uint64_t key) { return hp_mix64(key ^ hk->fp_seed); }
static uint32_t hk_fp_of(uint64_t h) { return (uint32_t)h; }
static hk_bucket *hk_bucket_at(const hp_heavykeeper *hk, int j, uint64_t h)
{
    return &hk_buckets(hk)[(size_t)j * hk->width + hp_reduce(h * hk->row_seed[j], hk->width)];
}

static uint32_t sat_add32(uint32_t a, uint64_t b) { return b >= (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b; }

static inline double decay_probability(uint32_t count) /* count < HK_NO_DECAY_COUNT */
{
    return HK_POW_LO[count & 63] * HK_POW_HI[count >> 6];
}

double hp_heavykeeper_decay_probability(uint32_t count)
{
    return count >= HK_NO_DECAY_COUNT ? 0.0 : decay_probability(count);
}

/* `units` unit updates of fingerprint fp against an occupied bucket holding another fingerprint. */
static void hk_decay(hp_heavykeeper *hk, hk_bucket *b, uint32_t fp, uint64_t units)
{
    while (units > 0) {
        if (b->count >= HK_NO_DECAY_COUNT) return;
        double p = decay_probability(b->count);
        uint64_t misses = units == 1 ? (hp_rng_double(&hk->rng) < p ? 0 : 1) : hp_rng_geometric(&hk->rng, p);
        if (misses >= units) return;
        units -= misses + 1;
        if (--b->count == 0) { b->fp = fp; b->count = sat_add32(1, units); return; }
    }
}

uint64_t hp_heavykeeper_estimate(const hp_heavykeeper *hk, uint64_t key)
{
    uint64_t h = hk_hash(hk, key);
    uint32_t fp = hk_fp_of(h), best = 0;
    for (int j = 0; j < HP_HK_ARRAYS; j++) {
        const hk_bucket *b = hk_bucket_at(hk, j, h);
        if (b->count && b->fp == fp && b->count > best) best = b->count;
    }
    return best;
}

void hp_heavykeeper_update(hp_heavykeeper *hk, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    hk->total += weight;
    uint64_t h = hk_hash(hk, key);
    uint32_t fp = hk_fp_of(h), est = 0;
    for (int j = 0; j < HP_HK_ARRAYS; j++) {
        hk_bucket *b = hk_bucket_at(hk, j, h);
        if (b->count == 0) { b->fp = fp; b->count = sat_add32(0, weight); }
        else if (b->fp == fp) b->count = sat_add32(b->count, weight);
        else hk_decay(hk, b, fp, weight);
        if (b->count && b->fp == fp && b->count > est) est = b->count; /* the estimate, as above */
    }
    if (est == 0) return;
    /* With a full heap and est <= its minimum the offer changes nothing: a held key's count is
     * already >= the minimum >= est (it keeps the max), and a new key is not above the minimum. */
    hp_topheap *hp = hk_heap(hk);
    if (hp->n == hp->cap && est <= hp_topheap_entries(hp)[0].count) return;
    hp_topheap_offer(hp, key, est);
}

/* ---- vtable glue ---- */

static void hk_fill(const hp_heavykeeper *hk, uint64_t key, uint64_t est, hp_estimate *out)
{
    out->key = key;
    out->count = est;
    out->lower = est;
    out->upper = hk->total;
}

static void hk_fill_held(const void *ctx, uint64_t key, uint64_t count, hp_estimate *out)
{
    hk_fill((const hp_heavykeeper *)ctx, key, count, out);
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
    return hp_topheap_topk(hk_heap(hk), hk_fill_held, hk, out, k);
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
    hp_topheap_write(hk_heap(hk), &w);
    return w.ok ? w.len : 0;
}

/* A held count is at least 1 and at most the stream's total. */
static int hk_entry_ok(const void *ctx, uint64_t key, uint64_t count)
{
    (void)key;
    return count != 0 && count <= ((const hp_heavykeeper *)ctx)->total;
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
    return hp_topheap_read(hk_heap(hk), &r, hk_entry_ok, hk) ? hk : NULL;
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

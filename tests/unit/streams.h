/* streams.h — deterministic test streams and property checks shared by the summary unit tests.
 *
 * Streams: Zipf(alpha) over `distinct` ranks (rank 0 is key 0, rank 1 is key UINT64_MAX, others
 * are mixed ranks), uniform noise, and adversarial orders of the same multiset (cold-first
 * sorted, hot-first sorted, bursts, alternating halves). Same seed, same stream, everywhere.
 * Ground truth is an Exact summary big enough never to drop (checked). Property checks go through
 * the hp_summary_vt interface so every summary is tested the same way:
 *   - bounds: lower <= true <= upper for every key of the stream, every top-k entry and absent keys;
 *   - round trip: serialize -> deserialize gives the same top-k, queries and bytes;
 *   - corrupt input: every truncation is rejected; random byte flips are rejected or give a
 *     structure that survives use (run under make SAN=1 to catch memory errors).
 * `--bench` (streams_bench) prints update rates; no test asserts on time.
 */
#ifndef HOTPROF_TEST_STREAMS_H
#define HOTPROF_TEST_STREAMS_H
#include "core/summary/exact.h"
#include "core/base/hash.h"
#include "core/base/rng.h"
#include "core/summary/summary.h"
#include "test.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct stream { uint64_t *keys; size_t n; } stream;

enum stream_order { ORDER_RANDOM, ORDER_COLD_FIRST, ORDER_HOT_FIRST, ORDER_BURSTS, ORDER_ALTERNATING, ORDER_COUNT };
static inline const char *stream_order_name(int order)
{
    static const char *const names[] = {"random", "cold-first", "hot-first", "bursts", "alternating"};
    return order >= 0 && order < ORDER_COUNT ? names[order] : "?";
}

static inline uint64_t stream_rank_key(uint32_t rank)
{
    if (rank == 0) return 0;
    if (rank == 1) return UINT64_MAX;
    return hp_mix64_xmx((uint64_t)rank * 0x9e3779b97f4a7c15ull + 12345);
}

static inline int stream_cmp_u32_asc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts ranks (all < distinct) by counting: ascending, or descending if desc. */
static inline void stream_sort_ranks(uint32_t *ranks, size_t n, uint32_t distinct, int desc)
{
    size_t *count = calloc(distinct, sizeof(size_t)), at = 0;
    for (size_t i = 0; i < n; i++) count[ranks[i]]++;
    for (uint32_t j = 0; j < distinct; j++) {
        uint32_t r = desc ? distinct - 1 - j : j;
        for (size_t c = 0; c < count[r]; c++) ranks[at++] = r;
    }
    free(count);
}

static inline void stream_reorder(uint32_t *ranks, size_t n, uint32_t distinct, int order)
{
    if (order == ORDER_COLD_FIRST || order == ORDER_ALTERNATING) stream_sort_ranks(ranks, n, distinct, 1);
    if (order == ORDER_HOT_FIRST) stream_sort_ranks(ranks, n, distinct, 0);
    if (order == ORDER_BURSTS) /* each window of 10^4 items grouped by key: runs of one key */
        for (size_t i = 0; i < n; i += 10000) qsort(ranks + i, n - i < 10000 ? n - i : 10000, 4, stream_cmp_u32_asc);
    if (order == ORDER_ALTERNATING) { /* cold half and hot half interleaved */
        uint32_t *tmp = malloc(n * 4);
        for (size_t i = 0; i < n; i++) tmp[i] = i % 2 == 0 ? ranks[i / 2] : ranks[n / 2 + i / 2];
        memcpy(ranks, tmp, n * 4);
        free(tmp);
    }
}

static inline stream stream_zipf(size_t n, uint32_t distinct, double alpha, uint64_t seed, int order)
{
    double *cdf = malloc(distinct * sizeof(double)), sum = 0;
    uint32_t *ranks = malloc(n * 4);
    stream s = {malloc(n * 8), n};
    hp_rng g;
    for (uint32_t r = 0; r < distinct; r++) cdf[r] = (sum += pow(r + 1.0, -alpha));
    hp_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        double u = hp_rng_double(&g) * sum;
        uint32_t lo = 0, hi = distinct - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cdf[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        ranks[i] = lo;
    }
    stream_reorder(ranks, n, distinct, order);
    for (size_t i = 0; i < n; i++) s.keys[i] = stream_rank_key(ranks[i]);
    free(cdf);
    free(ranks);
    return s;
}

static inline stream stream_uniform(size_t n, uint64_t domain, uint64_t seed)
{
    stream s = {malloc(n * 8), n};
    hp_rng g;
    hp_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) s.keys[i] = stream_rank_key((uint32_t)hp_rng_below(&g, domain));
    return s;
}

static inline void stream_free(stream *s) { free(s->keys); s->keys = NULL; s->n = 0; }

/* ---- ground truth ---- */

typedef struct truth { hp_exact *e; void *mem; hp_estimate *all; size_t nall; } truth;

static inline truth truth_of(const stream *s, size_t from, size_t to)
{
    size_t budget = hp_exact_bytes_for((size_t)1 << 21);
    truth t = {NULL, malloc(budget), NULL, 0};
    t.e = hp_exact_init(t.mem, budget);
    for (size_t i = from; i < to; i++) hp_exact_update(t.e, s->keys[i], 1);
    t.all = malloc((hp_exact_size(t.e) + 1) * sizeof(hp_estimate));
    t.nall = hp_exact_topk(t.e, t.all, hp_exact_size(t.e));
    return t;
}

static inline void truth_free(truth *t) { free(t->mem); free(t->all); }

/* ---- summaries through the vtable ---- */

typedef struct summary { const hp_summary_vt *vt; void *s; void *mem; size_t budget; } summary;

static inline summary summary_new(const hp_summary_vt *vt, size_t budget, uint64_t seed)
{
    summary x = {vt, NULL, malloc(budget), budget};
    x.s = vt->init(x.mem, budget, seed);
    return x;
}

static inline void summary_feed(summary *x, const stream *s, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) x->vt->update(x->s, s->keys[i], 1);
}

static inline void summary_free(summary *x) { free(x->mem); x->mem = x->s = NULL; }

/* ---- bounds ---- */

typedef struct bound_stats { size_t checked, below_lower, above_upper, bad_order; } bound_stats;

static inline void bounds_one(const summary *x, uint64_t key, uint64_t true_count, bound_stats *st)
{
    hp_estimate e;
    x->vt->query(x->s, key, &e);
    st->checked++;
    if (true_count < e.lower) st->below_lower++;
    if (true_count > e.upper) st->above_upper++;
    if (e.lower > e.upper || e.key != key) st->bad_order++;
}

/* Accumulates bound violations over every key of the truth, the summary's top-k and absent keys. */
static inline void bounds_check(const summary *x, const truth *t, bound_stats *st)
{
    hp_estimate top[64];
    for (size_t i = 0; i < t->nall; i++) bounds_one(x, t->all[i].key, t->all[i].count, st);
    size_t k = x->vt->topk(x->s, top, 64);
    for (size_t i = 0; i < k; i++) {
        uint64_t tc = hp_exact_count(t->e, top[i].key);
        st->checked++;
        if (tc < top[i].lower) st->below_lower++;
        if (tc > top[i].upper) st->above_upper++;
        if (top[i].lower > top[i].upper || top[i].count < top[i].lower || top[i].count > top[i].upper) st->bad_order++;
        if (i > 0 && top[i - 1].count < top[i].count) st->bad_order++;
    }
    for (uint64_t a = 0; a < 100; a++) bounds_one(x, hp_mix64_xmx(a + 0xabcdef) | 1, 0, st); /* absent keys */
}

/* ---- round trip ---- */

static inline int estimates_equal(const hp_estimate *a, const hp_estimate *b)
{
    return a->key == b->key && a->count == b->count && a->lower == b->lower && a->upper == b->upper;
}

/* Serialize, deserialize into fresh memory of the same budget, compare; returns failures. */
static inline int roundtrip_check(const summary *x, const truth *t)
{
    int bad = 0;
    size_t len = x->vt->serialized_size(x->s);
    uint8_t *buf = malloc(len + 16), *buf2 = malloc(len + 16);
    void *mem = malloc(x->budget);
    if (x->vt->serialize(x->s, buf, len - 1) != 0) bad++; /* too small: refused */
    if (x->vt->serialize(x->s, buf, len) != len) bad++;
    void *y = x->vt->deserialize(mem, x->budget, buf, len);
    if (!y) { free(buf); free(buf2); free(mem); return bad + 1; }
    if (x->vt->bytes_used(y) != x->vt->bytes_used(x->s) || x->vt->total(y) != x->vt->total(x->s)) bad++;
    hp_estimate a[100], b[100], qa, qb;
    size_t ka = x->vt->topk(x->s, a, 100), kb = x->vt->topk(y, b, 100);
    if (ka != kb) bad++;
    for (size_t i = 0; i < ka && i < kb; i++) bad += !estimates_equal(&a[i], &b[i]);
    for (size_t i = 0; i < t->nall; i += 1 + t->nall / 2000) {
        int ha = x->vt->query(x->s, t->all[i].key, &qa), hb = x->vt->query(y, t->all[i].key, &qb);
        bad += ha != hb || !estimates_equal(&qa, &qb);
    }
    /* the bytes of the copy are a fixed point: copy of the copy serializes the same */
    void *mem2 = malloc(x->budget);
    if (x->vt->serialize(y, buf, len) != len) bad++;
    void *z = x->vt->deserialize(mem2, x->budget, buf, len);
    if (!z || x->vt->serialize(z, buf2, len) != len || memcmp(buf, buf2, len) != 0) bad++;
    free(buf); free(buf2); free(mem); free(mem2);
    return bad;
}

/* ---- corrupt input ---- */

/* Uses a deserialized structure the way a reader would; a crash here is the failure. */
static inline void exercise(const hp_summary_vt *vt, void *y)
{
    hp_estimate top[32], q;
    size_t k = vt->topk(y, top, 32);
    for (size_t i = 0; i < k; i++) vt->query(y, top[i].key, &q);
    for (uint64_t i = 0; i < 200; i++) vt->update(y, hp_mix64_xmx(i % 37), 1 + i % 3);
    vt->topk(y, top, 32);
    uint8_t tmp[4096];
    if (vt->serialized_size(y) <= sizeof tmp) vt->serialize(y, tmp, sizeof tmp);
}

typedef struct corrupt_stats { size_t truncations, truncations_accepted, flips, flips_accepted, invalid; } corrupt_stats;

/* Every truncation of x's serialized form must be rejected; random flips must not crash. */
static inline corrupt_stats corrupt_check(const summary *x, size_t flips, uint64_t seed,
                                   int (*valid)(const void *y))
{
    corrupt_stats st = {0, 0, 0, 0, 0};
    size_t len = x->vt->serialized_size(x->s);
    uint8_t *buf = malloc(len), *bad = malloc(len);
    void *mem = malloc(x->budget);
    hp_rng g;
    hp_rng_seed(&g, seed);
    x->vt->serialize(x->s, buf, len);
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(bad, buf, cut);
        st.truncations++;
        void *y = x->vt->deserialize(mem, x->budget, bad, cut);
        if (y) { st.truncations_accepted++; exercise(x->vt, y); }
    }
    for (size_t i = 0; i < flips; i++) {
        memcpy(bad, buf, len);
        size_t nflip = 1 + hp_rng_below(&g, 3);
        for (size_t j = 0; j < nflip; j++) bad[hp_rng_below(&g, len)] ^= (uint8_t)(1 + hp_rng_below(&g, 255));
        st.flips++;
        void *y = x->vt->deserialize(mem, x->budget, bad, len);
        if (y) {
            st.flips_accepted++;
            if (valid && !valid(y)) st.invalid++;
            exercise(x->vt, y);
        }
    }
    /* a smaller budget than the capacity needs is refused */
    if (x->vt->deserialize(mem, x->vt->bytes_used(x->s) - 1, buf, len)) st.truncations_accepted++;
    free(buf); free(bad); free(mem);
    return st;
}

/* ---- bench ---- */

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: other load on the machine counts less */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Updates/s (thread CPU time) with one held key, and with every key new (after a Zipf warm-up,
 * and from a fresh summary). */
static inline void streams_bench(const hp_summary_vt *vt)
{
    static const size_t budgets[] = {4096, 16384, 65536};
    stream warm = stream_zipf(1000000, 100000, 1.0, 7, ORDER_RANDOM);
    for (int b = 0; b < 3; b++) {
        summary x = summary_new(vt, budgets[b], 1);
        summary_feed(&x, &warm, 0, warm.n);
        hp_estimate top;
        vt->topk(x.s, &top, 1);
        size_t n = 100000000;
        double t0 = bench_now();
        for (size_t i = 0; i < n; i++) vt->update(x.s, top.key, 1);
        double hot = n / (bench_now() - t0);
        n = 10000000;
        t0 = bench_now();
        for (size_t i = 0; i < n; i++) vt->update(x.s, hp_mix64_xmx(i + 0x5555), 1);
        double worst = n / (bench_now() - t0);
        summary_free(&x);
        x = summary_new(vt, budgets[b], 2); /* fresh: every resampling from tau = 1 on included */
        t0 = bench_now();
        for (size_t i = 0; i < n; i++) vt->update(x.s, hp_mix64_xmx(i + 0x7777), 1);
        double fresh = n / (bench_now() - t0);
        printf("bench %-12s budget %6zu B: hot key %7.1f M updates/s, all-new keys %7.1f M/s "
               "(from a fresh summary %7.1f M/s)\n", vt->name, budgets[b], hot / 1e6, worst / 1e6, fresh / 1e6);
        summary_free(&x);
    }
    stream_free(&warm);
}

static inline int streams_bench_requested(int argc, char **argv)
{
    return argc > 1 && strcmp(argv[1], "--bench") == 0;
}

#endif

/* zipf.h — deterministic test streams and an exact counter, for property tests of summaries.
 *
 * hp_stream_make() fills a caller-visible array of keys (malloc'd; tests only) with one of:
 *   ZIPF      n items drawn from ranks 1..universe with P(rank) ∝ rank^-alpha (inverse CDF);
 *   UNIFORM   n items uniform over the universe;
 *   SORTED    the Zipf multiset, grouped by key in ascending key order (adversarial for decay);
 *   BURSTS    the Zipf multiset, shuffled in runs: each key's occurrences come in runs of up to 64;
 *   ALTERNATE hot and cold keys interleaved: hot_i, cold_j, hot_i, cold_j+1, ... (ping-pong).
 * Ranks map to keys through a bijective mixer, with rank 1 -> 0 and rank 2 -> UINT64_MAX so the
 * extreme keys are always exercised. Same (kind, n, universe, alpha, seed) -> same stream.
 *
 * hp_exact is a tiny open-addressing exact counter (malloc'd) with an explicit "used" flag,
 * so key 0 is an ordinary key. It is the ground truth the tests compare against.
 */
#ifndef HOTPROF_TESTS_ZIPF_H
#define HOTPROF_TESTS_ZIPF_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/base/hash.h"
#include "core/base/rng.h"

enum hp_stream_kind { HP_STREAM_ZIPF, HP_STREAM_UNIFORM, HP_STREAM_SORTED, HP_STREAM_BURSTS, HP_STREAM_ALTERNATE };

static inline uint64_t hp_stream_key_of_rank(uint64_t rank)
{
    if (rank == 1) return 0;
    if (rank == 2) return UINT64_MAX;
    return hp_mix64(rank * 0x9e3779b97f4a7c15ull + 12345);
}

typedef struct hp_exact_map {
    uint64_t *keys, *counts;
    uint8_t *used;
    size_t mask, n, total;
} hp_exact_map;

static inline void hp_exact_init(hp_exact_map *m, size_t expected)
{
    size_t s = 16;
    while (s < 2 * expected) s <<= 1;
    m->keys = (uint64_t *)calloc(s, 8);
    m->counts = (uint64_t *)calloc(s, 8);
    m->used = (uint8_t *)calloc(s, 1);
    m->mask = s - 1;
    m->n = 0;
    m->total = 0;
}
static inline void hp_exact_free(hp_exact_map *m) { free(m->keys); free(m->counts); free(m->used); }
static inline size_t hp_exact_slot(const hp_exact_map *m, uint64_t key)
{
    size_t s = (size_t)hp_mix64(key) & m->mask;
    while (m->used[s] && m->keys[s] != key) s = (s + 1) & m->mask;
    return s;
}
static inline void hp_exact_add(hp_exact_map *m, uint64_t key, uint64_t w)
{
    if (2 * (m->n + 1) > m->mask + 1) { /* grow */
        hp_exact_map g;
        hp_exact_init(&g, m->mask + 1);
        for (size_t i = 0; i <= m->mask; i++)
            if (m->used[i]) {
                size_t s = hp_exact_slot(&g, m->keys[i]);
                g.used[s] = 1; g.keys[s] = m->keys[i]; g.counts[s] = m->counts[i]; g.n++;
            }
        g.total = m->total;
        hp_exact_free(m);
        *m = g;
    }
    size_t s = hp_exact_slot(m, key);
    if (!m->used[s]) { m->used[s] = 1; m->keys[s] = key; m->counts[s] = 0; m->n++; }
    m->counts[s] += w;
    m->total += w;
}
static inline uint64_t hp_exact_get(const hp_exact_map *m, uint64_t key)
{
    size_t s = hp_exact_slot(m, key);
    return m->used[s] ? m->counts[s] : 0;
}
static inline void hp_exact_clear(hp_exact_map *m)
{
    memset(m->used, 0, m->mask + 1);
    m->n = 0;
    m->total = 0;
}
/* Keys with count >= threshold, written to out (cap entries); returns how many. */
static inline size_t hp_exact_at_least(const hp_exact_map *m, uint64_t threshold, uint64_t *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->used[i] && m->counts[i] >= threshold && k < cap) out[k++] = m->keys[i];
    return k;
}
/* The k-th largest count (1-based), 0 if fewer keys. */
static inline int hp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}
static inline uint64_t hp_exact_kth(const hp_exact_map *m, size_t k)
{
    uint64_t *c = (uint64_t *)malloc((m->n + 1) * 8);
    size_t j = 0;
    for (size_t i = 0; i <= m->mask; i++) if (m->used[i]) c[j++] = m->counts[i];
    qsort(c, j, 8, hp_u64_desc);
    uint64_t v = k >= 1 && k <= j ? c[k - 1] : 0;
    free(c);
    return v;
}

/* Inverse-CDF Zipf sampler over ranks 1..universe. */
typedef struct hp_zipf { double *cdf; uint64_t universe; } hp_zipf;
static inline void hp_zipf_init(hp_zipf *z, uint64_t universe, double alpha)
{
    z->universe = universe;
    z->cdf = (double *)malloc(universe * sizeof(double));
    double sum = 0;
    for (uint64_t r = 1; r <= universe; r++) sum += pow((double)r, -alpha);
    double acc = 0;
    for (uint64_t r = 1; r <= universe; r++) { acc += pow((double)r, -alpha) / sum; z->cdf[r - 1] = acc; }
    z->cdf[universe - 1] = 1.0;
}
static inline uint64_t hp_zipf_rank(const hp_zipf *z, hp_rng *rng)
{
    double u = hp_rng_double(rng);
    uint64_t lo = 0, hi = z->universe - 1;
    while (lo < hi) { uint64_t mid = (lo + hi) / 2; if (z->cdf[mid] < u) lo = mid + 1; else hi = mid; }
    return lo + 1;
}
static inline void hp_zipf_free(hp_zipf *z) { free(z->cdf); }

static inline int hp_u64_asc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Rearranges a sorted multiset into runs of up to 64 equal keys, runs in random order. */
static inline void hp_stream_burstify(uint64_t *keys, size_t n, hp_rng *rng)
{
    size_t runs = 0;
    size_t *start = (size_t *)malloc((n + 1) * sizeof(size_t));
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && j - i < 64 && keys[j] == keys[i]) j++;
        start[runs++] = i;
        i = j;
    }
    start[runs] = n;
    size_t *order = (size_t *)malloc(runs * sizeof(size_t));
    for (size_t i = 0; i < runs; i++) order[i] = i;
    for (size_t i = runs; i > 1; i--) { size_t j = hp_rng_below(rng, i); size_t t = order[i - 1]; order[i - 1] = order[j]; order[j] = t; }
    uint64_t *out = (uint64_t *)malloc(n * 8);
    size_t o = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t a = start[order[r]], b = start[order[r] + 1];
        for (size_t i = a; i < b; i++) out[o++] = keys[i];
    }
    memcpy(keys, out, n * 8);
    free(out); free(order); free(start);
}

/* Fills a malloc'd array with n keys; caller frees. */
static inline uint64_t *hp_stream_make(int kind, size_t n, uint64_t universe, double alpha, uint64_t seed)
{
    uint64_t *keys = (uint64_t *)malloc(n * 8);
    hp_rng rng;
    hp_rng_seed(&rng, seed);
    if (kind == HP_STREAM_UNIFORM) {
        for (size_t i = 0; i < n; i++) keys[i] = hp_stream_key_of_rank(1 + hp_rng_below(&rng, universe));
        return keys;
    }
    if (kind == HP_STREAM_ALTERNATE) {
        for (size_t i = 0; i < n; i++)
            keys[i] = i % 2 == 0 ? hp_stream_key_of_rank(1 + (i / 2) % 8) : hp_stream_key_of_rank(9 + (i / 2) % (universe > 9 ? universe - 8 : 1));
        return keys;
    }
    hp_zipf z;
    hp_zipf_init(&z, universe, alpha);
    for (size_t i = 0; i < n; i++) keys[i] = hp_stream_key_of_rank(hp_zipf_rank(&z, &rng));
    hp_zipf_free(&z);
    if (kind == HP_STREAM_SORTED || kind == HP_STREAM_BURSTS) qsort(keys, n, 8, hp_u64_asc);
    if (kind == HP_STREAM_BURSTS) hp_stream_burstify(keys, n, &rng);
    return keys;
}

static inline void hp_exact_fill(hp_exact_map *m, const uint64_t *keys, size_t n)
{
    hp_exact_init(m, 1024);
    for (size_t i = 0; i < n; i++) hp_exact_add(m, keys[i], 1);
}

#endif

/* ---- generic vtable checks shared by the summary tests (return 1 when the property holds) ---- */
#include "core/summary/summary.h"

/* serialize -> deserialize -> serialize gives identical bytes, identical topk and totals. */
static inline int hp_vt_roundtrip_ok(const hp_summary_vt *vt, const void *s, size_t budget)
{
    size_t n = vt->serialized_size(s);
    uint8_t *a = (uint8_t *)malloc(n + 1), *b = (uint8_t *)malloc(n + 1);
    void *mem = malloc(budget);
    int ok = vt->serialize(s, a, n) == n && vt->serialize(s, a, n - 1) == 0;
    void *t = ok ? vt->deserialize(mem, budget, a, n) : NULL;
    ok = ok && t && vt->serialize(t, b, n) == n && memcmp(a, b, n) == 0 && vt->total(t) == vt->total(s) &&
         vt->bytes_used(t) <= budget;
    if (ok) {
        hp_estimate x[64], y[64];
        size_t kx = vt->topk(s, x, 64), ky = vt->topk(t, y, 64);
        ok = kx == ky && memcmp(x, y, kx * sizeof x[0]) == 0;
    }
    free(a); free(b); free(mem);
    return ok;
}

/* Every truncation and `flips` random single-bit flips of the serialized form deserialize to
 * NULL or to a usable summary (topk/query/update/serialize run, bytes_used <= budget).
 * Returns how many corrupt inputs were accepted (informational); crashing is the failure. */
static inline size_t hp_vt_corruption_run(const hp_summary_vt *vt, const void *s, size_t budget, int flips, uint64_t seed)
{
    size_t n = vt->serialized_size(s), accepted = 0;
    uint8_t *a = (uint8_t *)malloc(n), *c = (uint8_t *)malloc(n);
    void *mem = malloc(budget);
    vt->serialize(s, a, n);
    hp_rng rng;
    hp_rng_seed(&rng, seed);
    size_t step = n / 97 + 1;
    for (size_t len = 0; len < n; len += step) if (vt->deserialize(mem, budget, a, len)) accepted++;
    for (int i = 0; i < flips; i++) {
        memcpy(c, a, n);
        size_t bit = hp_rng_below(&rng, n * 8);
        c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        void *t = vt->deserialize(mem, budget, c, n);
        if (!t) continue;
        accepted++;
        hp_estimate e[16];
        vt->topk(t, e, 16);
        vt->query(t, 42, e);
        for (int j = 0; j < 100; j++) vt->update(t, (uint64_t)j * 7, 1);
        vt->topk(t, e, 16);
        if (vt->bytes_used(t) > budget) accepted += 1000000; /* flagged */
    }
    free(a); free(c); free(mem);
    return accepted;
}

/* ---- throughput probe (run by the summary tests when HP_BENCH is set in the environment) ----
 * Updates per second through the vtable at a given budget: "worst" = every key distinct
 * (misses, evictions, purges), "hot" = one key repeated. Prints one line per budget. */
#include <stdio.h>
#include <time.h>

static inline double hp_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double hp_bench_rate(const hp_summary_vt *vt, size_t budget, int hot, size_t n)
{
    void *mem = malloc(budget);
    void *s = vt->init(mem, budget, 1);
    if (!s) { free(mem); return 0; }
    double t0 = hp_bench_now();
    for (size_t i = 0; i < n; i++) vt->update(s, hot ? 42 : hp_mix64(i + 1), 1);
    double dt = hp_bench_now() - t0;
    volatile uint64_t sink = vt->total(s);
    (void)sink;
    free(mem);
    return (double)n / dt;
}

static inline void hp_bench_vt(const hp_summary_vt *vt)
{
    const size_t budgets[] = {4096, 16384, 65536};
    for (int b = 0; b < 3; b++) {
        double worst = hp_bench_rate(vt, budgets[b], 0, 4000000), hot = hp_bench_rate(vt, budgets[b], 1, 4000000);
        printf("  bench %-15s %6zu B  worst %7.1f M upd/s  hot %7.1f M upd/s\n", vt->name, budgets[b], worst / 1e6, hot / 1e6);
    }
}

/* mhsim.h — `hotprof sim multihash`: replays a values or edges trace through every configuration
 * of a grid of multi-hash designs (core/summary/multihash.h, the paper's hash) and scores each
 * against the exact per-interval candidate sets of the same trace (core/metrics/multihash.h).
 *
 * Keys: a tuple <a, b> becomes the 64-bit key lo32(a) << 32 | (lo32(b) ^ hi32(b)), so the
 * structure's hash sees the paper's (pc, value) halves; exact and simulated profiles use the
 * same key, so the comparison is exact for that key space.
 * Intervals: per thread, consecutive runs of `interval` events; only complete intervals are
 * scored (a thread's tail shorter than one interval is dropped, as in the paper). T = ceil(t * L).
 * Scoring: E of an interval needs the true candidates and the true counts of the keys the design
 * reported (core/metrics/multihash.h: tuples below T may be omitted otherwise), so each
 * interval's candidates are kept apart and a reported key's count is found by binary search in
 * the key-sorted items: scoring costs O((candidates + reported) log) per interval, not a sort of
 * every distinct tuple per configuration; the result is the same.
 * Invariants: the exact intervals are computed once and shared read-only by every configuration;
 * each configuration is replayed in one pass over the decoded trace, on its own structure, so
 * configurations may run in parallel (hp_mhsim_run uses up to `jobs` threads) and the results
 * do not depend on the number of threads.
 */
#ifndef HOTPROF_SIM_MHSIM_H
#define HOTPROF_SIM_MHSIM_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"
#include "core/summary/multihash.h"
#include "sim/trace.h"

#define HP_MHSIM_AXIS_MAX 16

/* One axis of the grid: its values, in the order given. */
typedef struct hp_mhsim_axis { uint32_t v[HP_MHSIM_AXIS_MAX]; size_t n; } hp_mhsim_axis;

typedef struct hp_mhsim_grid {
    hp_mhsim_axis tables, counters, bits, conservative, reset, retain, shield; /* bits.n == 0: just wide enough for T */
    hp_mhsim_axis hash; /* 0 the paper's hash, 1 the fast mixer (multihash.h fast_hash); n == 0: paper only */
    hp_mhsim_axis acc;  /* accumulator entries (multihash.h acc_entries; 0 = the paper's ceil(1/t)); n == 0: paper only */
    hp_mhsim_axis variant; /* HP_MH_VARIANT_*: 0 the design as given, 1 rebalanced (same area, half the accumulator,
                            * more counters), 2 half (half the area, a quarter of the accumulator);
                            * hp_multihash_rebalance; n == 0: as given only */
    uint64_t interval;
    double threshold; /* fraction */
    uint64_t seed;
} hp_mhsim_grid;

/* The exact side: per thread, per complete interval, every distinct key with its count. */
typedef struct hp_mhsim_thread {
    uint64_t *keys; size_t nkeys;        /* the thread's key stream */
    size_t nintervals;
    size_t *start;                       /* items of interval k: items[start[k] .. start[k+1]), sorted by key */
    size_t *ncand;                       /* true candidates (count >= T) of interval k */
    hp_metric_item *items;
    size_t *cstart;                      /* candidates of interval k: cands[cstart[k] .. cstart[k+1]), sorted by key */
    hp_metric_item *cands;
} hp_mhsim_thread;

typedef struct hp_mhsim_input {
    size_t nthreads;
    hp_mhsim_thread *threads;
    uint64_t T, interval;
    double threshold;
    size_t max_items; /* largest interval's distinct keys (scratch size) */
} hp_mhsim_input;

/* Figures 4-5 of the paper over every complete interval of every thread: distinct tuples per
 * interval and exact candidates (count >= T) per interval; mean, min, max (all 0 when
 * intervals == 0). */
typedef struct hp_mhsim_istats {
    uint64_t intervals;
    double distinct_mean, cand_mean;
    double change_mean; /* Figure 6 on the exact sets: mean over consecutive intervals of a thread of
                         * |A xor B| / |A or B| (0 when both are empty), as `report --type intervals` */
    uint64_t distinct_min, distinct_max, cand_min, cand_max;
} hp_mhsim_istats;

typedef struct hp_mhsim_result {
    hp_multihash_params p;
    double e, fp, fn, np, nn;  /* mean over scored intervals of E and its parts (fractions) */
    double fp_rate;            /* measured: false positives / non-candidate distinct tuples */
    double fp_bound;           /* Figure 9: (100 n / (t Z))^n with t in percent, capped at 1 */
    uint64_t area, intervals, candidates;
    int variant;               /* HP_MH_VARIANT_* of the grid design p came from (set by hp_mhsim_run) */
} hp_mhsim_result;

uint64_t hp_mhsim_key(uint64_t a, uint64_t b);
/* Builds the exact intervals of a trace. 0, or -1 with a message. */
int hp_mhsim_prepare(const hp_trace *tr, uint64_t interval, double threshold, hp_mhsim_input *in, char *err, size_t errlen);
/* Same from raw key streams (tests). */
int hp_mhsim_prepare_keys(uint64_t *const *keys, const size_t *nkeys, size_t nthreads, uint64_t interval, double threshold,
                          hp_mhsim_input *in, char *err, size_t errlen);
void hp_mhsim_input_free(hp_mhsim_input *in);
/* Distinct tuples and candidates per interval of a prepared input. */
hp_mhsim_istats hp_mhsim_interval_stats(const hp_mhsim_input *in);

/* Number of configurations, and the i-th one (axes vary last-first: variant fastest, then acc, hash, shield, ...,
 * tables slowest). */
size_t hp_mhsim_grid_size(const hp_mhsim_grid *g);
void hp_mhsim_grid_params(const hp_mhsim_grid *g, size_t i, hp_multihash_params *p);
/* Checks every configuration of the grid (tables >= 1, Z divisible by n, T fits the counters,
 * axes non-empty, booleans 0/1). 0, or -1 with one message. */
int hp_mhsim_grid_check(const hp_mhsim_grid *g, char *err, size_t errlen);

/* Replays one configuration. 0, or -1 (out of memory). */
int hp_mhsim_replay(const hp_mhsim_input *in, const hp_multihash_params *p, hp_mhsim_result *r);
/* Replays every configuration of the grid into res[hp_mhsim_grid_size(g)] on up to jobs threads;
 * progress(done, total) is called after each (from any worker; may be NULL). 0, or -1. */
int hp_mhsim_run(const hp_mhsim_input *in, const hp_mhsim_grid *g, hp_mhsim_result *res, unsigned jobs,
                 void (*progress)(size_t done, size_t total));

#endif

/* bench_common.h — what bench_summaries and bench_multihash share: options, key streams (Zipf or
 * a recorded file of little-endian uint64 keys), the exact ground truth of a stream, a clock.
 *
 * truth: the distinct keys of a stream with their exact counts, built from a sorted copy of the
 * keys (run lengths), so it depends on no summary. by_weight is heaviest first (ties: key asc);
 * keys/counts are sorted by key for truth_count() lookups.
 */
#ifndef HOTPROF_BENCH_COMMON_H
#define HOTPROF_BENCH_COMMON_H
#include "core/metrics/metrics.h"
#include <stddef.h>
#include <stdint.h>

#define N_ALPHAS 4
extern const double ALPHAS[N_ALPHAS];

#define BENCH_MAX_KEYS 8

typedef struct bench_opts {
    size_t items;         /* per Zipf stream (default 10^6; --large: 10^7) */
    uint32_t universe;    /* Zipf ranks */
    uint64_t seed;
    size_t hot_reps;      /* updates in the hot-key loop */
    const char *csv_path;
    const char *keys_path; /* optional recorded stream (the first --keys) */
    const char *keys_paths[BENCH_MAX_KEYS]; /* every --keys, in order (bench_summaries runs all) */
    size_t n_keys;
    const char *only;      /* NULL, or a comma-separated list of summary names to run */
} bench_opts;

/* Parses --items N --large --universe N --seed N --hot-reps N --csv PATH --keys PATH --only LIST.
 * default_csv is used when --csv is absent. Returns 0, or -1 after printing usage. */
int parse_opts(bench_opts *o, int argc, char **argv, const char *default_csv);

typedef struct stream {
    char name[48];
    uint64_t *keys;
    size_t n;
} stream;
int stream_zipf(stream *s, double alpha, const bench_opts *o);
int stream_file(stream *s, const char *path);
/* o->items distinct keys ("distinct"): every update is a new key, the worst case of every summary
 * (misses, evictions, purges); no key is hot, so only its rates mean something. */
int stream_distinct(stream *s, const bench_opts *o);
void stream_free(stream *s);

typedef struct truth {
    size_t n;                  /* distinct keys */
    hp_metric_item *by_weight; /* heaviest first */
    uint64_t *keys, *counts;   /* by key */
} truth;
int truth_build(truth *t, const uint64_t *keys, size_t n);
double truth_count(const truth *t, uint64_t key); /* 0 when absent */
void truth_free(truth *t);

double now_seconds(void); /* CPU time of the calling thread, in seconds */

#endif

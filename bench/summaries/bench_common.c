/* bench_common.c — options, streams, ground truth and clock for the summary benchmarks
 * (see bench_common.h). Bench code: it allocates freely, unlike src/core. */
#define _GNU_SOURCE
#include "bench_common.h"
#include "zipf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const double ALPHAS[N_ALPHAS] = {0.8, 1.0, 1.2, 1.5};

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time of this thread: other load counts less */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--items N | --large] [--universe N] [--seed N] [--hot-reps N]\n"
            "          [--csv PATH] [--keys FILE] [--only NAME[,NAME...]]\n"
            "  --keys FILE  a recorded event stream: raw little-endian uint64 keys (may repeat)\n"
            "  --only LIST  only the summaries named (comma-separated registry names)\n",
            argv0);
}

int parse_opts(bench_opts *o, int argc, char **argv, const char *default_csv)
{
    *o = (bench_opts){1000000, 1u << 20, 0x686f7470726f66ull, 20000000, default_csv, NULL, {NULL}, 0, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--large")) { o->items = 10000000; continue; }
        if (!v) { usage(argv[0]); return -1; }
        if (!strcmp(a, "--items")) o->items = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--universe")) o->universe = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--hot-reps")) o->hot_reps = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--csv")) o->csv_path = v;
        else if (!strcmp(a, "--keys")) {
            if (o->n_keys == BENCH_MAX_KEYS) { usage(argv[0]); return -1; }
            if (!o->keys_path) o->keys_path = v;
            o->keys_paths[o->n_keys++] = v;
        }
        else if (!strcmp(a, "--only")) o->only = v;
        else { usage(argv[0]); return -1; }
        i++;
    }
    if (o->items == 0 || o->universe == 0) { usage(argv[0]); return -1; }
    return 0;
}

int stream_zipf(stream *s, double alpha, const bench_opts *o)
{
    snprintf(s->name, sizeof s->name, "zipf%.1f", alpha);
    s->n = o->items;
    s->keys = malloc(s->n * sizeof *s->keys);
    if (!s->keys || zipf_fill(s->keys, s->n, alpha, o->universe, o->seed)) {
        fprintf(stderr, "out of memory for a %zu-item stream\n", s->n);
        free(s->keys);
        return -1;
    }
    return 0;
}

int stream_distinct(stream *s, const bench_opts *o)
{
    snprintf(s->name, sizeof s->name, "distinct");
    s->n = o->items;
    s->keys = malloc(s->n * sizeof *s->keys);
    if (!s->keys) return -1;
    /* zipf_key_of_rank is a bijection; ranks from 2^40 on are not Zipf ranks */
    for (size_t i = 0; i < s->n; i++) s->keys[i] = zipf_key_of_rank(((uint64_t)1 << 40) + i);
    return 0;
}

static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

int stream_file(stream *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return -1; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 8) { fprintf(stderr, "%s: fewer than one 8-byte key\n", path); fclose(f); return -1; }
    s->n = (size_t)len / 8;
    s->keys = malloc(s->n * sizeof *s->keys);
    unsigned char *raw = malloc(s->n * 8);
    int ok = s->keys && raw && fread(raw, 8, s->n, f) == s->n;
    fclose(f);
    if (ok) for (size_t i = 0; i < s->n; i++) s->keys[i] = load_le64(raw + 8 * i);
    free(raw);
    if (!ok) { fprintf(stderr, "%s: cannot read\n", path); free(s->keys); return -1; }
    const char *base = strrchr(path, '/');
    snprintf(s->name, sizeof s->name, "file:%s", base ? base + 1 : path);
    return 0;
}

void stream_free(stream *s)
{
    free(s->keys);
    s->keys = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_heaviest(const void *a, const void *b)
{
    const hp_metric_item *x = a, *y = b;
    if (x->weight != y->weight) return x->weight < y->weight ? 1 : -1;
    return (x->key > y->key) - (x->key < y->key);
}

int truth_build(truth *t, const uint64_t *keys, size_t n)
{
    memset(t, 0, sizeof *t);
    uint64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, keys, n * sizeof *keys);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) distinct += i == 0 || sorted[i] != sorted[i - 1];
    t->keys = malloc((distinct ? distinct : 1) * sizeof *t->keys);
    t->counts = malloc((distinct ? distinct : 1) * sizeof *t->counts);
    t->by_weight = malloc((distinct ? distinct : 1) * sizeof *t->by_weight);
    if (!t->keys || !t->counts || !t->by_weight) { free(sorted); truth_free(t); return -1; }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || sorted[i] != sorted[i - 1]) {
            t->keys[t->n] = sorted[i];
            t->counts[t->n++] = 0;
        }
        t->counts[t->n - 1]++;
    }
    free(sorted);
    for (size_t i = 0; i < t->n; i++) t->by_weight[i] = (hp_metric_item){t->keys[i], (double)t->counts[i]};
    qsort(t->by_weight, t->n, sizeof *t->by_weight, cmp_heaviest);
    return 0;
}

double truth_count(const truth *t, uint64_t key)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->n && t->keys[lo] == key ? (double)t->counts[lo] : 0.0;
}

void truth_free(truth *t)
{
    free(t->keys);
    free(t->counts);
    free(t->by_weight);
    memset(t, 0, sizeof *t);
}

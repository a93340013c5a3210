/* bench_multihash.c — the multi-hash interval profiler (src/core/summary/multihash.h) in the paper's
 * configurations, scored with the paper's weighted error E (metrics.h, Section 5.5.2).
 *
 * Configurations (Section 6): 1, 2, 4, 8, 16 hash tables sharing Z = 2048 counters, without/with
 * conservative update (C0/C1), without/with resetting (R0/R1); retaining and shielding on. Two
 * settings: interval 10 000 events with t = 1% (T = 100) and interval 1 000 000 with t = 0.1%
 * (T = 1000). Streams: Zipf alpha in {0.8, 1.0, 1.2, 1.5} (and the recorded stream if given),
 * at least 4 intervals long. Per interval, the perfect profile is the exact count of every key in
 * that interval (sorted copy, independent of the profiler); E of the run is the simple mean over
 * its intervals. Writes bench/results/multihash.csv and prints the table and the 4-table C1 R0
 * target check.
 */
#define _GNU_SOURCE
#include "bench_common.h"
#include "core/metrics/metrics.h"
#include "core/summary/multihash.h"
#include "zipf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct setting {
    const char *name;
    uint64_t interval;
    double t;
} setting;

static const setting SETTINGS[] = {
    {"L10000_t1%", 10000, 0.01},
    {"L1000000_t0.1%", 1000000, 0.001},
};
#define N_SETTINGS (sizeof SETTINGS / sizeof SETTINGS[0])
static const uint32_t TABLES[] = {1, 2, 4, 8, 16};
#define N_TABLES (sizeof TABLES / sizeof TABLES[0])
#define Z_COUNTERS 2048u
#define COUNTER_BITS 16u

/* ---- the perfect profile of every interval -------------------------------------------------- */

typedef struct interval_truth {
    size_t n_intervals;
    truth *per;                 /* exact counts per interval */
    hp_metric_item **candidates; /* per interval: keys with f_p >= T */
    size_t *n_candidates;
} interval_truth;

static int interval_truth_build(interval_truth *it, const stream *st, uint64_t interval,
                                double threshold)
{
    it->n_intervals = st->n / interval;
    it->per = calloc(it->n_intervals, sizeof *it->per);
    it->candidates = calloc(it->n_intervals, sizeof *it->candidates);
    it->n_candidates = calloc(it->n_intervals, sizeof *it->n_candidates);
    if (!it->per || !it->candidates || !it->n_candidates) return -1;
    for (size_t i = 0; i < it->n_intervals; i++) {
        truth *t = &it->per[i];
        if (truth_build(t, st->keys + i * interval, interval)) return -1;
        size_t n = 0;
        while (n < t->n && t->by_weight[n].weight >= threshold) n++;
        it->candidates[i] = t->by_weight; /* heaviest first: the candidates are a prefix */
        it->n_candidates[i] = n;
    }
    return 0;
}

static void interval_truth_free(interval_truth *it)
{
    for (size_t i = 0; i < it->n_intervals; i++) truth_free(&it->per[i]);
    free(it->per);
    free(it->candidates);
    free(it->n_candidates);
}

/* ---- one configuration over one stream -------------------------------------------------------- */

typedef struct mh_result {
    char config[24];
    uint32_t tables;
    int conservative, reset;
    size_t intervals;
    double avg_error, fp, fn, np, nn;
    uint64_t area_bytes;
    double mups;
} mh_result;

typedef struct mh_work {
    hp_metric_item *hw, *perfect, *scratch;
    size_t cap;
} mh_work;

/* E of the interval just reported: perfect = candidates + the true counts of the reported keys
 * that are not candidates (their f_p is needed for false positives). */
static int interval_error(const hp_multihash *mh, const interval_truth *it, size_t idx,
                          double threshold, mh_work *w, hp_multihash_error *e)
{
    const hp_multihash_candidate *rep;
    size_t n_hw = hp_multihash_report(mh, &rep);
    size_t n_cand = it->n_candidates[idx], n_perfect = n_cand;
    if (n_hw + n_cand > w->cap) return -1;
    memcpy(w->perfect, it->candidates[idx], n_cand * sizeof *w->perfect);
    for (size_t i = 0; i < n_hw; i++) {
        w->hw[i] = (hp_metric_item){rep[i].key, (double)rep[i].count};
        double f_p = truth_count(&it->per[idx], rep[i].key);
        if (f_p < threshold) w->perfect[n_perfect++] = (hp_metric_item){rep[i].key, f_p};
    }
    return hp_multihash_interval_error(w->perfect, n_perfect, w->hw, n_hw, threshold, w->scratch,
                                       e);
}

static hp_multihash_params params_of(const setting *s, uint32_t tables, int cons, int reset,
                                     uint64_t seed)
{
    hp_multihash_params p;
    memset(&p, 0, sizeof p);
    p.n_tables = tables;
    p.total_counters = Z_COUNTERS;
    p.counter_bits = COUNTER_BITS;
    p.threshold = s->t;
    p.interval_length = s->interval;
    p.shield = 1;
    p.retain = 1;
    p.reset = reset;
    p.conservative = cons;
    p.seed = seed;
    return p;
}

static void accumulate(mh_result *r, const hp_multihash_error *e)
{
    r->avg_error += e->total;
    r->fp += e->fp;
    r->fn += e->fn;
    r->np += e->np;
    r->nn += e->nn;
    r->intervals++;
}

static void average(mh_result *r)
{
    double n = r->intervals ? (double)r->intervals : 1.0;
    r->avg_error /= n;
    r->fp /= n;
    r->fn /= n;
    r->np /= n;
    r->nn /= n;
}

static int run_config(const setting *s, const stream *st, const interval_truth *it,
                      const hp_multihash_params *p, mh_work *w, mh_result *r)
{
    size_t bytes = hp_multihash_bytes(p);
    void *mem = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
    hp_multihash *mh = mem ? hp_multihash_init(mem, bytes, p) : NULL;
    if (!mh) {
        free(mem);
        return -1;
    }
    double threshold = (double)hp_multihash_threshold_count(p);
    size_t n_events = it->n_intervals * s->interval;
    double busy = 0.0, t0 = now_seconds();
    for (size_t i = 0; i < n_events; i++) {
        if (!hp_multihash_update(mh, st->keys[i])) continue;
        double t1 = now_seconds();
        busy += t1 - t0;
        hp_multihash_error e;
        size_t idx = (size_t)hp_multihash_last_stats(mh).interval;
        if (idx < it->n_intervals && interval_error(mh, it, idx, threshold, w, &e) == 0)
            accumulate(r, &e);
        t0 = now_seconds();
    }
    busy += now_seconds() - t0;
    r->mups = (double)n_events / busy / 1e6;
    r->area_bytes = hp_multihash_area_bytes(p);
    average(r);
    free(mem);
    return 0;
}

/* ---- output ---------------------------------------------------------------------------------- */

static const char CSV_HEADER[] = "setting,stream,config,tables,conservative,reset,intervals,"
                                 "avg_error,fp,fn,np,nn,area_bytes,mups\n";

static void emit(FILE *csv, const setting *s, const stream *st, const mh_result *r)
{
    printf("%-15s %-9s %-10s %4zu %9.5f %9.5f %9.5f %9.5f %9.5f %7llu %7.1f\n", s->name,
           st->name, r->config, r->intervals, r->avg_error, r->fp, r->fn, r->np, r->nn,
           (unsigned long long)r->area_bytes, r->mups);
    fprintf(csv, "%s,%s,%s,%u,%d,%d,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%llu,%.3f\n", s->name, st->name,
            r->config, r->tables, r->conservative, r->reset, r->intervals, r->avg_error, r->fp,
            r->fn, r->np, r->nn, (unsigned long long)r->area_bytes, r->mups);
}

typedef struct target_row {
    mh_result r;
    char stream[48];
    const setting *s;
} target_row;

static void print_target(const target_row *t)
{
    printf("  target 4T C1 R0 E < 1%%: %-15s %-9s E = %.4f%%  %s\n", t->s->name, t->stream,
           100 * t->r.avg_error, t->r.avg_error < 0.01 ? "MET" : "MISSED");
}

static void bench_setting(const setting *s, const stream *st, const bench_opts *o, FILE *csv,
                          target_row *targets, size_t *n_targets)
{
    interval_truth it;
    memset(&it, 0, sizeof it);
    hp_multihash_params p0 = params_of(s, 1, 0, 0, o->seed);
    double threshold = (double)hp_multihash_threshold_count(&p0);
    if (interval_truth_build(&it, st, s->interval, threshold)) {
        fprintf(stderr, "out of memory for interval truth\n");
        exit(1);
    }
    uint32_t acc = hp_multihash_acc_entries(&p0);
    mh_work w;
    w.cap = 2 * ((size_t)acc + (size_t)(1.0 / s->t) + 16);
    w.hw = malloc(w.cap * sizeof *w.hw);
    w.perfect = malloc(w.cap * sizeof *w.perfect);
    w.scratch = malloc(2 * w.cap * sizeof *w.scratch);
    if (!w.hw || !w.perfect || !w.scratch) exit(1);
    for (size_t t = 0; t < N_TABLES; t++)
        for (int cons = 0; cons < 2; cons++)
            for (int reset = 0; reset < 2; reset++) {
                mh_result r;
                memset(&r, 0, sizeof r);
                r.tables = TABLES[t];
                r.conservative = cons;
                r.reset = reset;
                snprintf(r.config, sizeof r.config, "%uT-C%d-R%d", TABLES[t], cons, reset);
                hp_multihash_params p = params_of(s, TABLES[t], cons, reset, o->seed);
                if (run_config(s, st, &it, &p, &w, &r)) {
                    printf("%-15s %-9s %-10s  (init refused the parameters)\n", s->name,
                           st->name, r.config);
                    continue;
                }
                emit(csv, s, st, &r);
                if (TABLES[t] == 4 && cons && !reset) {
                    target_row *tr = &targets[(*n_targets)++];
                    tr->r = r;
                    tr->s = s;
                    snprintf(tr->stream, sizeof tr->stream, "%s", st->name);
                }
            }
    free(w.hw);
    free(w.perfect);
    free(w.scratch);
    interval_truth_free(&it);
}

/* A stream long enough for at least 4 intervals of this setting. */
static int stream_for(stream *st, double alpha, const setting *s, const bench_opts *o)
{
    bench_opts longer = *o;
    if (longer.items < 4 * s->interval) longer.items = 4 * s->interval;
    return stream_zipf(st, alpha, &longer);
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (parse_opts(&o, argc, argv, "bench/results/multihash.csv")) return 2;
    FILE *csv = fopen(o.csv_path, "w");
    if (!csv) {
        perror(o.csv_path);
        return 1;
    }
    fputs(CSV_HEADER, csv);
    printf("multi-hash: Z = %u counters of %u bits, shielding + retaining on, seed 0x%llx\n",
           Z_COUNTERS, COUNTER_BITS, (unsigned long long)o.seed);
    printf("%-15s %-9s %-10s %4s %9s %9s %9s %9s %9s %7s %7s\n", "setting", "stream", "config",
           "ivls", "E", "FP", "FN", "NP", "NN", "area B", "Mev/s");
    target_row targets[N_SETTINGS * (N_ALPHAS + 1)];
    size_t n_targets = 0;
    for (size_t si = 0; si < N_SETTINGS; si++) {
        for (size_t a = 0; a < N_ALPHAS; a++) {
            stream st;
            if (stream_for(&st, ALPHAS[a], &SETTINGS[si], &o)) return 1;
            bench_setting(&SETTINGS[si], &st, &o, csv, targets, &n_targets);
            stream_free(&st);
            fflush(stdout);
        }
        if (o.keys_path) {
            stream st;
            if (stream_file(&st, o.keys_path)) return 1;
            bench_setting(&SETTINGS[si], &st, &o, csv, targets, &n_targets);
            stream_free(&st);
        }
    }
    fclose(csv);
    printf("\nTargets (preliminary):\n");
    for (size_t k = 0; k < n_targets; k++) print_target(&targets[k]);
    return 0;
}

/* bench_summaries.c — speed and accuracy of every bounded summary (summary.h) against the exact
 * answer, on Zipf streams and optionally on a recorded stream of uint64 keys; plus the multi-hash
 * interval profiler's weighted error E in the paper's configurations (bench_multihash.c).
 *
 * Streams: Zipf alpha 0.8 / 1.0 / 1.2 / 1.5, then "distinct" (every key new: the worst case of
 * every summary, rates only), then each recorded stream given with --keys (bench/streams/).
 * For each stream x summary x budget (4, 16, 64 KB) it measures, on one core:
 *   stream_mups  updates/s over the whole stream (weight 1 each, through the vtable)
 *   hot_mups     updates/s of the stream's hottest key once it is held (best of 3 rounds)
 *   bytes_used, top-10 / top-100 recall and Kendall tau (hp_topk_compare), precision / recall of
 *   the items with >= 0.1% of the events and the mean relative count error of the items the
 *   summary reports above that line.
 * Reporting rule (README.md): a summary reports an item as hot when its *lower bound* is >= 0.1%
 *   of the stream, if the summary has a lower bound (guaranteed or with a stated confidence:
 *   every summary here but Count-Min); Count-Min has none (lower = 0) and reports by its point
 *   estimate. The hh_* columns follow that rule; the hh_est_* columns apply the point-estimate rule
 *   to every summary (hp_heavy_compare), so both are visible. Relative errors are always of the
 *   point estimate.
 * Ground truth: a sorted copy of the stream (run lengths), so it is independent of every summary.
 * Summaries come from the registry (hp_summaries[]). Prints a table and writes CSV
 * (bench/results/summaries.csv) and checks the targets at the end.
 * Invariant: accuracy is read before the hot-key loop, which would perturb the hot key's count.
 */
#define _GNU_SOURCE
#include "bench_common.h"
#include "core/metrics/metrics.h"
#include "core/summary/summary.h"
#include "zipf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct named_vt { const char *name; const hp_summary_vt *vt; } named_vt;

/* 1 if `name` is one of the comma-separated names in `list` (NULL: every name). */
static int name_listed(const char *list, const char *name)
{
    if (!list) return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, name, n)) return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* Every summary of the registry (summary_registry.c), or those named by --only. */
static size_t list_summaries(named_vt *out, size_t cap, const char *only)
{
    size_t n = 0;
    for (size_t i = 0; hp_summaries[i] && n < cap; i++)
        if (name_listed(only, hp_summaries[i]->name))
            out[n++] = (named_vt){hp_summaries[i]->name, hp_summaries[i]};
    return n;
}

/* ---- ground truth and the profile handed to the metrics -------------------------------------- */

#define REPORT_K 1024 /* estimates asked of a summary: >= every item with >= 0.1% of events */
#define TRUTH_K 4096  /* exact heaviest items kept in the compared profile */

/* The exact profile truncated to TRUTH_K heaviest, plus the exact counts of the keys in est. */
static size_t compare_profile(const truth *t, const hp_metric_item *est, size_t n_est,
                              hp_metric_item *out)
{
    size_t n = t->n < TRUTH_K ? t->n : TRUTH_K;
    memcpy(out, t->by_weight, n * sizeof *out);
    for (size_t i = 0; i < n_est; i++) out[n++] = (hp_metric_item){est[i].key,
                                                                    truth_count(t, est[i].key)};
    hp_metric_sort_by_key(out, n);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || out[u - 1].key != out[i].key) out[u++] = out[i];
    return u;
}

/* ---- one measurement --------------------------------------------------------------------------- */

typedef struct row {
    char summary[32], stream[48];
    size_t budget, bytes_used;
    int ok; /* 0: init refused the budget */
    double stream_mups, hot_mups;
    double top10_recall, top100_recall, tau100;
    const char *hh_rule; /* "lower" or "estimate": how the hh_* columns decide "reported" */
    double hh_precision, hh_recall, hh_mre;
    size_t hh_true, hh_reported;
    double hh_est_precision, hh_est_recall, hh_est_mre; /* point-estimate rule, every summary */
    size_t hh_est_reported;
} row;

/* Summaries whose lower bound is always 0 (no lower bound): they report by point estimate. */
static int has_lower_bound(const char *name) { return strcmp(name, "countmin") != 0; }

static void *fresh_summary(const hp_summary_vt *vt, void *mem, size_t budget, uint64_t seed)
{
    memset(mem, 0, budget);
    return vt->init(mem, budget, seed);
}

static double time_stream(const hp_summary_vt *vt, void *s, const stream *st)
{
    void (*update)(void *, uint64_t, uint64_t) = vt->update;
    double t0 = now_seconds();
    for (size_t i = 0; i < st->n; i++) update(s, st->keys[i], 1);
    return (double)st->n / (now_seconds() - t0) / 1e6;
}

/* Best of three rounds of reps/3 updates of one held key (the machine may be shared). */
static double time_hot(const hp_summary_vt *vt, void *s, uint64_t key, size_t reps)
{
    void (*update)(void *, uint64_t, uint64_t) = vt->update;
    size_t per_round = reps / 3 ? reps / 3 : 1;
    double best = 0.0;
    for (int round = 0; round < 3; round++) {
        double t0 = now_seconds();
        for (size_t i = 0; i < per_round; i++) update(s, key, 1);
        double rate = (double)per_round / (now_seconds() - t0) / 1e6;
        if (rate > best) best = rate;
    }
    return best;
}

static size_t estimates_as_items(const hp_summary_vt *vt, const void *s, hp_estimate *buf,
                                 hp_metric_item *out)
{
    size_t n = vt->topk(s, buf, REPORT_K);
    for (size_t i = 0; i < n; i++) out[i] = (hp_metric_item){buf[i].key, (double)buf[i].count};
    return n;
}

typedef struct workspace {
    hp_estimate est_buf[REPORT_K];
    hp_metric_item est[REPORT_K];
    hp_metric_item profile[TRUTH_K + REPORT_K];
    hp_metric_item scratch[2 * (TRUTH_K + REPORT_K) + 2 * REPORT_K];
} workspace;

/* Precision / recall / mean relative error of the items whose lower bound is >= phi * total
 * (each scored with its point estimate), against the exact counts of the whole stream. */
static void heavy_by_lower(const truth *t, const hp_estimate *est, size_t n_est, double phi,
                           double stream_total, row *r)
{
    double cut = phi * stream_total, err = 0.0;
    size_t n_true = 0, n_rep = 0, n_ok = 0;
    while (n_true < t->n && t->by_weight[n_true].weight >= cut) n_true++;
    for (size_t i = 0; i < n_est; i++) {
        if ((double)est[i].lower < cut) continue;
        double exact = truth_count(t, est[i].key);
        n_rep++;
        n_ok += exact >= cut;
        err += fabs((double)est[i].count - exact) / fmax(exact, 1.0);
    }
    r->hh_true = n_true;
    r->hh_reported = n_rep;
    r->hh_precision = n_rep ? (double)n_ok / (double)n_rep : 1.0;
    r->hh_recall = n_true ? (double)n_ok / (double)n_true : 1.0;
    r->hh_mre = n_rep ? err / (double)n_rep : 0.0;
}

static void measure_accuracy(const hp_summary_vt *vt, const void *s, const truth *t,
                             double stream_total, workspace *w, row *r)
{
    size_t n_est = estimates_as_items(vt, s, w->est_buf, w->est);
    size_t n_prof = compare_profile(t, w->est, n_est, w->profile);
    hp_topk_agreement top;
    hp_topk_compare(w->profile, n_prof, w->est, n_est, 10, w->scratch, &top);
    r->top10_recall = top.recall;
    hp_topk_compare(w->profile, n_prof, w->est, n_est, 100, w->scratch, &top);
    r->top100_recall = top.recall;
    r->tau100 = top.kendall_tau;
    hp_heavy_agreement h;
    hp_heavy_compare(w->profile, n_prof, w->est, n_est, 0.001, stream_total, w->scratch, &h);
    r->hh_est_precision = h.precision;
    r->hh_est_recall = h.recall;
    r->hh_est_mre = h.mean_rel_error;
    r->hh_est_reported = h.n_reported;
    if (has_lower_bound(vt->name)) {
        r->hh_rule = "lower";
        heavy_by_lower(t, w->est_buf, n_est, 0.001, stream_total, r);
    } else {
        r->hh_rule = "estimate";
        r->hh_precision = h.precision;
        r->hh_recall = h.recall;
        r->hh_mre = h.mean_rel_error;
        r->hh_true = h.n_true;
        r->hh_reported = h.n_reported;
    }
}

static void run_one(const named_vt *nv, size_t budget, const stream *st, const truth *t,
                    const bench_opts *o, workspace *w, row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->summary, sizeof r->summary, "%s", nv->name);
    snprintf(r->stream, sizeof r->stream, "%s", st->name);
    r->budget = budget;
    void *mem = aligned_alloc(64, budget);
    void *s = mem ? fresh_summary(nv->vt, mem, budget, o->seed) : NULL;
    if (!s) {
        free(mem);
        return;
    }
    r->ok = 1;
    r->stream_mups = time_stream(nv->vt, s, st);
    r->bytes_used = nv->vt->bytes_used(s);
    measure_accuracy(nv->vt, s, t, (double)st->n, w, r);
    r->hot_mups = time_hot(nv->vt, s, t->by_weight[0].key, o->hot_reps);
    free(mem);
}

/* ---- output ------------------------------------------------------------------------------------ */

static void print_header(void)
{
    printf("%-15s %-9s %6s %6s %7s %7s %6s %6s %6s %-5s %6s %6s %8s %6s %6s\n", "summary", "stream",
           "budget", "bytes", "Mupd/s", "hot M/s", "top10", "top100", "tau", "rule", "hh P", "hh R",
           "hh MRE", "estP", "estR");
}

static void print_row(const row *r)
{
    if (!r->ok) {
        printf("%-15s %-22s %6zu  (budget too small for this summary)\n", r->summary, r->stream,
               r->budget);
        return;
    }
    printf("%-15s %-9s %6zu %6zu %7.1f %7.1f %6.3f %6.3f %6.3f %-5.5s %6.3f %6.3f %8.4f %6.3f %6.3f\n",
           r->summary, r->stream, r->budget, r->bytes_used, r->stream_mups, r->hot_mups,
           r->top10_recall, r->top100_recall, r->tau100, r->hh_rule, r->hh_precision, r->hh_recall,
           r->hh_mre, r->hh_est_precision, r->hh_est_recall);
}

static void csv_row(FILE *f, const row *r)
{
    fprintf(f, "%s,%s,%zu,%d,%zu,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%zu,%zu,%s,%.4f,%.4f,%.6f,%zu\n",
            r->summary, r->stream, r->budget, r->ok, r->bytes_used, r->stream_mups, r->hot_mups,
            r->top10_recall, r->top100_recall, r->tau100, r->hh_precision, r->hh_recall, r->hh_mre,
            r->hh_true, r->hh_reported, r->ok ? r->hh_rule : "", r->hh_est_precision,
            r->hh_est_recall, r->hh_est_mre, r->hh_est_reported);
}

static const char CSV_HEADER[] =
    "summary,stream,budget,ok,bytes_used,stream_mups,hot_mups,top10_recall,top100_recall,"
    "kendall_tau_top100,hh_precision,hh_recall,hh_mean_rel_error,hh_true,hh_reported,hh_rule,"
    "hh_est_precision,hh_est_recall,hh_est_mean_rel_error,hh_est_reported\n";

/* ---- targets --------------------------------------------------------------------------------- */

/* Slowest hot-key rate of one summary over all streams and budgets (-1 if it never ran). */
static double slowest_hot(const row *rows, size_t n, const char *name)
{
    double slowest = -1.0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].ok && !strcmp(rows[i].summary, name) &&
            (slowest < 0 || rows[i].hot_mups < slowest))
            slowest = rows[i].hot_mups;
    return slowest;
}

static void report_speed_targets(const row *rows, size_t n)
{
    static const char *const hot_names[] = {"exact", "counting", "spacesaving"};
    for (size_t h = 0; h < 3; h++) {
        double v = slowest_hot(rows, n, hot_names[h]);
        if (v >= 0)
            printf("  hot key >= 100 M/s  %-12s slowest %7.1f M/s  %s\n", hot_names[h], v,
                   v >= 100 ? "MET" : "MISSED");
    }
    const row *worst = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].ok) continue;
        if (!worst || fmin(rows[i].hot_mups, rows[i].stream_mups) <
                          fmin(worst->hot_mups, worst->stream_mups))
            worst = &rows[i];
    }
    if (!worst) return;
    double w = fmin(worst->hot_mups, worst->stream_mups);
    printf("  worst case >= 30 M/s: %.1f M/s (%s, %s, %zu B)  %s\n", w, worst->summary,
           worst->stream, worst->budget, w >= 30 ? "MET" : "MISSED");
    for (size_t i = 0; i < n; i++)
        if (rows[i].ok && !strcmp(rows[i].stream, worst->stream) && rows[i].budget == 16384)
            printf("    %-15s 16KB %s: stream %.1f M/s, hot %.1f M/s\n", rows[i].summary,
                   rows[i].stream, rows[i].stream_mups, rows[i].hot_mups);
}

static void report_accuracy_targets(const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->ok || r->budget != 16384 || strncmp(r->stream, "zipf", 4)) continue;
        if (atof(r->stream + 4) < 1.0) continue;
        int met = r->hh_precision >= 0.99 && r->hh_recall >= 0.99 && r->hh_mre < 0.01;
        printf("  16KB %-8s %-15s (by %-8s) P %.3f R %.3f MRE %9.4f  %s\n", r->stream, r->summary,
               r->hh_rule, r->hh_precision, r->hh_recall, r->hh_mre, met ? "MET" : "MISSED");
    }
}

static void report_targets(const row *rows, size_t n)
{
    printf("\nTargets (timings are preliminary when the machine is busy):\n");
    report_speed_targets(rows, n);
    printf("  items >= 0.1%%, 16 KB, Zipf alpha >= 1: precision & recall >= 0.99, MRE < 1%%\n");
    report_accuracy_targets(rows, n);
}

/* ---- main -------------------------------------------------------------------------------------- */

static int bench_stream(const stream *st, const named_vt *vts, size_t n_vts, const bench_opts *o,
                        FILE *csv, row *rows, size_t *n_rows, workspace *w)
{
    truth t;
    if (truth_build(&t, st->keys, st->n)) return -1;
    static const size_t budgets[] = {4096, 16384, 65536};
    for (size_t v = 0; v < n_vts; v++) {
        for (size_t b = 0; b < 3; b++) {
            row *r = &rows[(*n_rows)++];
            run_one(&vts[v], budgets[b], st, &t, o, w, r);
            print_row(r);
            csv_row(csv, r);
            fflush(stdout);
        }
    }
    truth_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (parse_opts(&o, argc, argv, "bench/results/summaries.csv")) return 2;
    named_vt vts[32];
    size_t n_vts = list_summaries(vts, 32, o.only);
    printf("seed 0x%llx, %zu items per Zipf stream, universe %u ranks\n",
           (unsigned long long)o.seed, o.items, o.universe);
    FILE *csv = fopen(o.csv_path, "w");
    if (!csv) {
        perror(o.csv_path);
        return 1;
    }
    fputs(CSV_HEADER, csv);
    size_t max_rows = (N_ALPHAS + 2 + o.n_keys) * n_vts * 3;
    row *rows = calloc(max_rows ? max_rows : 1, sizeof *rows);
    workspace *w = malloc(sizeof *w);
    if (!rows || !w) return 1;
    size_t n_rows = 0;
    print_header();
    for (size_t a = 0; a < N_ALPHAS; a++) {
        stream st;
        if (stream_zipf(&st, ALPHAS[a], &o)) return 1;
        bench_stream(&st, vts, n_vts, &o, csv, rows, &n_rows, w);
        stream_free(&st);
    }
    {
        stream st;
        if (stream_distinct(&st, &o)) return 1;
        bench_stream(&st, vts, n_vts, &o, csv, rows, &n_rows, w);
        stream_free(&st);
    }
    for (size_t k = 0; k < o.n_keys; k++) {
        stream st;
        if (stream_file(&st, o.keys_paths[k])) return 1;
        bench_stream(&st, vts, n_vts, &o, csv, rows, &n_rows, w);
        stream_free(&st);
    }
    if (o.n_keys == 0) {
        printf("note: no recorded event stream given (--keys FILE of little-endian uint64 keys); "
               "Zipf streams only\n");
    }
    fclose(csv);
    report_targets(rows, n_rows);
    free(rows);
    free(w);
    return 0;
}

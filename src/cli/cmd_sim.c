/* cmd_sim.c — `hotprof sim multihash TRACE` and `hotprof sim hps TRACE`: the hardware
 * design-space tools on a trace recorded by `hotprof run --record-trace` (src/sim/, docs/trace.md).
 * multihash: every combination of the comma-list options (grid axes) replayed through the paper's
 * multi-hash structure against the exact interval profile; a table on stdout, --csv, --svg.
 * hps: every (period, burst) replayed through the HPS controller; overlap of methods and pairs.
 * Refusals (one message on stderr): an unreadable, truncated or corrupt trace or the wrong kind
 * (exit 1); a bad option value (exit 2). --csv/--svg files appear whole or not at all (outfile.h).
 */
#include "cli/commands.h"
#include "cli/outfile.h"
#include "sim/hpssim.h"
#include "sim/mhplot.h"
#include "sim/mhsim.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const hp_command_desc sim_desc = {
    "sim", "multihash|hps TRACE [options]",
    "Replay a trace recorded by 'hotprof run --record-trace' through hardware profiler designs.\n"
    "'sim multihash' (a values or edges trace): every combination of the list options (comma\n"
    "lists are grid axes) through the multi-hash interval profiler, scored per thread against the\n"
    "exact per-interval candidates: mean error E with its FP/FN/NP/NN split, area in bytes, the\n"
    "measured false-positive rate beside the bound (100n/(tZ))^n. 'sim hps' (a calls trace):\n"
    "every period x burst through the HPS bursty controller; overlap of methods and call pairs.",
    "Counts take a K suffix (2K = 2048). The threshold is a percentage (1% or 1). Bits default to\n"
    "the narrowest counter that holds T = ceil(threshold x interval). Only complete intervals are\n"
    "scored. See docs/trace.md and the manual (hotprof-sim).\n"};

typedef struct sim_args {
    const char *tables, *counters, *bits, *conservative, *reset, *retain, *shield, *interval, *threshold;
    const char *seed, *csv, *svg, *period, *burst, *jitter, *hash, *acc, *variant;
} sim_args;

static void init_options(hp_option *opts, sim_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 0, "tables", &a->tables, "N,..", "multihash: hash tables n (default 1,2,4,8,16)"},
        {HP_OPT_STRING, 0, "counters", &a->counters, "Z,..", "multihash: total counters Z, divisible by n (default 2K)"},
        {HP_OPT_STRING, 0, "bits", &a->bits, "B,..", "multihash: counter width (default: just enough for T)"},
        {HP_OPT_STRING, 0, "conservative", &a->conservative, "0,1", "multihash: conservative update C0/C1 (default 1)"},
        {HP_OPT_STRING, 0, "reset", &a->reset, "0,1", "multihash: reset counters at promotion R0/R1 (default 0)"},
        {HP_OPT_STRING, 0, "retain", &a->retain, "0,1", "multihash: retain candidates across intervals (default 1)"},
        {HP_OPT_STRING, 0, "shield", &a->shield, "0,1", "multihash: shielding (default 1)"},
        {HP_OPT_STRING, 0, "interval", &a->interval, "L", "multihash: events per interval (default 10000)"},
        {HP_OPT_STRING, 0, "threshold", &a->threshold, "T%", "multihash: candidate threshold in percent (default 1%)"},
        {HP_OPT_STRING, 0, "hash", &a->hash, "paper,fast", "multihash: the paper's hash (8 byte-table lookups per table; default) and/or the fast mixer the runtime can use (hash=fast)"},
        {HP_OPT_STRING, 0, "acc", &a->acc, "A,..", "multihash: accumulator entries (default 0 = the paper's ceil(1/threshold); fewer: the right-sized-accumulator variant)"},
        {HP_OPT_STRING, 0, "variant", &a->variant, "paper,rebalanced,half", "multihash: each design as given (default) and/or rebalanced (same area: accumulator of ceil(1/threshold)/2 entries, the saved bits as more counters) and/or half (half the area: ceil(1/threshold)/4 entries, counters fill the rest)"},
        {HP_OPT_STRING, 0, "seed", &a->seed, "S", "hash tables / jitter seed (default 1)"},
        {HP_OPT_STRING, 0, "csv", &a->csv, "FILE", "also write the results as CSV"},
        {HP_OPT_STRING, 0, "svg", &a->svg, "FILE", "multihash: error vs tables chart (Figures 10-12)"},
        {HP_OPT_STRING, 0, "period", &a->period, "S,..", "hps: sampling periods (sparsity; required)"},
        {HP_OPT_STRING, 0, "burst", &a->burst, "B,..", "hps: burst lengths (required)"},
        {HP_OPT_STRING, 0, "jitter", &a->jitter, "J", "hps: jitter in percent of the period (default 0)"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_sim_usage(FILE *out)
{
    sim_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &sim_desc, opts);
}

/* ---------------------------------------------------------------- option values */

/* "2K" -> 2048; 0, or -1. */
static int parse_count(const char *s, uint64_t *v)
{
    char buf[32];
    size_t n = strlen(s);
    uint64_t mult = 1;
    if (n && (s[n - 1] == 'K' || s[n - 1] == 'k')) mult = 1024, n--;
    else if (n && (s[n - 1] == 'M' || s[n - 1] == 'm')) mult = 1024 * 1024, n--;
    if (!n || n >= sizeof buf) return -1;
    memcpy(buf, s, n), buf[n] = 0;
    if (hp_parse_u64(buf, v) || *v > UINT64_MAX / mult) return -1;
    *v *= mult;
    return 0;
}

static int parse_axis(const char *name, const char *text, const char *dflt, hp_mhsim_axis *ax)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text ? text : dflt);
    ax->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (parse_count(tok, &v) || v > UINT32_MAX) return hp_usage_error(&sim_desc, "--%s: '%s' is not a number", name, tok);
        if (ax->n == HP_MHSIM_AXIS_MAX) return hp_usage_error(&sim_desc, "--%s: at most %d values", name, HP_MHSIM_AXIS_MAX);
        ax->v[ax->n++] = (uint32_t)v;
    }
    if (!ax->n) return hp_usage_error(&sim_desc, "--%s needs a value", name);
    return 0;
}

static int parse_percent(const char *text, double *frac)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || (*end && strcmp(end, "%") != 0) || !(v > 0) || v > 100) return -1;
    *frac = v / 100;
    return 0;
}

static int parse_u64_opt(const char *name, const char *text, uint64_t dflt, uint64_t *v)
{
    *v = dflt;
    if (text && parse_count(text, v)) return hp_usage_error(&sim_desc, "--%s: '%s' is not a number", name, text);
    return 0;
}

/* An option of the other subcommand was given. */
static int foreign(const char *sub, const char *const *given, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (given[i]) return hp_usage_error(&sim_desc, "--%s is not an option of 'sim %s'", names[i], sub);
    return 0;
}

static int read_trace(const char *path, hp_trace *tr)
{
    char err[600];
    if (hp_trace_read_file(path, tr, err, sizeof err)) {
        fprintf(stderr, "hotprof: %s\n", err);
        return 1;
    }
    if (tr->flags & (HP_TRACE_CUT | HP_TRACE_LOST))
        fprintf(stderr, "hotprof: note: %s is %s\n", path, tr->flags & HP_TRACE_LOST ? "missing events (the runtime lost buffers)" : "cut at its --trace-limit");
    return 0;
}

/* ---------------------------------------------------------------- multihash */

static double g_started; /* progress: when the replays started (seconds, monotonic) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Long grids only (past 2 s): a line at every tenth of the configurations. */
static void progress(size_t done, size_t total)
{
    if (now_s() - g_started >= 2 && (done * 10 / total != (done - 1) * 10 / total || done == total))
        fprintf(stderr, "hotprof sim: %zu/%zu configurations\n", done, total);
}

static const char *const variant_names[] = {"paper", "rebalanced", "half"}; /* HP_MH_VARIANT_* */

static void print_mh_row(FILE *f, const hp_mhsim_result *r, const hp_mhsim_istats *s)
{
    const hp_multihash_params *p = &r->p;
    const char *variant = r->variant >= 0 && r->variant < 3 ? variant_names[r->variant] : "?";
    if (s)
        fprintf(f, "%u,%u,%u,%d,%d,%d,%d,%" PRIu64 ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g,%" PRIu64 ",%s,%u,%s,%.3f,%" PRIu64 ",%" PRIu64
                   ",%.3f,%" PRIu64 ",%" PRIu64 ",%.3f\n", p->n_tables,
                p->total_counters, p->counter_bits, p->conservative, p->reset, p->retain, p->shield, r->area, r->e * 100,
                r->fp * 100, r->fn * 100, r->np * 100, r->nn * 100, r->fp_rate * 100, r->fp_bound * 100, r->intervals,
                p->fast_hash ? "fast" : "paper", hp_multihash_acc_entries(p), variant, s->distinct_mean, s->distinct_min,
                s->distinct_max, s->cand_mean, s->cand_min, s->cand_max, s->change_mean * 100);
    else
        fprintf(f, "%6u %8u %4u  C%d R%d %3d %3d %5u %8" PRIu64 " %8.3f %7.3f %7.3f %7.3f %7.3f %10.4g %10.4g  %-5s %s\n", p->n_tables,
                p->total_counters, p->counter_bits, p->conservative, p->reset, p->retain, p->shield, hp_multihash_acc_entries(p),
                r->area, r->e * 100, r->fp * 100, r->fn * 100, r->np * 100, r->nn * 100, r->fp_rate * 100, r->fp_bound * 100,
                p->fast_hash ? "fast" : "paper", variant);
}

static const char mh_csv_head[] = "tables,counters,bits,conservative,reset,retain,shield,area_bytes,error_pct,fp_pct,fn_pct,np_pct,nn_pct,"
                                  "fp_rate_pct,fp_bound_pct,intervals,hash,acc_entries,variant,distinct_mean,distinct_min,distinct_max,"
                                  "cand_mean,cand_min,cand_max,change_pct\n";

static int write_mh_files(const sim_args *a, const hp_mhsim_grid *g, const hp_mhsim_result *res, size_t n, const char *title,
                          const hp_mhsim_istats *s)
{
    hp_outfile o;
    if (a->csv) {
        if (hp_outfile_open(&o, a->csv)) return 1;
        fputs(mh_csv_head, o.f);
        for (size_t i = 0; i < n; i++) print_mh_row(o.f, &res[i], s);
        if (hp_outfile_close(&o, 1)) return 1;
    }
    if (a->svg) {
        if (hp_outfile_open(&o, a->svg)) return 1;
        int ok = hp_mhplot_svg(o.f, g, res, title) == 0;
        if (hp_outfile_close(&o, ok)) return 1;
    }
    return 0;
}

/* --hash paper,fast: 0 and 1 on the hash axis (default: paper only). 0, or 2 after a message. */
static int parse_hash_axis(const char *text, hp_mhsim_axis *ax)
{
    ax->n = 0;
    for (const char *w = text ? text : "paper"; *w && ax->n < HP_MHSIM_AXIS_MAX;) {
        size_t n = strcspn(w, ",");
        if (n == 5 && !strncmp(w, "paper", 5)) ax->v[ax->n++] = 0;
        else if (n == 4 && !strncmp(w, "fast", 4)) ax->v[ax->n++] = 1;
        else return hp_usage_error(&sim_desc, "--hash: '%.*s' is not paper or fast", (int)n, w);
        w += n + (w[n] == ',');
    }
    return ax->n ? 0 : hp_usage_error(&sim_desc, "--hash needs paper, fast or both");
}

/* --variant paper,rebalanced,half: HP_MH_VARIANT_* on the variant axis (default: paper only). 0, or 2. */
static int parse_variant_axis(const char *text, hp_mhsim_axis *ax)
{
    ax->n = 0;
    for (const char *w = text ? text : "paper"; *w && ax->n < HP_MHSIM_AXIS_MAX;) {
        size_t n = strcspn(w, ","), v = 0;
        while (v < 3 && (strlen(variant_names[v]) != n || strncmp(w, variant_names[v], n))) v++;
        if (v == 3) return hp_usage_error(&sim_desc, "--variant: '%.*s' is not paper, rebalanced or half", (int)n, w);
        ax->v[ax->n++] = (uint32_t)v;
        w += n + (w[n] == ',');
    }
    return ax->n ? 0 : hp_usage_error(&sim_desc, "--variant needs paper, rebalanced or half");
}

static int parse_grid(const sim_args *a, hp_mhsim_grid *g)
{
    memset(g, 0, sizeof *g);
    if (parse_axis("tables", a->tables, "1,2,4,8,16", &g->tables) || parse_axis("counters", a->counters, "2K", &g->counters) ||
        (a->bits && parse_axis("bits", a->bits, "", &g->bits)) ||
        parse_axis("conservative", a->conservative, "1", &g->conservative) || parse_axis("reset", a->reset, "0", &g->reset) ||
        parse_axis("retain", a->retain, "1", &g->retain) || parse_axis("shield", a->shield, "1", &g->shield) ||
        parse_u64_opt("interval", a->interval, 10000, &g->interval) || parse_u64_opt("seed", a->seed, 1, &g->seed) ||
        parse_hash_axis(a->hash, &g->hash) || (a->acc && parse_axis("acc", a->acc, "", &g->acc)) ||
        parse_variant_axis(a->variant, &g->variant))
        return 2;
    g->threshold = 0.01;
    if (a->threshold && parse_percent(a->threshold, &g->threshold))
        return hp_usage_error(&sim_desc, "--threshold: '%s' is not a percentage in (0, 100]", a->threshold);
    char err[400];
    if (hp_mhsim_grid_check(g, err, sizeof err)) return hp_usage_error(&sim_desc, "%s", err);
    return 0;
}

static int run_multihash(const sim_args *a, const char *path)
{
    const char *const hps_given[] = {a->period, a->burst, a->jitter};
    const char *const hps_names[] = {"period", "burst", "jitter"};
    hp_mhsim_grid g;
    if (foreign("multihash", hps_given, hps_names, 3)) return 2;
    int rc = parse_grid(a, &g);
    if (rc) return rc;
    hp_trace tr;
    if (read_trace(path, &tr)) return 1;
    if (tr.kind == HP_TRACE_CALLS) {
        fprintf(stderr, "hotprof: %s is a calls trace; 'sim multihash' needs values or edges (hotprof run --trace-kind values|edges)\n", path);
        hp_trace_free(&tr);
        return 1;
    }
    hp_mhsim_input in;
    char err[400];
    rc = hp_mhsim_prepare(&tr, g.interval, g.threshold, &in, err, sizeof err);
    if (rc) {
        fprintf(stderr, "hotprof: %s: %s\n", path, err);
        hp_trace_free(&tr);
        return 1;
    }
    size_t n = hp_mhsim_grid_size(&g);
    hp_mhsim_result *res = calloc(n, sizeof *res);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    g_started = now_s();
    rc = !res || hp_mhsim_run(&in, &g, res, cpus > 0 ? (unsigned)cpus : 1, getenv("HOTPROF_QUIET") ? NULL : progress);
    if (rc) fprintf(stderr, "hotprof: sim: out of memory\n");
    else {
        uint64_t intervals = res[0].intervals;
        hp_mhsim_istats st = hp_mhsim_interval_stats(&in);
        printf("trace %s: %s of %s, %zu threads, %" PRIu64 " events%s\n", path, hp_trace_kind_name(tr.kind), tr.program,
               tr.nthreads, tr.events, tr.flags & HP_TRACE_CUT ? " (cut at the limit)" : "");
        printf("interval %" PRIu64 ", threshold %g%% (T = %" PRIu64 "), %" PRIu64 " intervals scored, %.2f candidates per interval\n\n",
               g.interval, g.threshold * 100, in.T, intervals, intervals ? (double)res[0].candidates / (double)intervals : 0);
        printf("per interval (Figures 4-5): distinct tuples mean %.1f min %" PRIu64 " max %" PRIu64 "; candidates mean %.2f min %" PRIu64
               " max %" PRIu64 "\n", st.distinct_mean, st.distinct_min, st.distinct_max, st.cand_mean, st.cand_min, st.cand_max);
        printf("candidate change between consecutive intervals (Figure 6, exact sets): %.2f%%\n\n", st.change_mean * 100);
        printf("%6s %8s %4s  %5s %3s %3s %5s %8s %8s %7s %7s %7s %7s %10s %10s  %-5s %s\n", "tables", "counters", "bits", "C/R", "ret",
               "sh", "acc", "area_B", "E%", "FP%", "FN%", "NP%", "NN%", "fp_rate%", "fp_bound%", "hash", "variant");
        for (size_t i = 0; i < n; i++) print_mh_row(stdout, &res[i], NULL);
        char title[400];
        snprintf(title, sizeof title, "multi-hash error, %s of %s, L=%" PRIu64 " t=%g%%", hp_trace_kind_name(tr.kind), tr.program, g.interval, g.threshold * 100);
        rc = write_mh_files(a, &g, res, n, title, &st);
    }
    free(res);
    hp_mhsim_input_free(&in);
    hp_trace_free(&tr);
    return rc ? 1 : 0;
}

/* ---------------------------------------------------------------- hps */

static int run_hps(const sim_args *a, const char *path)
{
    const char *const mh_given[] = {a->tables, a->counters, a->bits, a->conservative, a->reset, a->retain, a->shield, a->interval, a->threshold, a->svg, a->hash, a->acc, a->variant};
    const char *const mh_names[] = {"tables", "counters", "bits", "conservative", "reset", "retain", "shield", "interval", "threshold", "svg", "hash", "acc", "variant"};
    if (foreign("hps", mh_given, mh_names, 13)) return 2;
    if (!a->period || !a->burst) return hp_usage_error(&sim_desc, "'sim hps' needs --period and --burst");
    hp_mhsim_axis periods, bursts;
    uint64_t jitter, seed;
    if (parse_axis("period", a->period, "", &periods) || parse_axis("burst", a->burst, "", &bursts) ||
        parse_u64_opt("jitter", a->jitter, 0, &jitter) || parse_u64_opt("seed", a->seed, 1, &seed))
        return 2;
    for (size_t i = 0; i < bursts.n; i++)
        if (bursts.v[i] < 1 || bursts.v[i] > HP_BURSTY_MAX_COUNT) return hp_usage_error(&sim_desc, "--burst %u: must be 1..%u", bursts.v[i], HP_BURSTY_MAX_COUNT);
    for (size_t i = 0; i < periods.n; i++)
        if (periods.v[i] > HP_BURSTY_MAX_COUNT) return hp_usage_error(&sim_desc, "--period %u: must be 0..%u", periods.v[i], HP_BURSTY_MAX_COUNT);
    if (jitter > HP_BURSTY_MAX_JITTER) return hp_usage_error(&sim_desc, "--jitter %" PRIu64 ": must be 0..%u", jitter, HP_BURSTY_MAX_JITTER);
    hp_trace tr;
    if (read_trace(path, &tr)) return 1;
    hp_hpssim_input in;
    char err[400];
    if (hp_hpssim_prepare(&tr, &in, err, sizeof err)) {
        fprintf(stderr, "hotprof: %s: %s\n", path, err);
        hp_trace_free(&tr);
        return 1;
    }
    printf("trace %s: calls of %s, %zu threads, %" PRIu64 " events, %zu methods, %zu call pairs\n\n", path, tr.program,
           tr.nthreads, tr.events, in.nmethods, in.npairs);
    printf("%10s %8s %9s %10s %10s %10s %10s\n", "period", "burst", "freq%", "methods%", "pairs%", "m_renorm%", "p_renorm%");
    hp_outfile o = {0};
    int rc = a->csv && hp_outfile_open(&o, a->csv);
    if (o.f) fputs("period,burst,jitter,frequency_pct,methods_overlap_pct,pairs_overlap_pct,methods_renorm_pct,pairs_renorm_pct\n", o.f);
    for (size_t i = 0; !rc && i < periods.n; i++)
        for (size_t j = 0; !rc && j < bursts.n; j++) {
            hp_hpssim_result r;
            if (hp_hpssim_replay(&in, periods.v[i], bursts.v[j], (uint32_t)jitter, seed, &r)) {
                fprintf(stderr, "hotprof: sim hps: out of memory\n");
                rc = 1;
                break;
            }
            printf("%10u %8u %9.3f %10.2f %10.2f %10.2f %10.2f\n", r.period, r.burst, r.frequency * 100, r.methods * 100,
                   r.pairs * 100, r.methods_renorm * 100, r.pairs_renorm * 100);
            if (o.f) fprintf(o.f, "%u,%u,%u,%.6f,%.6f,%.6f,%.6f,%.6f\n", r.period, r.burst, r.jitter, r.frequency * 100,
                             r.methods * 100, r.pairs * 100, r.methods_renorm * 100, r.pairs_renorm * 100);
        }
    if (o.f && hp_outfile_close(&o, !rc)) rc = 1;
    hp_hpssim_input_free(&in);
    hp_trace_free(&tr);
    return rc;
}

int cmd_sim(int argc, char **argv)
{
    char **pos;
    int npos;
    sim_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    int rc = hp_parse_options(&sim_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos < 1) return hp_usage_error(&sim_desc, "which simulation? 'sim multihash TRACE' or 'sim hps TRACE'");
    if (strcmp(pos[0], "multihash") != 0 && strcmp(pos[0], "hps") != 0)
        return hp_usage_error(&sim_desc, "'%s' is not a simulation (multihash or hps)", pos[0]);
    if (npos != 2) return hp_usage_error(&sim_desc, "'sim %s' takes one trace file", pos[0]);
    return strcmp(pos[0], "multihash") == 0 ? run_multihash(&a, pos[1]) : run_hps(&a, pos[1]);
}

/* report.c — renders a profile as the `hotprof report` text or JSON (see report.h).
 *
 * Each table is built the same way: compute an order (an index permutation of the profile's
 * array, via qsort_r with a context holding the sort key and, for name sorts, the symbolized
 * names), keep the first `top` rows, symbolize only those rows, then print. Text columns that
 * hold names are sized to their longest entry, capped so a row fits 100 columns; longer names
 * are cut with "..". JSON carries full names and every string goes through hp_json_string().
 *
 * Bursty profiles (p->bursty): the header lists each profile type's sampling parameters and
 * observed frequency; every count of a table is shown as an estimate, sampled / observed frequency
 * of the table's type (text: "~N" under an "est." header; JSON: the estimate in the count fields
 * plus "estimated": true, the raw "sampled" count and a Chernoff interval "ci_lower"/"ci_upper"
 * from hp_bursty_estimate at "confidence"). Exhaustive profiles print exactly as before.
 * Patched-burst profiles (INFO mode=xray: XRay sleds; mode=patch: hook call sites rewritten per
 * window; runtime/bursts.c) are not scaled: their counts are raw sampled counts, the header says
 * so and lists the exposure recorded under INFO "xray.*" / "patch.*" (text: "sampling xray" /
 * "sampling patch"; JSON: an "xray" or a "patch" object). p->bursty is 0 for them (profile.c),
 * so no count is estimated. The hot data streams table (--streams) is rendered by
 * report_streams.c (raw stream frequencies for these modes: no observed frequency).
 */
#define _GNU_SOURCE
#include "analysis/report.h"
#include "analysis/pairmap.h"
#include "core/control/spec.h"
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define LINE_COLS 100    /* a text row never exceeds this */
#define WHERE_MAX_COL 28
#define NAME_MIN_COL 12

int hp_report_parse_sort(const char *word, hp_sort_key *out)
{
    static const char *const words[] = {"heat", "calls", "backedges", "name"};
    for (int i = 0; i < 4; i++)
        if (strcmp(word, words[i]) == 0) return *out = (hp_sort_key)i, 0;
    return -1;
}

int hp_report_parse_format(const char *word, hp_report_format *out)
{
    if (strcmp(word, "text") == 0) return *out = HP_FORMAT_TEXT, 0;
    if (strcmp(word, "json") == 0) return *out = HP_FORMAT_JSON, 0;
    return -1;
}

/* ---- ordering ---- */

typedef struct order_ctx {
    const hp_profile *p;
    hp_sort_key key;
    char **names; /* per element, only for HP_SORT_NAME */
} order_ctx;

static uint64_t heat_of(const hp_func_stat *f) { return hp_sat_add(f->calls, f->backedges); }

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }
static int cmp_u64_asc(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int cmp_funcs(const void *a, const void *b, void *arg)
{
    const order_ctx *c = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const hp_func_stat *f = &c->p->funcs[i], *g = &c->p->funcs[j];
    int r = 0;
    switch (c->key) {
    case HP_SORT_HEAT: r = cmp_u64_desc(heat_of(f), heat_of(g)); break;
    case HP_SORT_CALLS: r = cmp_u64_desc(f->calls, g->calls); break;
    case HP_SORT_BACKEDGES: r = cmp_u64_desc(f->backedges, g->backedges); break;
    case HP_SORT_NAME: r = strcmp(c->names[i], c->names[j]); break;
    }
    if (!r && c->key != HP_SORT_HEAT) r = cmp_u64_desc(heat_of(f), heat_of(g));
    return r ? r : cmp_u64_asc(f->addr, g->addr);
}

static int cmp_pairs(const void *a, const void *b, void *arg)
{
    const order_ctx *c = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const hp_pair_stat *x = &c->p->pairs[i], *y = &c->p->pairs[j];
    int r = c->key == HP_SORT_NAME ? strcmp(c->names[i], c->names[j]) : 0;
    if (!r) r = cmp_u64_desc(x->count, y->count);
    if (!r) r = cmp_u64_asc(x->site, y->site);
    return r ? r : cmp_u64_asc(x->callee, y->callee);
}

/* names[i] = printable name of addr_of(i), for name sorts. */
static char **symbolized_names(hp_symbolizer *s, size_t n, uint64_t (*addr_of)(const hp_profile *, size_t),
                               const hp_profile *p)
{
    char **names = calloc(n + 1, sizeof *names);
    for (size_t i = 0; names && i < n; i++) {
        char buf[512] = "";
        const hp_symbol *sym = hp_sym_lookup(s, addr_of(p, i));
        if (sym) hp_sym_name(sym, buf, sizeof buf);
        names[i] = strdup(buf);
        if (!names[i]) {
            while (i--) free(names[i]);
            free(names);
            return NULL;
        }
    }
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
}

static uint64_t func_addr(const hp_profile *p, size_t i) { return p->funcs[i].addr; }
static uint64_t pair_caller(const hp_profile *p, size_t i) { return p->pairs[i].site ? p->pairs[i].site - 1 : 0; }

static int order_by(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order, size_t n,
                    uint64_t (*addr_of)(const hp_profile *, size_t),
                    int (*cmp)(const void *, const void *, void *))
{
    order_ctx c = {p, key, NULL};
    if (key == HP_SORT_NAME && !(c.names = symbolized_names(s, n, addr_of, p))) return -1;
    for (size_t i = 0; i < n; i++) order[i] = i;
    qsort_r(order, n, sizeof *order, cmp, &c);
    free_names(c.names, n);
    return 0;
}

int hp_report_order_funcs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order)
{
    return order_by(p, s, key, order, p->nfuncs, func_addr, cmp_funcs);
}

int hp_report_order_pairs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order)
{
    return order_by(p, s, key, order, p->npairs, pair_caller, cmp_pairs);
}

static int cmp_blocks(const void *a, const void *b, void *arg)
{
    const hp_profile *p = arg;
    const hp_block_stat *x = &p->blocks[*(const size_t *)a], *y = &p->blocks[*(const size_t *)b];
    int r = cmp_u64_desc(x->count, y->count);
    return r ? r : cmp_u64_asc(x->guard, y->guard);
}

static int cmp_edges(const void *a, const void *b, void *arg)
{
    const hp_profile *p = arg;
    const hp_edge_stat *x = &p->edges[*(const size_t *)a], *y = &p->edges[*(const size_t *)b];
    int r = cmp_u64_desc(x->count, y->count);
    if (!r) r = cmp_u64_asc(x->from, y->from);
    return r ? r : cmp_u64_asc(x->to, y->to);
}

static size_t *identity_order(size_t n)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    for (size_t i = 0; order && i < n; i++) order[i] = i;
    return order;
}

/* ---- shared pieces ---- */

typedef struct run_state { const char *state; int64_t status; int signal; } run_state;

static run_state run_state_of(const hp_profile *p)
{
    if (!p->have_group) return (run_state){"empty", 0, 0};
    if (p->group_flags & HP_GROUP_CRASH)
        return (run_state){"crashed", p->exit_status, p->exit_status < 0 ? (int)-p->exit_status : 0};
    if (p->group_flags & HP_GROUP_EXEC) return (run_state){"exec", 0, 0};
    if (p->group_flags & HP_GROUP_FINAL) return (run_state){"exited", p->exit_status, 0};
    return (run_state){"cut_short", 0, 0};
}

static const char *signal_name(int sig)
{
    const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
    return abbrev ? abbrev : "?";
}

static const char *info_or(const hp_profile *p, const char *key, const char *fallback)
{
    const char *v = hp_profile_info(p, key);
    return v && v[0] ? v : fallback;
}

static double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

/* ---- bursty estimates ----
 * In a bursty profile every count of a table is a sampled count of one profile type (methods:
 * FUNCS; call pairs: CALLPAIRS; edges: BLOCKS and EDGES). Its estimate is count / f, f the type's
 * observed frequency (sampled / events over all threads), or B/(B+S) if no events were counted.
 * Exhaustive profiles have no estimates: every helper then returns the count as it is. */

#define EST_CONFIDENCE 0.95

static double type_frequency(const hp_profile *p, int type)
{
    double f = hp_profile_sample_frequency(p, type);
    if (f <= 0.0 && p->sample[type].known) f = hp_bursty_frequency(p->sample[type].burst, p->sample[type].period);
    return f;
}

/* 1 if the counts of this type are to be shown as estimates. */
static int estimated(const hp_profile *p, int type) { return p->bursty && type_frequency(p, type) > 0.0; }

static double estimate_of(const hp_profile *p, int type, uint64_t x)
{
    return estimated(p, type) ? (double)x / type_frequency(p, type) : (double)x;
}

/* A count cell: the count itself, or "~estimate" in a bursty profile. */
static const char *count_cell(char *buf, size_t n, const hp_profile *p, int type, uint64_t x)
{
    if (estimated(p, type)) snprintf(buf, n, "~%.0f", estimate_of(p, type, x));
    else snprintf(buf, n, "%" PRIu64, x);
    return buf;
}

/* A column header: "est.<name>" when the table's counts are estimates. */
static const char *count_header(char *buf, size_t n, const hp_profile *p, int type, const char *name)
{
    snprintf(buf, n, "%s%s", estimated(p, type) ? "est." : "", name);
    return buf;
}

static size_t rows_of(size_t n, const hp_report_opts *o) { return o->top && o->top < n ? o->top : n; }

/* Prints s in exactly `width` columns: padded, or cut with "..". */
static void print_cell(FILE *out, const char *s, int width)
{
    int len = (int)strlen(s);
    if (len <= width) fprintf(out, "%-*s", width, s);
    else fprintf(out, "%.*s..", width - 2, s);
}

/* Prints s as the last cell of a row: no padding, cut with ".." beyond width. */
static void print_last_cell(FILE *out, const char *s, int width)
{
    if ((int)strlen(s) <= width) fprintf(out, "%s\n", s);
    else fprintf(out, "%.*s..\n", width > 2 ? width - 2 : 0, s);
}

static int clamp_width(size_t w, int lo, int hi) { return w < (size_t)lo ? lo : w > (size_t)hi ? hi : (int)w; }

typedef struct row_sym { char name[512], where[512]; const hp_symbol *sym; } row_sym;

static void describe(hp_symbolizer *s, uint64_t addr, row_sym *r)
{
    r->sym = hp_sym_lookup(s, addr);
    if (r->sym) {
        hp_sym_name(r->sym, r->name, sizeof r->name);
        hp_sym_where(r->sym, r->where, sizeof r->where);
    } else {
        snprintf(r->name, sizeof r->name, "0x%" PRIx64, addr);
        r->where[0] = 0;
    }
}

/* ---- text ---- */

/* Bursty: one line per profile type with its parameters and the frequency observed. */
static void text_sampling(FILE *out, const hp_profile *p)
{
    if (!p->bursty) return;
    fprintf(out, "  sampling bursty (HPS); est. = sampled count / observed frequency (~: an estimate)\n");
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        const hp_sample_stat *st = &p->sample[t];
        fprintf(out, "    %-10s %-3s", hp_sample_type_name(t), st->enabled ? "on" : "off");
        if (st->known) fprintf(out, " S=%u B=%u jitter=%u%%", st->period, st->burst, st->jitter);
        fprintf(out, "  sampled %" PRIu64 "/%" PRIu64 " = %.6f", st->sampled, st->events, hp_profile_sample_frequency(p, t));
        if (st->known) fprintf(out, " (B/(B+S) %.6f)", hp_bursty_frequency(st->burst, st->period));
        fputc('\n', out);
    }
}

/* Patched bursts (runtime/bursts.c): INFO mode=xray (XRay sleds, runtime/xray.c) or mode=patch
 * (the compiler's hook call sites rewritten to nops between windows, runtime/sites.c). Windows
 * are driven by time and the events made while the hooks were off are not counted, so no
 * frequency can be observed: the counts are raw sampled counts, not estimates, and the header
 * says so with the exposure the runtime recorded under INFO "<mode>.*". */
typedef struct patched_mode {
    const char *mode; /* INFO mode, also the prefix of its keys */
    const char *how;  /* what is patched, for the text header */
    const char *unit; /* what a window's units are */
} patched_mode;

static const patched_mode *patched_mode_of(const hp_profile *p)
{
    static const patched_mode modes[] = {
        {"xray", "XRay sleds patched per window", "entries"},
        {"patch", "call sites rewritten per window", "units"},
    };
    const char *mode = hp_profile_info(p, "mode");
    for (size_t i = 0; mode && i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(mode, modes[i].mode)) return &modes[i];
    return NULL;
}

static int xray_mode(const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    return m && !strcmp(m->mode, "xray");
}

/* INFO "<m->mode>.<key>": its value, or "?" if absent. */
static const char *pb_str(const hp_profile *p, const patched_mode *m, const char *key)
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", m->mode, key);
    return info_or(p, full, "?");
}

/* INFO "<m->mode>.<key>" as a number, 0 if absent. */
static double pb_num(const hp_profile *p, const patched_mode *m, const char *key)
{
    const char *v = pb_str(p, m, key);
    return strcmp(v, "?") ? strtod(v, NULL) : 0.0;
}

static void text_patched(FILE *out, const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    if (!m) return;
    int xray = xray_mode(p);
    fprintf(out, "  sampling %s (%s): counts are RAW SAMPLED counts, not estimates\n", m->mode, m->how);
    fprintf(out, "    %sS=%s B=%s window=%s  bursts %s  sampled %s %s  patched %.1f of %.1f ms",
            xray ? "methods " : "", pb_str(p, m, "period"), pb_str(p, m, "burst"), pb_str(p, m, "window"),
            pb_str(p, m, "bursts"), pb_str(p, m, "sampled_entries"), m->unit, pb_num(p, m, "patched_ns") / 1e6,
            pb_num(p, m, "total_ns") / 1e6);
    if (xray) fprintf(out, "  functions %s\n", pb_str(p, m, "functions"));
    else fprintf(out, "  sites %s\n", pb_str(p, m, "sites"));
}

static void text_header(FILE *out, const hp_profile *p)
{
    run_state rs = run_state_of(p);
    const char *args = hp_profile_info(p, "args");
    fprintf(out, "hotprof report: %s\n", p->name);
    fprintf(out, "  program  %s\n", info_or(p, "program", "(unknown)"));
    if (args && args[0]) fprintf(out, "  command  %s\n", args);
    fprintf(out, "  mode     %-12s  seed %" PRIu64 "  threads %zu  groups %zu\n", info_or(p, "mode", "(unknown)"),
            p->header.seed, p->nthreads, p->ngroups);
    fprintf(out, "  totals   %" PRIu64 " calls, %" PRIu64 " back-edges, %" PRIu64 " call-pair events\n",
            hp_profile_total_calls(p), hp_profile_total_backedges(p), hp_profile_total_pairs(p));
    fprintf(out, "  distinct %zu functions, %zu call pairs, %zu blocks, %zu edges\n", p->nfuncs, p->npairs,
            p->nblocks, p->nedges);
    text_sampling(out, p);
    text_patched(out, p);
    if (!strcmp(rs.state, "crashed"))
        fprintf(out, "  run      CRASHED: killed by signal %d (SIG%s); counts up to the crash\n", rs.signal,
                signal_name(rs.signal));
    else if (!strcmp(rs.state, "exec"))
        fprintf(out, "  run      replaced by exec(): counts up to the exec (the new image has its own profile)\n");
    else if (!strcmp(rs.state, "exited"))
        fprintf(out, "  run      exited with status %" PRId64 "\n", rs.status);
    else if (!strcmp(rs.state, "cut_short"))
        fprintf(out, "  run      CUT SHORT: no final snapshot (program killed or still running); "
                "counts from snapshot %" PRIu64 "\n", p->group_seq);
    else
        fprintf(out, "  run      NO DATA: the profile holds no complete snapshot of counts\n");
}

/* Widths of the name and where columns over rows [0, n) of a table (a first pass), so that a row
 * of `fixed` columns + name + 2 + where fits LINE_COLS. `names` > 1 splits the room for names
 * between that many name columns (call pairs: caller and callee). */
typedef uint64_t (*addr_fn)(const hp_profile *, size_t);

static void column_widths(const hp_profile *p, hp_symbolizer *s, const size_t *order, size_t n, addr_fn addr_of,
                          int fixed, int *wname, int *wwhere)
{
    size_t name = 8, where = 9;
    for (size_t i = 0; i < n; i++) {
        row_sym r;
        describe(s, addr_of(p, order[i]), &r);
        if (strlen(r.name) > name) name = strlen(r.name);
        if (strlen(r.where) > where) where = strlen(r.where);
    }
    *wwhere = clamp_width(where, 9, WHERE_MAX_COL);
    *wname = clamp_width(name, 8, LINE_COLS - fixed - 2 - *wwhere);
    if (*wname < NAME_MIN_COL) {
        *wname = NAME_MIN_COL;
        *wwhere = LINE_COLS - fixed - 2 - NAME_MIN_COL;
    }
}

static void text_methods(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                         const size_t *order)
{
    static const char *const by[] = {"heat", "calls", "back-edges", "name"};
    size_t n = rows_of(p->nfuncs, o);
    uint64_t total = hp_sat_add(hp_profile_total_calls(p), hp_profile_total_backedges(p));
    int wname, wwhere;
    column_widths(p, s, order, n, func_addr, 50, &wname, &wwhere);
    fprintf(out, "\nHot methods (heat = calls + back-edges): %zu of %zu, by %s\n", n, p->nfuncs, by[o->sort]);
    char h1[24], h2[24], c1[32], c2[32], c3[32];
    const int M = HP_BURSTY_METHODS;
    fprintf(out, "%4s %12s %6s %12s %10s  %-*s  %s\n", "rank", count_header(h1, sizeof h1, p, M, "heat"), "%",
            count_header(h2, sizeof h2, p, M, "calls"), estimated(p, M) ? "est.b-edge" : "back-edges", wname,
            "function", "file:line");
    for (size_t i = 0; i < n; i++) {
        const hp_func_stat *f = &p->funcs[order[i]];
        row_sym r;
        describe(s, f->addr, &r);
        fprintf(out, "%4zu %12s %5.1f%% %12s %10s  ", i + 1, count_cell(c1, sizeof c1, p, M, heat_of(f)),
                percent(heat_of(f), total), count_cell(c2, sizeof c2, p, M, f->calls),
                count_cell(c3, sizeof c3, p, M, f->backedges));
        print_cell(out, r.name, wname);
        fputs("  ", out);
        print_last_cell(out, r.where, wwhere);
    }
    if (!n) fprintf(out, "  (no method counts in this profile)\n");
}

static void text_pairs(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                       const size_t *order)
{
    size_t n = rows_of(p->npairs, o);
    uint64_t total = hp_profile_total_pairs(p);
    int wname, wwhere;
    column_widths(p, s, order, n, pair_caller, 21 + 2 + 24, &wname, &wwhere); /* 24: room for the callee */
    int wcallee = LINE_COLS - 21 - wname - 2 - wwhere - 2;
    fprintf(out, "\nHot call pairs: %zu of %zu, by %s\n", n, p->npairs, o->sort == HP_SORT_NAME ? "caller name" : "count");
    char hd[24], cell[32];
    const int CP = HP_BURSTY_CALL_PAIRS;
    fprintf(out, "%12s %6s  %-*s  %-*s  %s\n", count_header(hd, sizeof hd, p, CP, "count"), "%", wname, "caller",
            wwhere, "call site", "callee");
    for (size_t i = 0; i < n; i++) {
        const hp_pair_stat *c = &p->pairs[order[i]];
        row_sym caller, callee;
        describe(s, pair_caller(p, order[i]), &caller);
        describe(s, c->callee, &callee);
        fprintf(out, "%12s %5.1f%%  ", count_cell(cell, sizeof cell, p, CP, c->count), percent(c->count, total));
        print_cell(out, caller.name, wname);
        fputs("  ", out);
        print_cell(out, caller.where, wwhere);
        fputs("  ", out);
        print_last_cell(out, callee.name, wcallee);
    }
    if (!n) fprintf(out, "  (no call-pair counts in this profile)\n");
}

static uint64_t block_pc(const hp_profile *p, size_t i) { return p->blocks[i].pc; }
static uint64_t edge_from_pc(const hp_profile *p, size_t i) { return p->edges[i].from_pc; }

static void text_blocks(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                        const size_t *order)
{
    size_t n = rows_of(p->nblocks, o);
    uint64_t total = hp_profile_total_blocks(p);
    int wname, wwhere;
    column_widths(p, s, order, n, block_pc, 46, &wname, &wwhere);
    fprintf(out, "\nHot blocks: %zu of %zu, by count\n", n, p->nblocks);
    char hd[24], cell[32];
    fprintf(out, "%4s %12s %6s  %-18s  %-*s  %s\n", "rank", count_header(hd, sizeof hd, p, HP_BURSTY_EDGES, "count"),
            "%", "pc", wname, "function", "file:line");
    for (size_t i = 0; i < n; i++) {
        const hp_block_stat *b = &p->blocks[order[i]];
        row_sym r = {.name = "?", .where = ""};
        char pc[32];
        if (b->mapped) describe(s, b->pc, &r), snprintf(pc, sizeof pc, "0x%" PRIx64, b->pc);
        else snprintf(pc, sizeof pc, "guard %" PRIu32, b->guard);
        fprintf(out, "%4zu %12s %5.1f%%  %-18s  ", i + 1, count_cell(cell, sizeof cell, p, HP_BURSTY_EDGES, b->count),
                percent(b->count, total), pc);
        print_cell(out, r.name, wname);
        fputs("  ", out);
        print_last_cell(out, r.where, wwhere);
    }
    if (!n) fprintf(out, "  (no block counts in this profile)\n");
}

static void text_edges(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                       const size_t *order)
{
    size_t n = rows_of(p->nedges, o);
    uint64_t total = hp_profile_total_edges(p);
    int wname, wwhere;
    column_widths(p, s, order, n, edge_from_pc, 54, &wname, &wwhere);
    fprintf(out, "\nHot edges: %zu of %zu, by count\n", n, p->nedges);
    char hd[24], cell[32];
    fprintf(out, "%12s %6s  %-32s  %-*s  %s\n", count_header(hd, sizeof hd, p, HP_BURSTY_EDGES, "count"), "%",
            "from -> to", wname, "function", "file:line (from)");
    for (size_t i = 0; i < n; i++) {
        const hp_edge_stat *e = &p->edges[order[i]];
        row_sym r = {.name = "?", .where = ""};
        char fromto[64];
        if (e->mapped) {
            describe(s, e->from_pc, &r);
            snprintf(fromto, sizeof fromto, "0x%" PRIx64 " -> 0x%" PRIx64, e->from_pc, e->to_pc);
        } else {
            snprintf(fromto, sizeof fromto, "guard %" PRIu32 " -> %" PRIu32, e->from, e->to);
        }
        fprintf(out, "%12s %5.1f%%  %-32s  ", count_cell(cell, sizeof cell, p, HP_BURSTY_EDGES, e->count),
                percent(e->count, total), fromto);
        print_cell(out, r.name, wname);
        fputs("  ", out);
        print_last_cell(out, r.where, wwhere);
    }
    if (!n) fprintf(out, "  (no edge counts in this profile)\n");
}

/* ---- JSON ---- */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629), 0 if it is not one. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f; /* no surrogates */
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (!n || s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

void hp_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        int n;
        if (*c == '"' || *c == '\\') fprintf(out, "\\%c", *c);
        else if (*c == '\n') fputs("\\n", out);
        else if (*c == '\t') fputs("\\t", out);
        else if (*c < 0x20 || *c == 0x7f) fprintf(out, "\\u%04x", *c);
        else if (*c < 0x80) fputc(*c, out);
        else if ((n = utf8_length(c)) > 0) fwrite(c, 1, (size_t)n, out), c += n - 1;
        else fputc('?', out); /* not UTF-8: keep the output valid JSON */
    }
    fputc('"', out);
}

static void json_symbol(FILE *out, hp_symbolizer *s, const char *prefix, uint64_t addr)
{
    row_sym r;
    describe(s, addr, &r);
    fprintf(out, "\"%saddr\": \"0x%" PRIx64 "\", \"%sfunction\": ", prefix, addr, prefix);
    hp_json_string(out, r.name);
    fprintf(out, ", \"%sfile\": ", prefix);
    if (r.sym && r.sym->file) hp_json_string(out, r.sym->file);
    else fputs("null", out);
    fprintf(out, ", \"%sline\": %d", prefix, r.sym ? r.sym->line : 0);
}

static void json_kv_string(FILE *out, const char *key, const char *value)
{
    fprintf(out, "  \"%s\": ", key);
    if (value) hp_json_string(out, value);
    else fputs("null", out);
    fputs(",\n", out);
}

static void json_header(FILE *out, const hp_profile *p)
{
    run_state rs = run_state_of(p);
    fputs("{\n", out);
    json_kv_string(out, "file", p->name);
    json_kv_string(out, "program", hp_profile_info(p, "program"));
    json_kv_string(out, "args", hp_profile_info(p, "args"));
    json_kv_string(out, "mode", hp_profile_info(p, "mode"));
    fprintf(out, "  \"seed\": %" PRIu64 ",\n  \"threads\": %zu,\n  \"groups\": %zu,\n", p->header.seed, p->nthreads,
            p->ngroups);
    fprintf(out, "  \"run\": {\"state\": \"%s\", \"exit_status\": %" PRId64 ", \"signal\": %d},\n", rs.state,
            rs.status, rs.signal);
    fprintf(out, "  \"totals\": {\"calls\": %" PRIu64 ", \"backedges\": %" PRIu64 ", \"call_pairs\": %" PRIu64
            ", \"blocks\": %" PRIu64 ", \"edges\": %" PRIu64 ", \"functions\": %zu},\n", hp_profile_total_calls(p),
            hp_profile_total_backedges(p), hp_profile_total_pairs(p), hp_profile_total_blocks(p),
            hp_profile_total_edges(p), p->nfuncs);
}

/* Bursty: "sampling": {"methods": {...}, ...} after the header. */
static void json_sampling(FILE *out, const hp_profile *p)
{
    if (!p->bursty) return;
    fputs("  \"sampling\": {", out);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        const hp_sample_stat *st = &p->sample[t];
        fprintf(out, "%s\n    \"%s\": {\"enabled\": %s, ", t ? "," : "", hp_sample_type_name(t),
                st->enabled ? "true" : "false");
        if (st->known)
            fprintf(out, "\"period\": %u, \"burst\": %u, \"jitter\": %u, \"configured_frequency\": %.9g, ",
                    st->period, st->burst, st->jitter, hp_bursty_frequency(st->burst, st->period));
        fprintf(out, "\"events\": %" PRIu64 ", \"sampled\": %" PRIu64 ", \"observed_frequency\": %.9g}",
                st->events, st->sampled, hp_profile_sample_frequency(p, t));
    }
    fprintf(out, "\n  },\n  \"confidence\": %.2f,\n", EST_CONFIDENCE);
}

/* Patched bursts: "xray": {...} (mode=xray) or "patch": {...} (mode=patch, with the window and
 * the call-site counters) after the header; the counts of such a profile are raw. */
static void json_patched(FILE *out, const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    if (!m) return;
    fprintf(out, "  \"%s\": {\"raw_sampled_counts\": true, \"period\": %.0f, \"burst\": %.0f, ", m->mode,
            pb_num(p, m, "period"), pb_num(p, m, "burst"));
    if (!xray_mode(p)) fprintf(out, "\"window\": %.0f, ", pb_num(p, m, "window"));
    fprintf(out, "\"bursts\": %.0f, \"sampled_entries\": %.0f, \"patched_ns\": %.0f, \"total_ns\": %.0f",
            pb_num(p, m, "bursts"), pb_num(p, m, "sampled_entries"), pb_num(p, m, "patched_ns"),
            pb_num(p, m, "total_ns"));
    if (!xray_mode(p))
        fprintf(out, ", \"timeouts\": %.0f, \"sites\": %.0f", pb_num(p, m, "timeouts"), pb_num(p, m, "sites"));
    fputs("},\n", out);
}

/* Bursty: what an estimated row adds: "estimated": true, "sampled": x and the Chernoff interval
 * of hp_bursty_estimate at EST_CONFIDENCE (upper null when unbounded). Nothing in exhaustive. */
static void json_estimate(FILE *out, const hp_profile *p, int type, uint64_t x)
{
    if (!estimated(p, type)) return;
    hp_osp_bound b = hp_bursty_estimate(x, type_frequency(p, type), EST_CONFIDENCE);
    fprintf(out, "\"estimated\": true, \"sampled\": %" PRIu64 ", \"ci_lower\": %.0f, \"ci_upper\": ", x, b.lower);
    if (isfinite(b.upper)) fprintf(out, "%.0f, ", b.upper);
    else fputs("null, ", out);
}

/* A count in JSON: the count, or its rounded estimate. */
static void json_count(FILE *out, const hp_profile *p, int type, uint64_t x)
{
    if (estimated(p, type)) fprintf(out, "%.0f", estimate_of(p, type, x));
    else fprintf(out, "%" PRIu64, x);
}

static void json_methods(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                         const size_t *order)
{
    size_t n = rows_of(p->nfuncs, o);
    uint64_t total = hp_sat_add(hp_profile_total_calls(p), hp_profile_total_backedges(p));
    const int M = HP_BURSTY_METHODS;
    fputs("  \"methods\": [", out);
    for (size_t i = 0; i < n; i++) {
        const hp_func_stat *f = &p->funcs[order[i]];
        fprintf(out, "%s\n    {\"rank\": %zu, \"heat\": ", i ? "," : "", i + 1);
        json_count(out, p, M, heat_of(f));
        fprintf(out, ", \"percent\": %.2f, \"calls\": ", percent(heat_of(f), total));
        json_count(out, p, M, f->calls);
        fputs(", \"backedges\": ", out);
        json_count(out, p, M, f->backedges);
        fputs(", ", out);
        json_estimate(out, p, M, heat_of(f));
        json_symbol(out, s, "", f->addr);
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
}

static void json_pairs(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                       const size_t *order)
{
    size_t n = rows_of(p->npairs, o);
    uint64_t total = hp_profile_total_pairs(p);
    const int CP = HP_BURSTY_CALL_PAIRS;
    fputs(",\n  \"call_pairs\": [", out);
    for (size_t i = 0; i < n; i++) {
        const hp_pair_stat *c = &p->pairs[order[i]];
        fprintf(out, "%s\n    {\"count\": ", i ? "," : "");
        json_count(out, p, CP, c->count);
        fprintf(out, ", \"percent\": %.2f, \"site\": \"0x%" PRIx64 "\", ", percent(c->count, total), c->site);
        json_estimate(out, p, CP, c->count);
        json_symbol(out, s, "caller_", pair_caller(p, order[i]));
        fputs(", ", out);
        json_symbol(out, s, "callee_", c->callee);
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
}

static void json_blocks(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                        const size_t *order)
{
    size_t n = rows_of(p->nblocks, o);
    uint64_t total = hp_profile_total_blocks(p);
    fputs(",\n  \"blocks\": [", out);
    for (size_t i = 0; i < n; i++) {
        const hp_block_stat *b = &p->blocks[order[i]];
        fprintf(out, "%s\n    {\"rank\": %zu, \"guard\": %" PRIu32 ", \"count\": ", i ? "," : "", i + 1, b->guard);
        json_count(out, p, HP_BURSTY_EDGES, b->count);
        fprintf(out, ", \"percent\": %.2f, ", percent(b->count, total));
        json_estimate(out, p, HP_BURSTY_EDGES, b->count);
        fprintf(out, "\"function_entry\": %s", (b->flags & 1) ? "true" : "false");
        if (b->mapped) fputs(", ", out), json_symbol(out, s, "", b->pc);
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
}

static void json_edges(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                       const size_t *order)
{
    size_t n = rows_of(p->nedges, o);
    uint64_t total = hp_profile_total_edges(p);
    fputs(",\n  \"edges\": [", out);
    for (size_t i = 0; i < n; i++) {
        const hp_edge_stat *e = &p->edges[order[i]];
        fprintf(out, "%s\n    {\"count\": ", i ? "," : "");
        json_count(out, p, HP_BURSTY_EDGES, e->count);
        fprintf(out, ", \"percent\": %.2f, ", percent(e->count, total));
        json_estimate(out, p, HP_BURSTY_EDGES, e->count);
        fprintf(out, "\"from_guard\": %" PRIu32 ", \"to_guard\": %" PRIu32, e->from, e->to);
        if (e->mapped) {
            fprintf(out, ", \"to_addr\": \"0x%" PRIx64 "\", ", e->to_pc);
            json_symbol(out, s, "from_", e->from_pc);
        }
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
}

static void json_warnings(FILE *out, const hp_profile *p, hp_symbolizer *s)
{
    size_t k = 0;
    fputs(",\n  \"warnings\": [", out);
    for (size_t i = 0; i < p->nwarnings; i++, k++)
        fputs(k ? ", " : "", out), hp_json_string(out, p->warnings[i]);
    for (size_t i = 0; i < hp_sym_nwarnings(s); i++, k++)
        fputs(k ? ", " : "", out), hp_json_string(out, hp_sym_warning(s, i));
    if (hp_sym_left_mangled(s))
        fputs(k ? ", " : "", out), hp_json_string(out, "C++ names are shown mangled (no __cxa_demangle found)");
    fputs("]\n}\n", out);
}

/* ---- driver ---- */

typedef struct orders { size_t *funcs, *pairs, *blocks, *edges; } orders;

static void free_orders(orders *ord)
{
    free(ord->funcs);
    free(ord->pairs);
    free(ord->blocks);
    free(ord->edges);
}

static int make_orders(const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o, orders *ord)
{
    ord->funcs = malloc((p->nfuncs + 1) * sizeof(size_t));
    ord->pairs = malloc((p->npairs + 1) * sizeof(size_t));
    ord->blocks = identity_order(p->nblocks);
    ord->edges = identity_order(p->nedges);
    if (!ord->funcs || !ord->pairs || !ord->blocks || !ord->edges) return -1;
    if (hp_report_order_funcs(p, s, o->sort, ord->funcs) || hp_report_order_pairs(p, s, o->sort, ord->pairs))
        return -1;
    qsort_r(ord->blocks, p->nblocks, sizeof(size_t), cmp_blocks, (void *)p);
    qsort_r(ord->edges, p->nedges, sizeof(size_t), cmp_edges, (void *)p);
    return 0;
}

static void write_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o, const orders *ord)
{
    text_header(out, p);
    text_methods(out, p, s, o, ord->funcs);
    text_pairs(out, p, s, o, ord->pairs);
    if (o->blocks) text_blocks(out, p, s, o, ord->blocks);
    if (o->edges) text_edges(out, p, s, o, ord->edges);
    if (o->streams) hp_report_streams_text(out, p, o);
    if (hp_sym_left_mangled(s)) fputs("\nnote: C++ names are shown mangled (no __cxa_demangle found)\n", out);
}

static void write_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o, const orders *ord)
{
    json_header(out, p);
    json_sampling(out, p);
    json_patched(out, p);
    json_methods(out, p, s, o, ord->funcs);
    json_pairs(out, p, s, o, ord->pairs);
    if (o->blocks) json_blocks(out, p, s, o, ord->blocks);
    if (o->edges) json_edges(out, p, s, o, ord->edges);
    if (o->streams) hp_report_streams_json(out, p, o);
    json_warnings(out, p, s);
}

int hp_report_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    orders ord = {0};
    int rc = make_orders(p, s, o, &ord);
    if (rc == 0 && o->format == HP_FORMAT_JSON) write_json(out, p, s, o, &ord);
    else if (rc == 0) write_text(out, p, s, o, &ord);
    free_orders(&ord);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

/* callpairs.c — the callpairs profile type on the analysis side (aptype.h): CALLPAIRS records
 * summed by (call site, callee) into p->pairs; the "Hot call pairs" table (by count, or by caller
 * name; ties by site then callee; the caller and the call-site line are looked up at site - 1,
 * the site being a return address); its total; the "call_pairs" compare view; and its folded
 * stacks, `caller;callee count` (two frames, weight calls: they sum to the call-pair events; pairs
 * of one caller and callee through several sites are one stack; the default fold); its HTML table,
 * and its pairs as the caller -> callee edges of the HTML report's call graph (html/callgraph.h);
 * its pprof samples (callee, caller: leaf first; value calls).
 * Table and JSON rows merge the pairs whose caller, call-site file:line and callee are the same
 * (one source call site duplicated by unrolling or peeling: counts add, "sites" says how many);
 * distinct lines stay distinct rows. hp_report_order_pairs orders the unmerged pairs.
 * Invariants: p->pairs holds one entry per distinct (site, callee); counts saturate.
 */
#define _GNU_SOURCE
#include "analysis/folded.h"
#include "analysis/html/html.h"
#include "analysis/ptype/aptype.h"
#include "analysis/merge/merge.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CP HP_BURSTY_CALL_PAIRS /* the HPS type its counts are sampled under */
#define TAG_PAIR 0x63616c6c70616972ull /* compare key tag */

/* ---- reader ---- */

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    const uint8_t *in = hp_rd_payload(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_CALLPAIR_SIZE) {
        hp_rec_callpair c;
        hp_fmt_get_callpair(in + off, &c);
        if (!hp_rd_accumulate(r, &acc->map, c.site, c.callee, c.count, 0)) return 0;
    }
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    p->pairs = calloc(acc->map.count + 1, sizeof *p->pairs);
    if (!p->pairs) return hp_rd_oom(r);
    for (size_t i = 0; i < acc->map.count; i++) {
        const hp_pair_item *it = &acc->map.items[i];
        p->pairs[i] = (hp_pair_stat){it->k1, it->k2, it->v1};
    }
    p->npairs = acc->map.count;
    return 1;
}

static void release(hp_profile *p) { free(p->pairs); }
static size_t rows(const hp_profile *p) { return p->npairs; }
/* A timer profile has no hook counts: its empty table is left out. */
static int shown(const hp_profile *p, const hp_report_opts *o) { return !hp_profile_is_timer(p) || rows(p) > 0; }

uint64_t hp_profile_total_pairs(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->npairs; i++) s = hp_sat_add(s, p->pairs[i].count);
    return s;
}

/* ---- order ---- */

typedef struct order_ctx { const hp_profile *p; hp_sort_key key; char **names; } order_ctx;

static int cmp_pairs(const void *a, const void *b, void *arg)
{
    const order_ctx *c = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const hp_pair_stat *x = &c->p->pairs[i], *y = &c->p->pairs[j];
    int r = c->key == HP_SORT_NAME ? strcmp(c->names[i], c->names[j]) : 0;
    if (!r) r = hp_rt_cmp_desc(x->count, y->count);
    if (!r) r = hp_rt_cmp_asc(x->site, y->site);
    return r ? r : hp_rt_cmp_asc(x->callee, y->callee);
}

static uint64_t pair_caller(const hp_profile *p, size_t i) { return p->pairs[i].site ? p->pairs[i].site - 1 : 0; }

int hp_report_order_pairs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order)
{
    order_ctx c = {p, key, NULL};
    if (key == HP_SORT_NAME && !(c.names = hp_rt_names(s, p->npairs, pair_caller, p))) return -1;
    for (size_t i = 0; i < p->npairs; i++) order[i] = i;
    qsort_r(order, p->npairs, sizeof *order, cmp_pairs, &c);
    hp_rt_free_names(c.names, p->npairs);
    return 0;
}

/* ---- rows: the sites of one caller, callee and call-site line merged ---- */

/* One table row: the pairs whose caller, call-site file:line and callee print the same (copies of
 * one call site made by unrolling or peeling); `first` is the one with the lowest site. A pair
 * without a call-site line is a row of its own. */
typedef struct pair_row { size_t first; uint64_t count; size_t nsites; } pair_row;
typedef struct row_ctx { const hp_profile *p; char **keys; pair_row *rows; hp_sort_key key; char **names; } row_ctx;

static char *row_key(const hp_profile *p, hp_symbolizer *s, size_t i)
{
    hp_rt_sym caller, callee;
    char *key = NULL;
    hp_rt_describe_inline(s, pair_caller(p, i), &caller);
    hp_rt_describe(s, p->pairs[i].callee, &callee);
    if (caller.where[0]) {
        if (asprintf(&key, "%s\n%s\n%s", caller.name, caller.where, callee.name) < 0) key = NULL;
    } else if (asprintf(&key, "#%zu", i) < 0) {
        key = NULL;
    }
    return key;
}

/* Pairs of one caller function and callee (hp_sym_function_start: the symbol table only), by site:
 * only such a run of two or more can hold copies of one call site, so only their members are
 * symbolized for a key (file:line needs DWARF); every other pair is a row of its own. */
typedef struct group_ctx { const hp_profile *p; const uint64_t *fn; } group_ctx;

static int cmp_group(const void *a, const void *b, void *arg)
{
    const group_ctx *g = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int r = hp_rt_cmp_asc(g->fn[i], g->fn[j]);
    if (!r) r = hp_rt_cmp_asc(g->p->pairs[i].callee, g->p->pairs[j].callee);
    return r ? r : hp_rt_cmp_asc(g->p->pairs[i].site, g->p->pairs[j].site);
}

static int make_keys(const hp_profile *p, hp_symbolizer *s, char **keys)
{
    size_t n = p->npairs, *byg = NULL;
    uint64_t *fn = malloc((n + 1) * sizeof *fn);
    group_ctx g = {p, fn};
    int rc = -1;
    if (!fn) return -1;
    for (size_t i = 0; i < n; i++) fn[i] = hp_sym_function_start(s, pair_caller(p, i));
    if (!(byg = hp_rt_order(n, cmp_group, &g))) goto out;
    for (size_t k = 0, end; k < n; k = end) {
        for (end = k + 1; end < n && fn[byg[end]] == fn[byg[k]] && p->pairs[byg[end]].callee == p->pairs[byg[k]].callee;) end++;
        for (size_t m = k; m < end; m++) {
            size_t i = byg[m];
            if (end - k > 1 ? !(keys[i] = row_key(p, s, i)) : asprintf(&keys[i], "#%zu", i) < 0) goto out;
        }
    }
    rc = 0;
out:
    free(fn);
    free(byg);
    return rc;
}

static int cmp_keys(const void *a, const void *b, void *arg)
{
    const row_ctx *c = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int r = strcmp(c->keys[i], c->keys[j]);
    return r ? r : hp_rt_cmp_asc(c->p->pairs[i].site, c->p->pairs[j].site);
}

/* Runs of equal keys over byk (pairs sorted by key, then site) become rows; returns how many. */
static size_t fold_rows(const row_ctx *c, const size_t *byk, size_t n)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = byk[k];
        if (k && strcmp(c->keys[i], c->keys[byk[k - 1]]) == 0) {
            c->rows[m - 1].count = hp_sat_add(c->rows[m - 1].count, c->p->pairs[i].count);
            c->rows[m - 1].nsites++;
        } else {
            c->rows[m++] = (pair_row){i, c->p->pairs[i].count, 1};
        }
    }
    return m;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
    const row_ctx *c = arg;
    const pair_row *x = &c->rows[*(const size_t *)a], *y = &c->rows[*(const size_t *)b];
    const hp_pair_stat *px = &c->p->pairs[x->first], *py = &c->p->pairs[y->first];
    int r = c->key == HP_SORT_NAME ? strcmp(c->names[x->first], c->names[y->first]) : 0;
    if (!r) r = hp_rt_cmp_desc(x->count, y->count);
    if (!r) r = hp_rt_cmp_asc(px->site, py->site);
    return r ? r : hp_rt_cmp_asc(px->callee, py->callee);
}

/* The table's rows in report order (*order indexes *rows); 0, or -1 out of memory. */
static int merged_rows(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, pair_row **rows, size_t **order,
                       size_t *nrows)
{
    size_t n = p->npairs;
    row_ctx c = {p, calloc(n + 1, sizeof(char *)), malloc((n + 1) * sizeof(pair_row)), key, NULL};
    size_t *byk = NULL;
    int rc = -1;
    *order = NULL;
    if (!c.keys || make_keys(p, s, c.keys)) goto out;
    if ( !c.rows || !(byk = hp_rt_order(n, cmp_keys, &c))) goto out;
    *nrows = fold_rows(&c, byk, n);
    if (key == HP_SORT_NAME && !(c.names = hp_rt_names(s, n, pair_caller, p))) goto out;
    if (!(*order = hp_rt_order(*nrows, cmp_rows, &c))) goto out;
    *rows = c.rows, c.rows = NULL;
    rc = 0;
out:
    hp_rt_free_names(c.keys, n);
    hp_rt_free_names(c.names, n);
    free(c.rows);
    free(byk);
    return rc;
}

/* ---- text ---- */

typedef struct widths { int name, where; } widths;

static void text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const pair_row *row, uint64_t total,
                     const widths *w, const hp_report_opts *o)
{
    const hp_pair_stat *c = &p->pairs[row->first];
    hp_rt_sym caller, callee;
    char cell[32];
    hp_rt_describe_inline(s, pair_caller(p, row->first), &caller);
    hp_rt_describe(s, c->callee, &callee);
    fprintf(out, "%12s ", hp_rt_count_cell(cell, sizeof cell, p, CP, row->count));
    hp_rt_percent_cell(out, o, hp_rt_percent(row->count, total));
    fprintf(out, " %5zu  ", row->nsites);
    hp_rt_cell(out, caller.name, w->name);
    fputs("  ", out);
    hp_rt_cell(out, caller.where, w->where);
    fputs("  ", out);
    hp_rt_last_cell(out, callee.name, 0);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    pair_row *rows = NULL;
    size_t *order, nrows = 0;
    uint64_t total = hp_profile_total_pairs(p);
    widths w;
    char hd[24];
    if (merged_rows(p, s, o->sort, &rows, &order, &nrows)) return -1;
    size_t n = hp_rt_rows(nrows, o), *firsts = malloc((n + 1) * sizeof *firsts);
    if (!firsts) return free(rows), free(order), -1;
    for (size_t i = 0; i < n; i++) firsts[i] = rows[order[i]].first;
    hp_rt_widths(p, s, firsts, n, pair_caller, &w.name, &w.where);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot call pairs: %zu of %zu, by %s (sites: call instructions of one source line merged)",
                  n, nrows, o->sort == HP_SORT_NAME ? "caller name" : "count");
    fprintf(out, "%12s %6s %5s  %-*s  %-*s  %s\n", hp_rt_count_header(hd, sizeof hd, p, CP, "count"), "%", "sites",
            w.name, "caller", w.where, "call site", "callee");
    for (size_t i = 0; i < n; i++) text_row(out, p, s, &rows[order[i]], total, &w, o);
    if (!n) fprintf(out, "  (no call-pair counts in this profile)\n");
    free(firsts);
    free(rows);
    free(order);
    return 0;
}

static int text_totals(char *buf, size_t len, const hp_profile *p)
{
    return snprintf(buf, len, "%" PRIu64 " call-pair events", hp_profile_total_pairs(p));
}

/* ---- JSON ---- */

static void json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const pair_row *row, int first,
                     uint64_t total)
{
    const hp_pair_stat *c = &p->pairs[row->first];
    fprintf(out, "%s\n    {\"count\": ", first ? "" : ",");
    hp_rt_json_count(out, p, CP, row->count);
    fprintf(out, ", \"percent\": %.2f, \"site\": \"0x%" PRIx64 "\", \"sites\": %zu, ",
            hp_rt_percent(row->count, total), c->site, row->nsites);
    hp_rt_json_estimate(out, p, CP, row->count);
    hp_rt_json_symbol(out, s, "caller_", pair_caller(p, row->first));
    fputs(", ", out);
    hp_rt_json_symbol(out, s, "callee_", c->callee);
    fputs("}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    pair_row *rows = NULL;
    size_t *order, nrows = 0;
    uint64_t total = hp_profile_total_pairs(p);
    if (merged_rows(p, s, o->sort, &rows, &order, &nrows)) return -1;
    size_t n = hp_rt_rows(nrows, o);
    fputs("  \"call_pairs\": [", out);
    for (size_t i = 0; i < n; i++) json_row(out, p, s, &rows[order[i]], i == 0, total);
    fputs(n ? "\n  ]" : "]", out);
    free(rows);
    free(order);
    return 0;
}

static int json_totals(FILE *out, const hp_profile *p)
{
    fprintf(out, "\"call_pairs\": %" PRIu64, hp_profile_total_pairs(p));
    return 1;
}

/* ---- folded ---- */

static int folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    hp_fold f;
    int rc = 0;
    hp_fold_init(&f);
    for (size_t i = 0; i < p->npairs && !rc; i++) {
        hp_rt_sym caller, callee;
        hp_rt_describe(s, pair_caller(p, i), &caller);
        hp_rt_describe(s, p->pairs[i].callee, &callee);
        const char *frames[2] = {caller.name, callee.name};
        rc = hp_fold_add(&f, frames, 2, p->pairs[i].count);
    }
    if (!rc) rc = hp_fold_write(out, &f);
    hp_fold_free(&f);
    return rc;
}

/* ---- html ---- */

static void html_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const pair_row *row, uint64_t total)
{
    const hp_pair_stat *c = &p->pairs[row->first];
    hp_rt_sym caller, callee;
    char cell[32];
    hp_rt_describe_inline(s, pair_caller(p, row->first), &caller);
    hp_rt_describe(s, c->callee, &callee);
    fputs("<tr>", out);
    hp_html_td_num(out, hp_rt_count_cell(cell, sizeof cell, p, CP, row->count));
    snprintf(cell, sizeof cell, "%.1f", hp_rt_percent(row->count, total));
    hp_html_td_num(out, cell);
    snprintf(cell, sizeof cell, "%zu", row->nsites);
    hp_html_td_num(out, cell);
    hp_html_td(out, caller.name);
    hp_html_td(out, caller.where);
    hp_html_td(out, callee.name);
    fputs("</tr>\n", out);
}

/* The rows of the text table (sites of one source line merged), as an HTML table. */
static int html(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    pair_row *rows = NULL;
    size_t *order, nrows = 0;
    uint64_t total = hp_profile_total_pairs(p);
    char title[128], hd[24];
    if (merged_rows(p, s, o->sort, &rows, &order, &nrows)) return -1;
    size_t n = hp_rt_rows(nrows, o);
    snprintf(title, sizeof title, "Hot call pairs: %zu of %zu, by %s", n, nrows,
             o->sort == HP_SORT_NAME ? "caller name" : "count");
    hp_html_heading(out, title);
    const char *cols[] = {hp_rt_count_header(hd, sizeof hd, p, CP, "count"), "%", "sites", "caller", "call site", "callee"};
    hp_html_table_head(out, cols, 6);
    for (size_t i = 0; i < n; i++) html_row(out, p, s, &rows[order[i]], total);
    hp_html_table_end(out);
    if (!n) fputs("<p>(no call-pair counts in this profile)</p>\n", out);
    free(rows);
    free(order);
    return 0;
}

/* Every pair as a caller -> callee edge (recorded counts: the icicle uses them as shares). */
static int graph(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s)
{
    for (size_t i = 0; i < p->npairs; i++) {
        hp_rt_sym caller, callee;
        hp_rt_describe(s, pair_caller(p, i), &caller);
        hp_rt_describe(s, p->pairs[i].callee, &callee);
        if (hp_cg_add_call(g, caller.name, callee.name, p->pairs[i].count)) return -1;
    }
    return 0;
}

/* ---- pprof: two-frame stacks, callee (leaf) then caller at site - 1, value calls ---- */

static int pprof(hp_pprof_export *x)
{
    const hp_profile *p = x->p;
    if (hp_pprof_sample_type(x->b, "calls", "count") || hp_pprof_export_sampling(x, CP, "calls")) return -1;
    for (size_t i = 0; i < p->npairs; i++) {
        uint64_t locs[2] = {hp_pprof_export_location(x, p->pairs[i].callee), hp_pprof_export_location(x, pair_caller(p, i))};
        int64_t v = hp_pprof_value(p->pairs[i].count);
        if (!locs[0] || !locs[1] || hp_pprof_sample(x->b, locs, 2, &v, 1)) return -1;
    }
    return 0;
}

/* ---- diff ---- */

static int diff_rows(hp_fold *rows, const hp_profile *p, hp_symbolizer *s)
{
    for (size_t i = 0; i < p->npairs; i++) {
        char caller[512], callee[512];
        hp_rt_portable_name(p, s, pair_caller(p, i), caller, sizeof caller);
        hp_rt_portable_name(p, s, p->pairs[i].callee, callee, sizeof callee);
        const char *frames[2] = {caller, callee};
        if (hp_fold_add(rows, frames, 2, p->pairs[i].count)) return -1;
    }
    return 0;
}

/* ---- compare ---- */

static void collect(const hp_profile *p, hp_cmp_sink *s)
{
    for (size_t i = 0; i < p->npairs; i++) {
        const hp_pair_stat *c = &p->pairs[i];
        int m1, m2;
        uint64_t site = hp_cmp_addr_key(p, c->site, &m1), callee = hp_cmp_addr_key(p, c->callee, &m2);
        hp_cmp_sink_add(s, hp_cmp_pair_key(TAG_PAIR, site, callee), c->count, m1 && m2);
    }
}

/* ---- merge ---- */

static int merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->npairs; k++) {
        const hp_pair_stat *c = &p->pairs[k];
        uint64_t site = hp_merge_return_addr(m, i, c->site), callee = hp_merge_addr(m, i, c->callee);
        if (hp_merge_accumulate(m, &acc->map, site, callee, c->count, 0)) return -1;
    }
    return 0;
}

static int merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_rec_callpair *r = calloc(acc->map.count + 1, sizeof *r);
    if (!r) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++)
        r[k] = (hp_rec_callpair){acc->map.items[k].k1, acc->map.items[k].k2, acc->map.items[k].v1};
    if (acc->map.count) hp_pbuild_callpairs(b, r, acc->map.count);
    free(r);
    return 0;
}

static uint64_t name_key(const hp_profile *p, hp_symbolizer *s, uint64_t addr)
{
    char name[512];
    hp_rt_portable_name(p, s, addr, name, sizeof name);
    return hp_cmp_name_key(TAG_PAIR, name);
}

/* Across builds: a pair by caller and callee name (the sites of one caller and callee are one). */
static void collect_named(const hp_profile *p, hp_symbolizer *s, hp_cmp_sink *k)
{
    for (size_t i = 0; i < p->npairs; i++) {
        const hp_pair_stat *c = &p->pairs[i];
        int mapped = hp_profile_module_at(p, c->site) && hp_profile_module_at(p, c->callee);
        uint64_t key = hp_cmp_pair_key(TAG_PAIR, name_key(p, s, pair_caller(p, i)), name_key(p, s, c->callee));
        hp_cmp_sink_add(k, key, c->count, mapped);
    }
}

static const hp_cmp_view views[] = {{"call_pairs", "call pairs", 2, rows, collect, collect_named, 1}};

/* `hotprof top`: "caller → callee" (the caller: the function holding the call site). */
static void live_text(char *buf, size_t n, const hp_live_shm_row *r, hp_symbolizer *s)
{
    char caller[512], callee[512];
    hp_sym_name(hp_sym_lookup(s, r->key2 ? r->key2 - 1 : 0), caller, sizeof caller);
    hp_sym_name(hp_sym_lookup(s, r->key), callee, sizeof callee);
    snprintf(buf, n, "%s → %s", caller, callee);
}

const hp_aptype hp_aptype_callpairs = {
    .id = HP_PT_CALLPAIRS,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = shown,
    .text = text,
    .json = json,
    .text_totals = text_totals,
    .json_totals = json_totals,
    .distinct = "call pairs",
    .views = views,
    .nviews = 1,
    .folded = folded,
    .pprof = pprof,
    .diff_rows = diff_rows,
    .fold_rank = 2,
    .merge_add = merge_add,
    .merge_write = merge_write,
    .html = html,
    .graph = graph,
    .live_text = live_text,
};

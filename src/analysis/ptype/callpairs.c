/* callpairs.c — the callpairs profile type on the analysis side (aptype.h): CALLPAIRS records
 * summed by (call site, callee) into p->pairs; the "Hot call pairs" table (by count, or by caller
 * name; ties by site then callee; the caller and the call-site line are looked up at site - 1,
 * the site being a return address); its total; the "call_pairs" compare view; and its folded
 * stacks, `caller;callee count` (two frames, weight calls: they sum to the call-pair events; pairs
 * of one caller and callee through several sites are one stack; the default fold); its HTML table,
 * and its pairs as the caller -> callee edges of the HTML report's call graph (html/callgraph.h);
 * its pprof samples (callee, caller: leaf first; value calls).
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

static size_t *ordered(const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = malloc((p->npairs + 1) * sizeof *order);
    if (order && hp_report_order_pairs(p, s, o->sort, order)) free(order), order = NULL;
    return order;
}

/* ---- text ---- */

typedef struct widths { int name, where, callee; } widths;

static void text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, size_t i, uint64_t total, const widths *w)
{
    const hp_pair_stat *c = &p->pairs[i];
    hp_rt_sym caller, callee;
    char cell[32];
    hp_rt_describe(s, pair_caller(p, i), &caller);
    hp_rt_describe(s, c->callee, &callee);
    fprintf(out, "%12s %5.1f%%  ", hp_rt_count_cell(cell, sizeof cell, p, CP, c->count), hp_rt_percent(c->count, total));
    hp_rt_cell(out, caller.name, w->name);
    fputs("  ", out);
    hp_rt_cell(out, caller.where, w->where);
    fputs("  ", out);
    hp_rt_last_cell(out, callee.name, w->callee);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->npairs, o);
    uint64_t total = hp_profile_total_pairs(p);
    widths w;
    char hd[24];
    if (!order) return -1;
    hp_rt_widths(p, s, order, n, pair_caller, 21 + 2 + 24, &w.name, &w.where); /* 24: room for the callee */
    w.callee = HP_RT_LINE_COLS - 21 - w.name - 2 - w.where - 2;
    fprintf(out, "\nHot call pairs: %zu of %zu, by %s\n", n, p->npairs,
            o->sort == HP_SORT_NAME ? "caller name" : "count");
    fprintf(out, "%12s %6s  %-*s  %-*s  %s\n", hp_rt_count_header(hd, sizeof hd, p, CP, "count"), "%", w.name,
            "caller", w.where, "call site", "callee");
    for (size_t i = 0; i < n; i++) text_row(out, p, s, order[i], total, &w);
    if (!n) fprintf(out, "  (no call-pair counts in this profile)\n");
    free(order);
    return 0;
}

static int text_totals(char *buf, size_t len, const hp_profile *p)
{
    return snprintf(buf, len, "%" PRIu64 " call-pair events", hp_profile_total_pairs(p));
}

/* ---- JSON ---- */

static void json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, size_t i, int first, uint64_t total)
{
    const hp_pair_stat *c = &p->pairs[i];
    fprintf(out, "%s\n    {\"count\": ", first ? "" : ",");
    hp_rt_json_count(out, p, CP, c->count);
    fprintf(out, ", \"percent\": %.2f, \"site\": \"0x%" PRIx64 "\", ", hp_rt_percent(c->count, total), c->site);
    hp_rt_json_estimate(out, p, CP, c->count);
    hp_rt_json_symbol(out, s, "caller_", pair_caller(p, i));
    fputs(", ", out);
    hp_rt_json_symbol(out, s, "callee_", c->callee);
    fputs("}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->npairs, o);
    uint64_t total = hp_profile_total_pairs(p);
    if (!order) return -1;
    fputs("  \"call_pairs\": [", out);
    for (size_t i = 0; i < n; i++) json_row(out, p, s, order[i], i == 0, total);
    fputs(n ? "\n  ]" : "]", out);
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

static void html_row(FILE *out, const hp_profile *p, hp_symbolizer *s, size_t i, uint64_t total)
{
    const hp_pair_stat *c = &p->pairs[i];
    hp_rt_sym caller, callee;
    char cell[32];
    hp_rt_describe(s, pair_caller(p, i), &caller);
    hp_rt_describe(s, c->callee, &callee);
    fputs("<tr>", out);
    hp_html_td_num(out, hp_rt_count_cell(cell, sizeof cell, p, CP, c->count));
    snprintf(cell, sizeof cell, "%.1f", hp_rt_percent(c->count, total));
    hp_html_td_num(out, cell);
    hp_html_td(out, caller.name);
    hp_html_td(out, caller.where);
    hp_html_td(out, callee.name);
    fputs("</tr>\n", out);
}

static int html(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->npairs, o);
    uint64_t total = hp_profile_total_pairs(p);
    char title[96], hd[24];
    if (!order) return -1;
    snprintf(title, sizeof title, "Hot call pairs: %zu of %zu, by %s", n, p->npairs,
             o->sort == HP_SORT_NAME ? "caller name" : "count");
    hp_html_heading(out, title);
    const char *cols[] = {hp_rt_count_header(hd, sizeof hd, p, CP, "count"), "%", "caller", "call site", "callee"};
    hp_html_table_head(out, cols, 5);
    for (size_t i = 0; i < n; i++) html_row(out, p, s, order[i], total);
    hp_html_table_end(out);
    if (!n) fputs("<p>(no call-pair counts in this profile)</p>\n", out);
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

static const hp_cmp_view views[] = {{"call_pairs", "call pairs", 2, rows, collect}};

const hp_aptype hp_aptype_callpairs = {
    .id = HP_PT_CALLPAIRS,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
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
};

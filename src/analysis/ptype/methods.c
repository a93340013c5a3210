/* methods.c — the methods profile type on the analysis side (aptype.h): FUNCS records summed by
 * function address into p->funcs (calls, back-edges); the "Hot methods" table (heat = calls +
 * back-edges, the HPS measure; sorted by heat, calls, back-edges or name, ties by address); its
 * totals; two compare views, "methods" (heat) and "calls"; and its folded stacks (one frame per
 * function, weight heat: they sum to calls + back-edges; the default fold when there are no pairs);
 * its HTML table, and its functions' heat as the self weights of the HTML report's call graph;
 * its pprof samples (one frame, values calls and heat).
 * Invariants: p->funcs holds one entry per distinct address; counts saturate at UINT64_MAX.
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

#define M HP_BURSTY_METHODS /* the HPS type its counts are sampled under */
#define TAG_FUNC 0x66756e6374696f6eull /* compare name-key tag */

/* ---- reader ---- */

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    const uint8_t *in = hp_rd_payload(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_FUNC_SIZE) {
        hp_rec_func f;
        hp_fmt_get_func(in + off, &f);
        if (!hp_rd_accumulate(r, &acc->map, f.addr, 0, f.calls, f.backedges)) return 0;
    }
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    p->funcs = calloc(acc->map.count + 1, sizeof *p->funcs);
    if (!p->funcs) return hp_rd_oom(r);
    for (size_t i = 0; i < acc->map.count; i++) {
        const hp_pair_item *it = &acc->map.items[i];
        p->funcs[i] = (hp_func_stat){it->k1, it->v1, it->v2};
    }
    p->nfuncs = acc->map.count;
    return 1;
}

static void release(hp_profile *p) { free(p->funcs); }
static size_t rows(const hp_profile *p) { return p->nfuncs; }
/* A timer profile has no hook counts: its empty table is left out. */
static int shown(const hp_profile *p, const hp_report_opts *o) { return !hp_profile_is_timer(p) || rows(p) > 0; }

uint64_t hp_profile_total_calls(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->nfuncs; i++) s = hp_sat_add(s, p->funcs[i].calls);
    return s;
}

uint64_t hp_profile_total_backedges(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->nfuncs; i++) s = hp_sat_add(s, p->funcs[i].backedges);
    return s;
}

/* ---- order ---- */

typedef struct order_ctx { const hp_profile *p; hp_sort_key key; char **names; } order_ctx;

static uint64_t heat_of(const hp_func_stat *f) { return hp_sat_add(f->calls, f->backedges); }

static int cmp_funcs(const void *a, const void *b, void *arg)
{
    const order_ctx *c = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const hp_func_stat *f = &c->p->funcs[i], *g = &c->p->funcs[j];
    int r = 0;
    switch (c->key) {
    case HP_SORT_HEAT: r = hp_rt_cmp_desc(heat_of(f), heat_of(g)); break;
    case HP_SORT_CALLS: r = hp_rt_cmp_desc(f->calls, g->calls); break;
    case HP_SORT_BACKEDGES: r = hp_rt_cmp_desc(f->backedges, g->backedges); break;
    case HP_SORT_NAME: r = strcmp(c->names[i], c->names[j]); break;
    }
    if (!r && c->key != HP_SORT_HEAT) r = hp_rt_cmp_desc(heat_of(f), heat_of(g));
    return r ? r : hp_rt_cmp_asc(f->addr, g->addr);
}

static uint64_t func_addr(const hp_profile *p, size_t i) { return p->funcs[i].addr; }

int hp_report_order_funcs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order)
{
    order_ctx c = {p, key, NULL};
    if (key == HP_SORT_NAME && !(c.names = hp_rt_names(s, p->nfuncs, func_addr, p))) return -1;
    for (size_t i = 0; i < p->nfuncs; i++) order[i] = i;
    qsort_r(order, p->nfuncs, sizeof *order, cmp_funcs, &c);
    hp_rt_free_names(c.names, p->nfuncs);
    return 0;
}

static size_t *ordered(const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = malloc((p->nfuncs + 1) * sizeof *order);
    if (order && hp_report_order_funcs(p, s, o->sort, order)) free(order), order = NULL;
    return order;
}

/* ---- text ---- */

static void text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_func_stat *f, size_t rank,
                     uint64_t total, int wname, int wwhere, const hp_report_opts *o)
{
    char c1[32], c2[32], c3[32];
    hp_rt_sym r;
    hp_rt_describe(s, f->addr, &r);
    fprintf(out, "%4zu %12s ", rank, hp_rt_count_cell(c1, sizeof c1, p, M, heat_of(f)));
    hp_rt_percent_cell(out, o, hp_rt_percent(heat_of(f), total));
    fprintf(out, " %12s %10s  ", hp_rt_count_cell(c2, sizeof c2, p, M, f->calls),
            hp_rt_count_cell(c3, sizeof c3, p, M, f->backedges));
    hp_rt_cell(out, r.name, wname);
    fputs("  ", out);
    hp_rt_last_cell(out, r.where, wwhere);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    static const char *const by[] = {"heat", "calls", "back-edges", "name"};
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->nfuncs, o);
    uint64_t total = hp_sat_add(hp_profile_total_calls(p), hp_profile_total_backedges(p));
    int wname, wwhere;
    char h1[24], h2[24];
    if (!order) return -1;
    hp_rt_widths(p, s, order, n, func_addr, &wname, &wwhere);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot methods (heat = calls + back-edges): %zu of %zu, by %s", n, p->nfuncs, by[o->sort]);
    fprintf(out, "%4s %12s %6s %12s %10s  %-*s  %s\n", "rank", hp_rt_count_header(h1, sizeof h1, p, M, "heat"), "%",
            hp_rt_count_header(h2, sizeof h2, p, M, "calls"), hp_rt_estimated(p, M) ? "est.b-edge" : "back-edges",
            wname, "function", "file:line");
    for (size_t i = 0; i < n; i++) text_row(out, p, s, &p->funcs[order[i]], i + 1, total, wname, wwhere, o);
    if (!n) fprintf(out, "  (no method counts in this profile)\n");
    free(order);
    return 0;
}

static int text_totals(char *buf, size_t len, const hp_profile *p)
{
    return snprintf(buf, len, "%" PRIu64 " calls, %" PRIu64 " back-edges", hp_profile_total_calls(p),
                    hp_profile_total_backedges(p));
}

/* ---- JSON ---- */

static void json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_func_stat *f, size_t rank,
                     uint64_t total)
{
    fprintf(out, "%s\n    {\"rank\": %zu, \"heat\": ", rank > 1 ? "," : "", rank);
    hp_rt_json_count(out, p, M, heat_of(f));
    fprintf(out, ", \"percent\": %.2f, \"calls\": ", hp_rt_percent(heat_of(f), total));
    hp_rt_json_count(out, p, M, f->calls);
    fputs(", \"backedges\": ", out);
    hp_rt_json_count(out, p, M, f->backedges);
    fputs(", ", out);
    hp_rt_json_estimate(out, p, M, heat_of(f));
    hp_rt_json_symbol(out, s, "", f->addr);
    fputs("}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->nfuncs, o);
    uint64_t total = hp_sat_add(hp_profile_total_calls(p), hp_profile_total_backedges(p));
    if (!order) return -1;
    fputs("  \"methods\": [", out);
    for (size_t i = 0; i < n; i++) json_row(out, p, s, &p->funcs[order[i]], i + 1, total);
    fputs(n ? "\n  ]" : "]", out);
    free(order);
    return 0;
}

static int json_totals(FILE *out, const hp_profile *p)
{
    fprintf(out, "\"calls\": %" PRIu64 ", \"backedges\": %" PRIu64, hp_profile_total_calls(p),
            hp_profile_total_backedges(p));
    return 1;
}

/* ---- folded ---- */

static int folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    hp_fold f;
    int rc = 0;
    hp_fold_init(&f);
    for (size_t i = 0; i < p->nfuncs && !rc; i++) {
        hp_rt_sym r;
        hp_rt_describe(s, p->funcs[i].addr, &r);
        const char *frames[1] = {r.name};
        rc = hp_fold_add(&f, frames, 1, heat_of(&p->funcs[i]));
    }
    if (!rc) rc = hp_fold_write(out, &f);
    hp_fold_free(&f);
    return rc;
}

/* ---- html ---- */

static void html_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_func_stat *f, size_t rank,
                     uint64_t total)
{
    char c[32];
    hp_rt_sym r;
    hp_rt_describe(s, f->addr, &r);
    fprintf(out, "<tr><td class=\"n\">%zu</td>", rank);
    hp_html_td_num(out, hp_rt_count_cell(c, sizeof c, p, M, heat_of(f)));
    snprintf(c, sizeof c, "%.1f", hp_rt_percent(heat_of(f), total));
    hp_html_td_num(out, c);
    hp_html_td_num(out, hp_rt_count_cell(c, sizeof c, p, M, f->calls));
    hp_html_td_num(out, hp_rt_count_cell(c, sizeof c, p, M, f->backedges));
    hp_html_td(out, r.name);
    hp_html_td(out, r.where);
    fputs("</tr>\n", out);
}

static int html(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    static const char *const by[] = {"heat", "calls", "back-edges", "name"};
    size_t *order = ordered(p, s, o), n = hp_rt_rows(p->nfuncs, o);
    uint64_t total = hp_sat_add(hp_profile_total_calls(p), hp_profile_total_backedges(p));
    char title[128], h1[24], h2[24];
    if (!order) return -1;
    snprintf(title, sizeof title, "Hot methods (heat = calls + back-edges): %zu of %zu, by %s", n, p->nfuncs,
             by[o->sort]);
    hp_html_heading(out, title);
    const char *cols[] = {"rank", hp_rt_count_header(h1, sizeof h1, p, M, "heat"), "%",
                          hp_rt_count_header(h2, sizeof h2, p, M, "calls"),
                          hp_rt_estimated(p, M) ? "est.back-edges" : "back-edges", "function", "file:line"};
    hp_html_table_head(out, cols, 7);
    for (size_t i = 0; i < n; i++) html_row(out, p, s, &p->funcs[order[i]], i + 1, total);
    hp_html_table_end(out);
    if (!n) fputs("<p>(no method counts in this profile)</p>\n", out);
    free(order);
    return 0;
}

/* Self weight of each function: its heat (recorded counts; the icicle's shares are scale-free). */
static int graph(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        hp_rt_sym r;
        hp_rt_describe(s, p->funcs[i].addr, &r);
        if (hp_cg_add_self(g, r.name, heat_of(&p->funcs[i]))) return -1;
    }
    return 0;
}

/* ---- pprof: one-frame stacks, values calls and heat (the default) ---- */

static int pprof(hp_pprof_export *x)
{
    const hp_profile *p = x->p;
    if (hp_pprof_sample_type(x->b, "calls", "count") || hp_pprof_sample_type(x->b, "heat", "count") ||
        hp_pprof_default_type(x->b, "heat") || hp_pprof_export_sampling(x, M, "calls"))
        return -1;
    for (size_t i = 0; i < p->nfuncs; i++) {
        const hp_func_stat *f = &p->funcs[i];
        uint64_t loc = hp_pprof_export_location(x, f->addr);
        int64_t v[2] = {hp_pprof_value(f->calls), hp_pprof_value(heat_of(f))};
        if (!loc || hp_pprof_sample(x->b, &loc, 1, v, 2)) return -1;
    }
    return 0;
}

/* ---- diff ---- */

static int diff_rows(hp_fold *rows, const hp_profile *p, hp_symbolizer *s)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        char name[512];
        hp_rt_portable_name(p, s, p->funcs[i].addr, name, sizeof name);
        const char *frames[1] = {name};
        if (hp_fold_add(rows, frames, 1, heat_of(&p->funcs[i]))) return -1;
    }
    return 0;
}

/* ---- compare ---- */

static void collect(const hp_profile *p, hp_cmp_sink *s, int heat)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        const hp_func_stat *f = &p->funcs[i];
        int mapped;
        uint64_t key = hp_cmp_addr_key(p, f->addr, &mapped);
        hp_cmp_sink_add(s, key, heat ? heat_of(f) : f->calls, mapped);
    }
}

static void collect_heat(const hp_profile *p, hp_cmp_sink *s) { collect(p, s, 1); }
static void collect_calls(const hp_profile *p, hp_cmp_sink *s) { collect(p, s, 0); }

/* Across builds: by function name (hp_rt_portable_name). */
static void collect_named(const hp_profile *p, hp_symbolizer *sym, hp_cmp_sink *s, int heat)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        const hp_func_stat *f = &p->funcs[i];
        char name[512];
        hp_rt_portable_name(p, sym, f->addr, name, sizeof name);
        hp_cmp_sink_add(s, hp_cmp_name_key(TAG_FUNC, name), heat ? heat_of(f) : f->calls,
                        hp_profile_module_at(p, f->addr) != NULL);
    }
}

static void named_heat(const hp_profile *p, hp_symbolizer *sym, hp_cmp_sink *s) { collect_named(p, sym, s, 1); }
static void named_calls(const hp_profile *p, hp_symbolizer *sym, hp_cmp_sink *s) { collect_named(p, sym, s, 0); }

/* ---- merge ---- */

static int merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->nfuncs; k++) {
        const hp_func_stat *f = &p->funcs[k];
        if (hp_merge_accumulate(m, &acc->map, hp_merge_addr(m, i, f->addr), 0, f->calls, f->backedges)) return -1;
    }
    return 0;
}

static int merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_rec_func *r = calloc(acc->map.count + 1, sizeof *r);
    if (!r) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++)
        r[k] = (hp_rec_func){acc->map.items[k].k1, acc->map.items[k].v1, acc->map.items[k].v2};
    if (acc->map.count) hp_pbuild_funcs(b, r, acc->map.count);
    free(r);
    return 0;
}

static const hp_cmp_view views[] = {
    {"methods", "methods (heat)", 0, rows, collect_heat, named_heat, 0},
    {"calls", "methods (calls)", 1, rows, collect_calls, named_calls, 0},
};

/* `hotprof top`: the function's name. */
static void live_text(char *buf, size_t n, const hp_live_shm_row *r, hp_symbolizer *s)
{
    hp_sym_name(hp_sym_lookup(s, r->key), buf, n);
}

const hp_aptype hp_aptype_methods = {
    .id = HP_PT_METHODS,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = shown,
    .text = text,
    .json = json,
    .text_totals = text_totals,
    .json_totals = json_totals,
    .distinct = "functions",
    .json_distinct = "functions",
    .views = views,
    .nviews = 2,
    .folded = folded,
    .pprof = pprof,
    .diff_rows = diff_rows,
    .fold_rank = 1,
    .merge_add = merge_add,
    .merge_write = merge_write,
    .html = html,
    .graph = graph,
    .live_text = live_text,
};

/* edges.c — the edges profile type on the analysis side (aptype.h): EDGES records summed by
 * (from guard, to guard) into p->edges, resolved through the block map (`mapped` = 1 only when
 * both guards are known); the "Hot edges" table of `report --edges` (by count, ties by from then
 * to); its total; and the "edges" compare view (keyed by both block keys).
 * Invariants: p->edges holds one entry per distinct (from, to); counts saturate.
 */
#define _GNU_SOURCE
#include "analysis/ptype/aptype.h"
#include "analysis/merge/merge.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include <inttypes.h>
#include <stdlib.h>

#define E HP_BURSTY_EDGES /* the HPS type its counts are sampled under */
#define TAG_EDGE 0x65646765732d2d2dull /* compare key tag */

/* ---- reader ---- */

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    const uint8_t *in = hp_rd_payload(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_EDGE_SIZE) {
        hp_rec_edge e;
        hp_fmt_get_edge(in + off, &e);
        if (!hp_rd_accumulate(r, &acc->map, e.from, e.to, e.count, 0)) return 0;
    }
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    p->edges = calloc(acc->map.count + 1, sizeof *p->edges);
    if (!p->edges) return hp_rd_oom(r);
    for (size_t i = 0; i < acc->map.count; i++) {
        const hp_pair_item *it = &acc->map.items[i];
        const hp_pair_item *from = hp_pairmap_find(&r->blockmap, it->k1, 0);
        const hp_pair_item *to = hp_pairmap_find(&r->blockmap, it->k2, 0);
        p->edges[i] = (hp_edge_stat){(uint32_t)it->k1, (uint32_t)it->k2, from && to,
                                     from ? from->v1 : 0, to ? to->v1 : 0, it->v1};
    }
    p->nedges = acc->map.count;
    return 1;
}

static void release(hp_profile *p) { free(p->edges); }
static size_t rows(const hp_profile *p) { return p->nedges; }

uint64_t hp_profile_total_edges(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->nedges; i++) s = hp_sat_add(s, p->edges[i].count);
    return s;
}

/* ---- report ---- */

static int cmp_edges(const void *a, const void *b, void *arg)
{
    const hp_profile *p = arg;
    const hp_edge_stat *x = &p->edges[*(const size_t *)a], *y = &p->edges[*(const size_t *)b];
    int r = hp_rt_cmp_desc(x->count, y->count);
    if (!r) r = hp_rt_cmp_asc(x->from, y->from);
    return r ? r : hp_rt_cmp_asc(x->to, y->to);
}

static size_t *ordered(const hp_profile *p) { return hp_rt_order(p->nedges, cmp_edges, (void *)p); }
static uint64_t edge_from_pc(const hp_profile *p, size_t i) { return p->edges[i].from_pc; }
static int wanted(const hp_report_opts *o) { return o->edges; }

static void text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_edge_stat *e, uint64_t total,
                     int wname, int wwhere, const hp_report_opts *o)
{
    hp_rt_sym r = {.name = "?", .where = ""};
    char fromto[64], cell[32];
    if (e->mapped) {
        hp_rt_describe_inline(s, e->from_pc, &r);
        snprintf(fromto, sizeof fromto, "0x%" PRIx64 " -> 0x%" PRIx64, e->from_pc, e->to_pc);
    } else {
        snprintf(fromto, sizeof fromto, "guard %" PRIu32 " -> %" PRIu32, e->from, e->to);
    }
    fprintf(out, "%12s ", hp_rt_count_cell(cell, sizeof cell, p, E, e->count));
    hp_rt_percent_cell(out, o, hp_rt_percent(e->count, total));
    fprintf(out, "  %-32s  ", fromto);
    hp_rt_cell(out, r.name, wname);
    fputs("  ", out);
    hp_rt_last_cell(out, r.where, wwhere);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p), n = hp_rt_rows(p->nedges, o);
    uint64_t total = hp_profile_total_edges(p);
    int wname, wwhere;
    char hd[24];
    if (!order) return -1;
    hp_rt_widths(p, s, order, n, edge_from_pc, &wname, &wwhere);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot edges: %zu of %zu, by count", n, p->nedges);
    fprintf(out, "%12s %6s  %-32s  %-*s  %s\n", hp_rt_count_header(hd, sizeof hd, p, E, "count"), "%", "from -> to",
            wname, "function", "file:line (from)");
    for (size_t i = 0; i < n; i++) text_row(out, p, s, &p->edges[order[i]], total, wname, wwhere, o);
    if (!n) fprintf(out, "  (no edge counts in this profile)\n");
    free(order);
    return 0;
}

static void json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_edge_stat *e, int first,
                     uint64_t total)
{
    fprintf(out, "%s\n    {\"count\": ", first ? "" : ",");
    hp_rt_json_count(out, p, E, e->count);
    fprintf(out, ", \"percent\": %.2f, ", hp_rt_percent(e->count, total));
    hp_rt_json_estimate(out, p, E, e->count);
    fprintf(out, "\"from_guard\": %" PRIu32 ", \"to_guard\": %" PRIu32, e->from, e->to);
    if (e->mapped) {
        fprintf(out, ", \"to_addr\": \"0x%" PRIx64 "\", ", e->to_pc);
        hp_rt_json_symbol(out, s, "from_", e->from_pc);
    }
    fputs("}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p), n = hp_rt_rows(p->nedges, o);
    uint64_t total = hp_profile_total_edges(p);
    if (!order) return -1;
    fputs("  \"edges\": [", out);
    for (size_t i = 0; i < n; i++) json_row(out, p, s, &p->edges[order[i]], i == 0, total);
    fputs(n ? "\n  ]" : "]", out);
    free(order);
    return 0;
}

static int json_totals(FILE *out, const hp_profile *p)
{
    fprintf(out, "\"edges\": %" PRIu64, hp_profile_total_edges(p));
    return 1;
}

/* ---- compare ---- */

static void collect(const hp_profile *p, hp_cmp_sink *s)
{
    for (size_t i = 0; i < p->nedges; i++) {
        const hp_edge_stat *e = &p->edges[i];
        int m1, m2;
        uint64_t from = hp_cmp_block_key(p, e->mapped, e->from, e->from_pc, &m1);
        uint64_t to = hp_cmp_block_key(p, e->mapped, e->to, e->to_pc, &m2);
        hp_cmp_sink_add(s, hp_cmp_pair_key(TAG_EDGE, from, to), e->count, m1 && m2);
    }
}

static const hp_cmp_view views[] = {{"edges", "edges", 3, rows, collect, NULL, 0}};
/* ---- merge ---- */

static int merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->nedges; k++) {
        const hp_edge_stat *e = &p->edges[k];
        uint32_t from, to; /* a guard's pc is known when it is not 0 (also when the other's is not) */
        if (hp_merge_guard(m, i, e->from, e->from_pc != 0, e->from_pc, 0, &from)) return -1;
        if (hp_merge_guard(m, i, e->to, e->to_pc != 0, e->to_pc, 0, &to)) return -1;
        if (hp_merge_accumulate(m, &acc->map, from, to, e->count, 0)) return -1;
    }
    return 0;
}

static int merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_rec_edge *r = calloc(acc->map.count + 1, sizeof *r);
    if (!r) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++)
        r[k] = (hp_rec_edge){(uint32_t)acc->map.items[k].k1, (uint32_t)acc->map.items[k].k2, acc->map.items[k].v1};
    if (acc->map.count) hp_pbuild_edges(b, r, acc->map.count);
    free(r);
    return 0;
}

const hp_aptype hp_aptype_edges = {
    .id = HP_PT_EDGES,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
    .wanted = wanted,
    .text = text,
    .json = json,
    .json_totals = json_totals,
    .distinct = "edges",
    .views = views,
    .nviews = 1,
    .merge_add = merge_add,
    .merge_write = merge_write,
};

/* blocks.c — the blocks profile type on the analysis side (aptype.h): BLOCKS records summed by
 * guard id into p->blocks, each resolved through the file's block map (pc, flags; `mapped` = 0
 * for a guard the map does not know); the "Hot blocks" table of `report --blocks` (by count, ties
 * by guard); its total; the "blocks" compare view (keyed by pc, or by guard when unmapped); and its
 * folded stacks, `function;file:line count` (blocks of one line are one stack; a block without
 * a line is `function;0xPC`, one the map does not know `[unmapped];guard_N`; they sum to the
 * blocks' total; only on request: --type blocks); its pprof samples (one frame per block, at its
 * pc: function and line; value count).
 * Blocks are recorded by the edge hooks, so a bursty profile scales them with the edges' frequency.
 * finish also keeps every pc of the block map (executed blocks or not) in p->block_pcs, sorted,
 * for `hotprof annotate --asm` (analysis/annotate/): where each block starts.
 * Invariants: p->blocks holds one entry per distinct guard; counts saturate.
 */
#define _GNU_SOURCE
#include "analysis/folded.h"
#include "analysis/ptype/aptype.h"
#include "analysis/merge/merge.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include <inttypes.h>
#include <stdlib.h>

#define E HP_BURSTY_EDGES /* the HPS type its counts are sampled under */

/* ---- reader ---- */

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    const uint8_t *in = hp_rd_payload(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_COUNT_SIZE) {
        hp_rec_count c;
        hp_fmt_get_count(in + off, &c);
        if (!hp_rd_accumulate(r, &acc->map, c.guard, 0, c.count, 0)) return 0;
    }
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* p->block_pcs: the pcs of the block map, sorted and unique. 0 if out of memory. */
static int keep_block_pcs(hp_reader *r)
{
    hp_profile *p = r->p;
    size_t n = 0;
    p->block_pcs = malloc((r->blockmap.count + 1) * sizeof *p->block_pcs);
    if (!p->block_pcs) return 0;
    for (size_t i = 0; i < r->blockmap.count; i++) p->block_pcs[i] = r->blockmap.items[i].v1;
    if (r->blockmap.count) qsort(p->block_pcs, r->blockmap.count, sizeof *p->block_pcs, cmp_u64);
    for (size_t i = 0; i < r->blockmap.count; i++)
        if (n == 0 || p->block_pcs[n - 1] != p->block_pcs[i]) p->block_pcs[n++] = p->block_pcs[i];
    p->nblock_pcs = n;
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    if (!keep_block_pcs(r)) return hp_rd_oom(r);
    hp_profile *p = r->p;
    p->blocks = calloc(acc->map.count + 1, sizeof *p->blocks);
    if (!p->blocks) return hp_rd_oom(r);
    for (size_t i = 0; i < acc->map.count; i++) {
        const hp_pair_item *it = &acc->map.items[i];
        const hp_pair_item *map = hp_pairmap_find(&r->blockmap, it->k1, 0);
        p->blocks[i] = (hp_block_stat){(uint32_t)it->k1, map ? (uint32_t)map->v2 : 0, map != NULL,
                                       map ? map->v1 : 0, it->v1};
    }
    p->nblocks = acc->map.count;
    return 1;
}

static void release(hp_profile *p)
{
    free(p->blocks);
    free(p->block_pcs);
}
static size_t rows(const hp_profile *p) { return p->nblocks; }

uint64_t hp_profile_total_blocks(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t i = 0; i < p->nblocks; i++) s = hp_sat_add(s, p->blocks[i].count);
    return s;
}

/* ---- report ---- */

static int cmp_blocks(const void *a, const void *b, void *arg)
{
    const hp_profile *p = arg;
    const hp_block_stat *x = &p->blocks[*(const size_t *)a], *y = &p->blocks[*(const size_t *)b];
    int r = hp_rt_cmp_desc(x->count, y->count);
    return r ? r : hp_rt_cmp_asc(x->guard, y->guard);
}

static size_t *ordered(const hp_profile *p) { return hp_rt_order(p->nblocks, cmp_blocks, (void *)p); }
static uint64_t block_pc(const hp_profile *p, size_t i) { return p->blocks[i].pc; }
static int wanted(const hp_report_opts *o) { return o->blocks; }

static void text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_block_stat *b, size_t rank,
                     uint64_t total, int wname, int wwhere, const hp_report_opts *o)
{
    hp_rt_sym r = {.name = "?", .where = ""};
    char pc[32], cell[32];
    if (b->mapped) hp_rt_describe_inline(s, b->pc, &r), snprintf(pc, sizeof pc, "0x%" PRIx64, b->pc);
    else snprintf(pc, sizeof pc, "guard %" PRIu32, b->guard);
    fprintf(out, "%4zu %12s ", rank, hp_rt_count_cell(cell, sizeof cell, p, E, b->count));
    hp_rt_percent_cell(out, o, hp_rt_percent(b->count, total));
    fprintf(out, "  %-18s  ", pc);
    hp_rt_cell(out, r.name, wname);
    fputs("  ", out);
    hp_rt_last_cell(out, r.where, wwhere);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p), n = hp_rt_rows(p->nblocks, o);
    uint64_t total = hp_profile_total_blocks(p);
    int wname, wwhere;
    char hd[24];
    if (!order) return -1;
    hp_rt_widths(p, s, order, n, block_pc, &wname, &wwhere);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot blocks: %zu of %zu, by count", n, p->nblocks);
    fprintf(out, "%4s %12s %6s  %-18s  %-*s  %s\n", "rank", hp_rt_count_header(hd, sizeof hd, p, E, "count"), "%",
            "pc", wname, "function", "file:line");
    for (size_t i = 0; i < n; i++) text_row(out, p, s, &p->blocks[order[i]], i + 1, total, wname, wwhere, o);
    if (!n) fprintf(out, "  (no block counts in this profile)\n");
    free(order);
    return 0;
}

static void json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_block_stat *b, size_t rank,
                     uint64_t total)
{
    fprintf(out, "%s\n    {\"rank\": %zu, \"guard\": %" PRIu32 ", \"count\": ", rank > 1 ? "," : "", rank, b->guard);
    hp_rt_json_count(out, p, E, b->count);
    fprintf(out, ", \"percent\": %.2f, ", hp_rt_percent(b->count, total));
    hp_rt_json_estimate(out, p, E, b->count);
    fprintf(out, "\"function_entry\": %s", (b->flags & 1) ? "true" : "false");
    if (b->mapped) fputs(", ", out), hp_rt_json_symbol(out, s, "", b->pc);
    fputs("}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *order = ordered(p), n = hp_rt_rows(p->nblocks, o);
    uint64_t total = hp_profile_total_blocks(p);
    if (!order) return -1;
    fputs("  \"blocks\": [", out);
    for (size_t i = 0; i < n; i++) json_row(out, p, s, &p->blocks[order[i]], i + 1, total);
    fputs(n ? "\n  ]" : "]", out);
    free(order);
    return 0;
}

static int json_totals(FILE *out, const hp_profile *p)
{
    fprintf(out, "\"blocks\": %" PRIu64, hp_profile_total_blocks(p));
    return 1;
}

/* ---- folded ---- */

static int fold_block(hp_fold *f, hp_symbolizer *s, const hp_block_stat *b)
{
    hp_rt_sym r;
    if (!b->mapped) {
        snprintf(r.where, sizeof r.where, "guard_%" PRIu32, b->guard);
        const char *frames[2] = {"[unmapped]", r.where};
        return hp_fold_add(f, frames, 2, b->count);
    }
    hp_rt_describe(s, b->pc, &r);
    if (!r.where[0]) snprintf(r.where, sizeof r.where, "0x%" PRIx64, b->pc);
    const char *frames[2] = {r.name, r.where};
    return hp_fold_add(f, frames, 2, b->count);
}

static int folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    hp_fold f;
    int rc = 0;
    hp_fold_init(&f);
    for (size_t i = 0; i < p->nblocks && !rc; i++) rc = fold_block(&f, s, &p->blocks[i]);
    if (!rc) rc = hp_fold_write(out, &f);
    hp_fold_free(&f);
    return rc;
}

/* ---- pprof: one frame per block (its function and line), value count ---- */

static int pprof(hp_pprof_export *x)
{
    const hp_profile *p = x->p;
    if (hp_pprof_sample_type(x->b, "count", "count") || hp_pprof_export_sampling(x, E, "blocks")) return -1;
    for (size_t i = 0; i < p->nblocks; i++) {
        const hp_block_stat *b = &p->blocks[i];
        char name[48];
        snprintf(name, sizeof name, "[unmapped] guard_%" PRIu32, b->guard);
        uint64_t loc = b->mapped ? hp_pprof_export_location(x, b->pc) : hp_pprof_export_named(x, name);
        int64_t v = hp_pprof_value(b->count);
        if (!loc || hp_pprof_sample(x->b, &loc, 1, &v, 1)) return -1;
    }
    return 0;
}

/* ---- compare ---- */

static void collect(const hp_profile *p, hp_cmp_sink *s)
{
    for (size_t i = 0; i < p->nblocks; i++) {
        const hp_block_stat *b = &p->blocks[i];
        int mapped;
        uint64_t key = hp_cmp_block_key(p, b->mapped, b->guard, b->pc, &mapped);
        hp_cmp_sink_add(s, key, b->count, mapped);
    }
}

static const hp_cmp_view views[] = {{"blocks", "blocks", 4, rows, collect, NULL, 0}};
/* ---- merge ---- */

static int merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->nblocks; k++) {
        const hp_block_stat *s = &p->blocks[k];
        uint32_t g;
        if (hp_merge_guard(m, i, s->guard, s->mapped, s->pc, s->flags, &g)) return -1;
        if (hp_merge_accumulate(m, &acc->map, g, 0, s->count, 0)) return -1;
    }
    return 0;
}

static int merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_rec_count *r = calloc(acc->map.count + 1, sizeof *r);
    if (!r) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++)
        r[k] = (hp_rec_count){(uint32_t)acc->map.items[k].k1, 0, acc->map.items[k].v1};
    if (acc->map.count) hp_pbuild_blocks(b, r, acc->map.count);
    free(r);
    return 0;
}

const hp_aptype hp_aptype_blocks = {
    .id = HP_PT_BLOCKS,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
    .wanted = wanted,
    .text = text,
    .json = json,
    .json_totals = json_totals,
    .distinct = "blocks",
    .views = views,
    .nviews = 1,
    .folded = folded,
    .merge_add = merge_add,
    .merge_write = merge_write,
    .pprof = pprof,
};

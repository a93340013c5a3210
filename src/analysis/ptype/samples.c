/* samples.c — the samples profile type on the analysis side (aptype.h): decode of STACKS records
 * (format.h hp_rec_stack, variable size: depth in 1..HP_STACK_MAX_DEPTH, count > 0, the pcs inside
 * the section; anything else refuses the file with one message naming the section, offset and
 * payload byte), kept record by record (threads are not merged: self and total are sums over
 * records, so merging equal stacks would change nothing); the registration of the type's hooks
 * (tables in samples_report.c, folded / pprof / compare in samples_export.c, merge in
 * samples_merge.c).
 * Invariants: p->stacks holds one entry per record of the group's STACKS sections, in file order;
 * its pcs point into p->stack_pcs; p->nstack_sections counts those sections.
 */
#define _GNU_SOURCE
#include "analysis/ptype/samples.h"
#include "analysis/ptype/aptype.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader ---- */

static int bad(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, const char *why)
{
    return hp_rd_fail(r, "section %zu (stacks) at offset %" PRIu64 ": corrupt stack record at payload byte %" PRIu64
                      " (%s)", index, s->offset, off, why);
}

static uint32_t get_u32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

/* Checks the record at payload byte off, *size = its bytes. 0 after hp_rd_fail. */
static int check_record(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, hp_rec_stack *rec,
                        uint64_t *size)
{
    const uint8_t *in = hp_rd_payload(r, s);
    if (s->length - off < HP_REC_STACK_FIXED) return bad(r, index, s, off, "cut short");
    hp_fmt_get_stack(in + off, rec);
    if (rec->depth < 1 || rec->depth > HP_STACK_MAX_DEPTH) return bad(r, index, s, off, "depth out of 1..256");
    if (rec->count == 0) return bad(r, index, s, off, "count 0");
    if (get_u32(in + off + 20) != 0) return bad(r, index, s, off, "reserved field not 0");
    *size = HP_REC_STACK_FIXED + 8ull * rec->depth;
    if (s->length - off < *size) return bad(r, index, s, off, "its pcs run past the section");
    return 1;
}

static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_rec_stack rec;
    uint64_t size;
    for (uint64_t off = 0; off < s->length; off += size)
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
    return 1;
}

/* acc->map: (1 + file offset of the record, depth) -> (1, 0), in file order. */
static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    hp_rec_stack rec;
    uint64_t size, base = (uint64_t)(hp_rd_payload(r, s) - r->data);
    for (uint64_t off = 0; off < s->length; off += size) {
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
        hp_pair_item *it = hp_pairmap_get(&acc->map, base + off + 1, rec.depth);
        if (!it) return hp_rd_oom(r);
        it->v1 = 1;
    }
    r->p->nstack_sections++;
    return 1;
}

static uint64_t get_u64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    size_t npcs = 0;
    for (size_t i = 0; i < acc->map.count; i++) npcs += acc->map.items[i].k2;
    p->stacks = calloc(acc->map.count + 1, sizeof *p->stacks);
    p->stack_pcs = calloc(npcs + 1, sizeof *p->stack_pcs);
    if (!p->stacks || !p->stack_pcs) return hp_rd_oom(r);
    size_t used = 0;
    for (size_t i = 0; i < acc->map.count; i++) {
        const uint8_t *in = r->data + acc->map.items[i].k1 - 1;
        hp_rec_stack rec;
        hp_fmt_get_stack(in, &rec);
        uint64_t *pcs = p->stack_pcs + used;
        for (uint16_t k = 0; k < rec.depth; k++) pcs[k] = get_u64(in + HP_REC_STACK_FIXED + 8u * k);
        p->stacks[i] = (hp_stack_stat){rec.count, rec.tos, rec.depth, rec.flags, pcs};
        used += rec.depth;
    }
    p->nstacks = acc->map.count;
    return 1;
}

static void release(hp_profile *p)
{
    free(p->stacks);
    free(p->stack_pcs);
}

static size_t rows(const hp_profile *p) { return p->nstacks; }

uint64_t hp_samples_total(const hp_profile *p)
{
    uint64_t t = 0;
    for (size_t i = 0; i < p->nstacks; i++) t = hp_sat_add(t, p->stacks[i].count);
    return t;
}

uint64_t hp_samples_at_pc(const hp_profile *p, uint64_t pc)
{
    uint64_t t = 0;
    for (size_t i = 0; i < p->nstacks; i++)
        if (p->stacks[i].pcs[0] == pc) t = hp_sat_add(t, p->stacks[i].count);
    return t;
}

static int shown(const hp_profile *p, const hp_report_opts *o) { return p->nstacks > 0 || p->nstack_sections > 0; }

const hp_aptype hp_aptype_samples = {
    .id = HP_PT_SAMPLES,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = shown,
    .text = hp_samples_text,
    .json = hp_samples_json,
    .text_totals = hp_samples_text_totals,
    .json_totals = hp_samples_json_totals,
    .views = hp_samples_views,
    .nviews = HP_SAMPLES_NVIEWS,
    .folded = hp_samples_folded,
    .fold_rank = 3,
    .pprof = hp_samples_pprof,
    .graph = hp_samples_graph,
    .merge_add = hp_samples_merge_add,
    .merge_write = hp_samples_merge_write,
};

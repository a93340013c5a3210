/* path.c — the path profile type on the analysis side (aptype.h): decode and check of PATHS
 * records (format.h hp_rec_path: variable size; key != 0, 1 <= length <= HP_PATH_MAX_LENGTH,
 * nblocks 0 or length, count >= 1, the record inside its section; anything else refuses the file
 * with one message naming the section, offset and payload byte), summed by (key, length) over
 * the group's sections (the threads; counts saturate; the first record holding blocks gives the
 * sequence), each block resolved through the block map; the registration of the type's hooks
 * (path_report.c, path_compare.c, path_merge.c).
 * Invariants: p->paths holds one entry per distinct (key, length), by count highest first, ties
 * by key; guards/pcs point into p->path_guards / p->path_pcs.
 */
#define _GNU_SOURCE
#include "analysis/ptype/path.h"
#include "analysis/ptype/aptype.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int bad(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, const char *why)
{
    return hp_rd_fail(r, "section %zu (paths) at offset %" PRIu64 ": corrupt path record at payload byte %" PRIu64 " (%s)",
                      index, s->offset, off, why);
}

static int check_record(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, hp_rec_path *rec,
                        uint64_t *size)
{
    if (s->length - off < HP_REC_PATH_FIXED) return bad(r, index, s, off, "cut short");
    hp_fmt_get_path(hp_rd_payload(r, s) + off, rec);
    if (!rec->key) return bad(r, index, s, off, "key 0");
    if (rec->length < 1 || rec->length > HP_PATH_MAX_LENGTH) return bad(r, index, s, off, "length out of 1..1024");
    if (rec->nblocks && rec->nblocks != rec->length) return bad(r, index, s, off, "blocks neither 0 nor its length");
    if (!rec->count) return bad(r, index, s, off, "count 0");
    *size = HP_REC_PATH_FIXED + 4ull * rec->nblocks;
    return s->length - off < *size ? bad(r, index, s, off, "its blocks run past the section") : 1;
}

static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_rec_path rec;
    uint64_t size;
    for (uint64_t off = 0; off < s->length; off += size)
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
    return 1;
}

/* acc->map: (key, length) -> (count, 1 + file offset of the first record with blocks, else of the first). */
static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    hp_rec_path rec;
    uint64_t size, base = (uint64_t)(hp_rd_payload(r, s) - r->data);
    for (uint64_t off = 0; off < s->length; off += size) {
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
        hp_pair_item *it = hp_pairmap_get(&acc->map, rec.key, rec.length);
        if (!it) return hp_rd_oom(r);
        it->v1 = hp_sat_add(it->v1, rec.count);
        hp_rec_path first;
        if (it->v2) hp_fmt_get_path(r->data + it->v2 - 1, &first);
        if (!it->v2 || (rec.nblocks && !first.nblocks)) it->v2 = base + off + 1;
    }
    return 1;
}

static uint32_t get_u32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

static void fill_stat(hp_reader *r, hp_subpath_stat *sp, const hp_pair_item *it, uint32_t *guards, uint64_t *pcs)
{
    hp_rec_path rec;
    const uint8_t *in = r->data + it->v2 - 1;
    hp_fmt_get_path(in, &rec);
    *sp = (hp_subpath_stat){.key = rec.key, .count = it->v1, .weight = (double)it->v1, .p_length = 1,
                            .estimate = (double)it->v1, .rank_estimate = (double)it->v1, .ranked = (double)it->v1, .length = rec.length,
                            .nblocks = rec.nblocks, .guards = guards, .pcs = pcs};
    for (uint32_t i = 0; i < rec.nblocks; i++) {
        const hp_pair_item *m = hp_pairmap_find(&r->blockmap, guards[i] = get_u32(in + HP_REC_PATH_FIXED + 4 * i), 0);
        pcs[i] = m ? m->v1 : 0;
    }
}

static int cmp_count(const void *a, const void *b)
{
    const hp_subpath_stat *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->length < y->length ? -1 : x->length > y->length;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    size_t n = acc->map.count, nblocks = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        hp_rec_path rec;
        hp_fmt_get_path(r->data + acc->map.items[i].v2 - 1, &rec);
        nblocks += rec.nblocks;
    }
    p->paths = calloc(n + 1, sizeof *p->paths);
    p->path_guards = calloc(nblocks + 1, sizeof *p->path_guards);
    p->path_pcs = calloc(nblocks + 1, sizeof *p->path_pcs);
    if (!p->paths || !p->path_guards || !p->path_pcs) return hp_rd_oom(r);
    for (size_t i = 0; i < n; i++) {
        fill_stat(r, &p->paths[i], &acc->map.items[i], p->path_guards + used, p->path_pcs + used);
        used += p->paths[i].nblocks;
    }
    p->npaths = n;
    if (n) qsort(p->paths, n, sizeof *p->paths, cmp_count);
    return 1;
}

static void release(hp_profile *p)
{
    free(p->paths);
    free(p->path_guards);
    free(p->path_pcs);
}

static size_t rows(const hp_profile *p) { return p->npaths; }

uint64_t hp_path_total(const hp_profile *p)
{
    uint64_t t = 0;
    for (size_t i = 0; i < p->npaths; i++) t = hp_sat_add(t, p->paths[i].count);
    return t;
}

const hp_aptype hp_aptype_path = {
    .id = HP_PT_PATH,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = hp_path_shown,
    .text = hp_path_text,
    .json = hp_path_json,
    .text_totals = hp_path_text_totals,
    .compare_extra = hp_path_compare,
    .merge_add = hp_path_merge_add,
    .merge_write = hp_path_merge_write,
};

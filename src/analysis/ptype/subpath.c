/* subpath.c — the subpath profile type on the analysis side (aptype.h): decode and check of
 * SUBPATHS records (format.h hp_rec_subpath: variable size, every field bounds-checked: 1 <=
 * length <= HP_SUBPATH_MAX_LENGTH, nblocks <= length, the record inside its section, p_length in
 * (0, 1], weight finite and >= 0; anything else refuses the file with one message naming the
 * section, offset and record), summed by key over the group's sections (counts saturate,
 * weights add; the first record of a key gives its length, p_length and block sequence), each
 * block resolved through the block map; finish ranks them (subpath.h: estimate = weight /
 * p_length, weighted by subpath.params weight=); the registration of the type's hooks (the
 * report's table and JSON in subpath_report.c, compare's section in subpath_compare.c, merge in
 * subpath_merge.c).
 * Invariants: p->subpaths holds one entry per distinct key, sorted by `ranked` (highest first,
 * ties by key); its guards/pcs point into p->subpath_guards / p->subpath_pcs.
 */
#define _GNU_SOURCE
#include "analysis/ptype/subpath.h"
#include "analysis/ptype/aptype.h"
#include "core/format/info_keys.h"
#include "core/summary/osplist.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK_COST 256u /* bytes: a block's cost when the next block is far or unknown */

/* ---- params ---- */

const char *hp_subpath_param(const hp_profile *p, const char *name, char *buf, size_t len, const char *fallback)
{
    const char *params = hp_profile_info(p, HP_INFO_SUBPATH_PARAMS);
    size_t n = strlen(name);
    for (const char *at = params; at && *at;) {
        const char *end = strchr(at, ',');
        size_t item = end ? (size_t)(end - at) : strlen(at);
        if (item > n && !strncmp(at, name, n) && at[n] == '=') {
            snprintf(buf, len, "%.*s", (int)(item - n - 1), at + n + 1);
            return buf;
        }
        at = end ? end + 1 : NULL;
    }
    return fallback;
}

hp_subpath_weight hp_subpath_weighting(const hp_profile *p)
{
    char buf[16];
    const char *w = hp_subpath_param(p, "weight", buf, sizeof buf, "count");
    return !strcmp(w, "length") ? HP_SUBPATH_BY_LENGTH : !strcmp(w, "cost") ? HP_SUBPATH_BY_COST : HP_SUBPATH_BY_COUNT;
}

double hp_subpath_counting_tau(const hp_profile *p)
{
    char buf[16];
    const char *rule = hp_subpath_param(p, "list", buf, sizeof buf, "concise");
    const char *v = hp_profile_info(p, HP_INFO_SUBPATH_TAU);
    char *end;
    double tau = v ? strtod(v, &end) : 1;
    if (strcmp(rule, "counting") || !v || end == v || !(tau > 1) || !isfinite(tau)) return 1;
    return tau;
}

int hp_subpath_exact(const hp_profile *p)
{
    const char *s = hp_profile_info(p, HP_INFO_SUBPATH_SUMMARY);
    return s && !strcmp(s, "exact");
}

/* ---- reader ---- */

static int bad(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, const char *why)
{
    return hp_rd_fail(r, "section %zu (subpaths) at offset %" PRIu64 ": corrupt subpath record at payload byte %" PRIu64
                      " (%s)", index, s->offset, off, why);
}

/* Checks the record at in[off..], *size = its bytes. 0 after hp_rd_fail. */
static int check_record(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, hp_rec_subpath *rec,
                        uint64_t *size)
{
    const uint8_t *in = hp_rd_payload(r, s);
    if (s->length - off < HP_REC_SUBPATH_FIXED) return bad(r, index, s, off, "cut short");
    hp_fmt_get_subpath(in + off, rec);
    if (rec->length < 1 || rec->length > HP_SUBPATH_MAX_LENGTH) return bad(r, index, s, off, "length out of 1..1024");
    if (rec->nblocks > rec->length) return bad(r, index, s, off, "more blocks than its length");
    *size = HP_REC_SUBPATH_FIXED + 4ull * rec->nblocks;
    if (s->length - off < *size) return bad(r, index, s, off, "its blocks run past the section");
    if (!(rec->p_length > 0 && rec->p_length <= 1)) return bad(r, index, s, off, "p_length not in (0, 1]");
    if (!(rec->weight >= 0) || !isfinite(rec->weight)) return bad(r, index, s, off, "weight negative or not finite");
    return 1;
}

static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_rec_subpath rec;
    uint64_t size;
    for (uint64_t off = 0; off < s->length; off += size)
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
    return 1;
}

/* acc->map: (key, 0) -> (count, 1 + file offset of its first record); (key, 1) -> (weight bits, 0). */
static int add_record(hp_reader *r, hp_apt_acc *acc, const hp_rec_subpath *rec, uint64_t at)
{
    hp_pair_item *it = hp_pairmap_get(&acc->map, rec->key, 0);
    if (!it) return hp_rd_oom(r);
    it->v1 = hp_sat_add(it->v1, rec->count);
    if (!it->v2) it->v2 = at + 1;
    if (!(it = hp_pairmap_get(&acc->map, rec->key, 1))) return hp_rd_oom(r);
    double w;
    memcpy(&w, &it->v1, sizeof w);
    w += rec->weight;
    memcpy(&it->v1, &w, sizeof w);
    return 1;
}

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    hp_rec_subpath rec;
    uint64_t size, base = (uint64_t)(hp_rd_payload(r, s) - r->data);
    for (uint64_t off = 0; off < s->length; off += size)
        if (!check_record(r, index, s, off, &rec, &size) || !add_record(r, acc, &rec, base + off)) return 0;
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A block's code bytes: the next mapped pc of the same module - pc, capped; 1 when unknown. */
static double block_cost(const hp_profile *p, uint64_t pc)
{
    if (!pc) return 1;
    const uint64_t *at = bsearch(&pc, p->block_pcs, p->nblock_pcs, sizeof pc, cmp_u64);
    if (!at || at + 1 >= p->block_pcs + p->nblock_pcs) return MAX_BLOCK_COST;
    if (hp_profile_module_at(p, pc) != hp_profile_module_at(p, at[1])) return MAX_BLOCK_COST;
    return at[1] - pc < MAX_BLOCK_COST ? (double)(at[1] - pc) : MAX_BLOCK_COST;
}

static uint32_t get_u32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

/* Fills one stat from its first record at data[at] and its sums; its blocks go to guards/pcs. */
static void fill_stat(hp_reader *r, hp_subpath_stat *sp, const hp_pair_item *sums, double weight, uint32_t *guards,
                      uint64_t *pcs)
{
    hp_rec_subpath rec;
    const uint8_t *in = r->data + sums->v2 - 1;
    hp_fmt_get_subpath(in, &rec);
    *sp = (hp_subpath_stat){.key = rec.key, .count = sums->v1, .weight = weight, .p_length = rec.p_length,
                            .length = rec.length, .nblocks = rec.nblocks, .guards = guards, .pcs = pcs};
    sp->estimate = weight / rec.p_length;
    for (uint32_t i = 0; i < rec.nblocks; i++) {
        const hp_pair_item *m = hp_pairmap_find(&r->blockmap, guards[i] = get_u32(in + HP_REC_SUBPATH_FIXED + 4 * i), 0);
        pcs[i] = m ? m->v1 : 0;
        sp->cost += block_cost(r->p, pcs[i]);
    }
}

static int cmp_ranked(const void *a, const void *b)
{
    const hp_subpath_stat *x = a, *y = b;
    if (x->ranked != y->ranked) return x->ranked > y->ranked ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void rank(hp_profile *p)
{
    hp_subpath_weight w = hp_subpath_weighting(p);
    double max_cost = 0, tau = hp_subpath_counting_tau(p);
    for (size_t i = 0; i < p->nsubpaths; i++) max_cost = fmax(max_cost, p->subpaths[i].cost);
    for (size_t i = 0; i < p->nsubpaths; i++) {
        hp_subpath_stat *sp = &p->subpaths[i];
        double share = hp_osp_counted_share(sp->count, tau);
        sp->rank_estimate = sp->estimate * share; /* counting samples: the counted share (subpath.h) */
        sp->ranked = w == HP_SUBPATH_BY_LENGTH ? sp->rank_estimate * sp->length
                     : w == HP_SUBPATH_BY_COST && max_cost > 0 ? sp->rank_estimate * sp->cost / max_cost
                                                               : sp->rank_estimate;
    }
    if (p->nsubpaths) qsort(p->subpaths, p->nsubpaths, sizeof *p->subpaths, cmp_ranked);
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    size_t n = 0, nblocks = 0;
    for (size_t i = 0; i < acc->map.count; i++) {
        hp_rec_subpath rec;
        if (acc->map.items[i].k2) continue;
        hp_fmt_get_subpath(r->data + acc->map.items[i].v2 - 1, &rec);
        n++, nblocks += rec.nblocks;
    }
    p->subpaths = calloc(n + 1, sizeof *p->subpaths);
    p->subpath_guards = calloc(nblocks + 1, sizeof *p->subpath_guards);
    p->subpath_pcs = calloc(nblocks + 1, sizeof *p->subpath_pcs);
    if (!p->subpaths || !p->subpath_guards || !p->subpath_pcs) return hp_rd_oom(r);
    size_t k = 0, used = 0;
    for (size_t i = 0; i < acc->map.count; i++) {
        const hp_pair_item *it = &acc->map.items[i], *w = hp_pairmap_find(&acc->map, it->k1, 1);
        if (it->k2 != 0) continue;
        double weight;
        memcpy(&weight, &w->v1, sizeof weight);
        fill_stat(r, &p->subpaths[k], it, weight, p->subpath_guards + used, p->subpath_pcs + used);
        used += p->subpaths[k++].nblocks;
    }
    p->nsubpaths = n;
    rank(p);
    return 1;
}

static void release(hp_profile *p)
{
    free(p->subpaths);
    free(p->subpath_guards);
    free(p->subpath_pcs);
}

static size_t rows(const hp_profile *p) { return p->nsubpaths; }

const hp_aptype hp_aptype_subpath = {
    .id = HP_PT_SUBPATH,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = hp_subpath_shown,
    .text = hp_subpath_text,
    .json = hp_subpath_json,
    .text_totals = hp_subpath_text_totals,
    .sampling_text = hp_subpath_sampling_text,
    .compare_extra = hp_subpath_compare,
    .merge_add = hp_subpath_merge_add,
    .merge_write = hp_subpath_merge_write,
};

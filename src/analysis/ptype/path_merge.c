/* path_merge.c — `hotprof merge` of the path type (aptype.h merge_add / merge_write): the inputs'
 * paths added by (key, length) (counts saturate; the first input holding a key with its blocks
 * gives the sequence, its guards remapped through hp_merge_guard, every one already in merge_add so
 * that the output block map, written before merge_write, holds them), written as one PATHS section
 * of the merged thread. Keys are kept as they are: merged profiles come from one build (shadows of
 * one run, or runs of one program), whose guard ids agree.
 * acc->map: (key, length) -> (count, 1 + (input << 32 | row)).
 */
#define _GNU_SOURCE
#include "analysis/ptype/path.h"
#include "analysis/merge/merge.h"
#include "analysis/ptype/aptype.h"
#include <stdlib.h>
#include <string.h>

static const hp_subpath_stat *stat_of(hp_merge *m, const hp_pair_item *it, size_t *input)
{
    *input = (size_t)((it->v2 - 1) >> 32);
    return &m->in[*input]->paths[(uint32_t)(it->v2 - 1)];
}

int hp_path_merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->npaths; k++) {
        const hp_subpath_stat *sp = &p->paths[k];
        uint32_t g;
        for (uint32_t b = 0; b < sp->nblocks; b++)
            if (hp_merge_guard(m, i, sp->guards[b], sp->pcs[b] != 0, sp->pcs[b], 0, &g)) return -1;
        hp_pair_item *it = hp_pairmap_get(&acc->map, sp->key, sp->length);
        if (!it) return hp_merge_fail(m, "out of memory");
        it->v1 = hp_sat_add(it->v1, sp->count);
        size_t first;
        if (!it->v2 || (sp->nblocks && !stat_of(m, it, &first)->nblocks)) it->v2 = 1 + ((uint64_t)i << 32 | k);
    }
    return 0;
}

/* One record into out (HP_REC_PATH_FIXED + 4 nblocks bytes); 0, or -1 after hp_merge_fail. */
static int put_record(hp_merge *m, uint8_t *out, const hp_pair_item *it)
{
    size_t i;
    const hp_subpath_stat *sp = stat_of(m, it, &i);
    hp_rec_path rec = {sp->key, it->v1, sp->length, sp->nblocks};
    hp_fmt_put_path(out, &rec);
    for (uint32_t b = 0; b < sp->nblocks; b++) {
        uint32_t g;
        if (hp_merge_guard(m, i, sp->guards[b], sp->pcs[b] != 0, sp->pcs[b], 0, &g)) return -1;
        for (int k = 0; k < 4; k++) out[HP_REC_PATH_FIXED + 4 * b + k] = (uint8_t)(g >> (8 * k));
    }
    return 0;
}

int hp_path_merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    size_t len = 0, at = 0, i;
    for (size_t k = 0; k < acc->map.count; k++) len += HP_REC_PATH_FIXED + 4ull * stat_of(m, &acc->map.items[k], &i)->nblocks;
    if (!len) return 0;
    uint8_t *buf = malloc(len);
    if (!buf) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++) {
        if (put_record(m, buf + at, &acc->map.items[k])) return free(buf), -1;
        at += HP_REC_PATH_FIXED + 4ull * stat_of(m, &acc->map.items[k], &i)->nblocks;
    }
    hp_pbuild_section(b, HP_SEC_PATHS, buf, len);
    free(buf);
    return 0;
}

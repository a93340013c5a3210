/* subpath_merge.c — `hotprof merge` of the subpath type (aptype.h merge_add / merge_write):
 * subpath lists of several runs are added key by key (counts saturate, weights add; the first
 * input holding a key gives its length, p_length and block sequence, its guards remapped through
 * hp_merge_guard, every one already in merge_add so that the output block map, written before
 * merge_write, holds them) and written as one SUBPATHS section. Only lists of one kind merge: every input
 * holding subpaths must have the same subpath.summary and subpath.params as the first one that
 * does (else one message and nothing is written), since weights of other settings do not add.
 * acc->map: (key, 0) -> (count, 1 + (input << 32 | row)); (key, 1) -> (weight bits, 0).
 */
#define _GNU_SOURCE
#include "analysis/ptype/subpath.h"
#include "analysis/merge/merge.h"
#include "analysis/ptype/aptype.h"
#include "core/format/info_keys.h"
#include <stdlib.h>
#include <string.h>

static int same_key(hp_merge *m, size_t first, size_t i, const char *key)
{
    const char *a = hp_merge_info(m, first, key), *b = hp_merge_info(m, i, key);
    if ((!a && !b) || (a && b && !strcmp(a, b))) return 0;
    return hp_merge_fail(m, "cannot merge subpath lists of different settings: %s has %s=%s, %s has %s=%s",
                         m->in[first]->name, key, a ? a : "(none)", m->in[i]->name, key, b ? b : "(none)");
}

int hp_subpath_merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    size_t first = 0;
    while (first < i && !m->in[first]->nsubpaths) first++;
    if (!p->nsubpaths) return 0;
    if (same_key(m, first, i, HP_INFO_SUBPATH_SUMMARY) || same_key(m, first, i, HP_INFO_SUBPATH_PARAMS)) return -1;
    for (size_t k = 0; k < p->nsubpaths; k++) {
        const hp_subpath_stat *sp = &p->subpaths[k];
        uint32_t g; /* every guard is entered now: the block map is written before merge_write */
        for (uint32_t b = 0; b < sp->nblocks; b++)
            if (hp_merge_guard(m, i, sp->guards[b], sp->pcs[b] != 0, sp->pcs[b], 0, &g)) return -1;
        hp_pair_item *it = hp_pairmap_get(&acc->map, sp->key, 0);
        if (!it) return hp_merge_fail(m, "out of memory");
        it->v1 = hp_sat_add(it->v1, sp->count);
        if (!it->v2) it->v2 = 1 + ((uint64_t)i << 32 | k);
        if (!(it = hp_pairmap_get(&acc->map, sp->key, 1))) return hp_merge_fail(m, "out of memory");
        double w;
        memcpy(&w, &it->v1, sizeof w);
        w += sp->weight;
        memcpy(&it->v1, &w, sizeof w);
    }
    return 0;
}

/* One record into out (HP_REC_SUBPATH_FIXED + 4 nblocks bytes); 0, or -1 out of memory. */
static int put_record(hp_merge *m, uint8_t *out, const hp_pair_item *it, const hp_pair_item *w)
{
    size_t i = (size_t)((it->v2 - 1) >> 32);
    const hp_subpath_stat *sp = &m->in[i]->subpaths[(uint32_t)(it->v2 - 1)];
    hp_rec_subpath rec = {sp->key, it->v1, 0, sp->p_length, sp->length, sp->nblocks};
    memcpy(&rec.weight, &w->v1, sizeof rec.weight);
    hp_fmt_put_subpath(out, &rec);
    for (uint32_t b = 0; b < sp->nblocks; b++) {
        uint32_t g;
        if (hp_merge_guard(m, i, sp->guards[b], sp->pcs[b] != 0, sp->pcs[b], 0, &g)) return -1;
        for (int k = 0; k < 4; k++) out[HP_REC_SUBPATH_FIXED + 4 * b + k] = (uint8_t)(g >> (8 * k));
    }
    return 0;
}

int hp_subpath_merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    size_t len = 0, at = 0;
    for (size_t k = 0; k < acc->map.count; k++) {
        const hp_pair_item *it = &acc->map.items[k];
        if (it->k2) continue;
        len += HP_REC_SUBPATH_FIXED + 4ull * m->in[(it->v2 - 1) >> 32]->subpaths[(uint32_t)(it->v2 - 1)].nblocks;
    }
    if (!len) return 0;
    uint8_t *buf = malloc(len);
    if (!buf) return hp_merge_fail(m, "out of memory");
    for (size_t k = 0; k < acc->map.count; k++) {
        const hp_pair_item *it = &acc->map.items[k];
        if (it->k2) continue;
        if (put_record(m, buf + at, it, hp_pairmap_find(&acc->map, it->k1, 1))) return free(buf), -1;
        at += HP_REC_SUBPATH_FIXED + 4ull * m->in[(it->v2 - 1) >> 32]->subpaths[(uint32_t)(it->v2 - 1)].nblocks;
    }
    hp_pbuild_section(b, HP_SEC_SUBPATHS, buf, len);
    free(buf);
    return 0;
}

/* guards.c — the merge's block guards and block map (merge.h, step 3).
 *
 * The runtime numbers coverage guards 1, 2, ... in the order modules ran their constructors
 * (runtime/blockmap.c), so a guard id means nothing across processes; its block map entry (guard
 * -> pc, flags) does. A mapped guard becomes the output guard of its rebased pc (one per pc,
 * numbered in order of first appearance, entered in the output block map with the flags seen);
 * a guard the block map does not know gets an output guard of its own per input, and no map entry.
 * The output block map therefore holds the blocks that ran (those named by BLOCKS or EDGES).
 * Invariants: output guards are 1..next_guard, each in at most one block map entry.
 */
#include "analysis/merge/merge.h"
#include <stdlib.h>

static int new_guard(hp_merge *m, uint32_t *out)
{
    if (m->next_guard == UINT32_MAX) return hp_merge_fail(m, "more than 2^32 - 1 distinct blocks");
    *out = ++m->next_guard;
    return 0;
}

/* The output guard of rebased pc (flags OR'd into its block map entry). */
static int guard_of_pc(hp_merge *m, uint64_t pc, uint32_t flags, uint32_t *out)
{
    hp_pair_item *it = hp_pairmap_get(&m->pcguard, pc, 0);
    if (!it) return hp_merge_fail(m, "out of memory");
    if (it->v1) {
        m->bmap[it->v2 - 1].flags |= flags;
        *out = (uint32_t)it->v1;
        return 0;
    }
    size_t slot = m->pcguard.count - 1;
    if (new_guard(m, out)) return -1;
    m->pcguard.items[slot].v1 = *out;
    if (!hp_rd_reserve((void **)&m->bmap, &m->bmap_cap, m->nbmap, sizeof *m->bmap))
        return hp_merge_fail(m, "out of memory");
    m->bmap[m->nbmap++] = (hp_rec_block){*out, flags, pc};
    m->pcguard.items[slot].v2 = m->nbmap;
    return 0;
}

int hp_merge_guard(hp_merge *m, size_t i, uint32_t guard, int mapped, uint64_t pc, uint32_t flags, uint32_t *out)
{
    if (!m->guards && !(m->guards = calloc(m->nin, sizeof *m->guards))) return hp_merge_fail(m, "out of memory");
    hp_pair_item *seen = hp_pairmap_get(&m->guards[i], guard, 0);
    if (!seen) return hp_merge_fail(m, "out of memory");
    if (seen->v1) {
        *out = (uint32_t)seen->v1;
        if (mapped && flags) return guard_of_pc(m, hp_merge_addr(m, i, pc), flags, out); /* new flags */
        return 0;
    }
    size_t slot = m->guards[i].count - 1;
    int rc = mapped ? guard_of_pc(m, hp_merge_addr(m, i, pc), flags, out) : new_guard(m, out);
    if (rc) return rc;
    m->guards[i].items[slot].v1 = *out;
    return 0;
}

void hp_merge_guards_free(hp_merge *m)
{
    for (size_t i = 0; m->guards && i < m->nin; i++) hp_pairmap_free(&m->guards[i]);
    free(m->guards);
    hp_pairmap_free(&m->pcguard);
    free(m->bmap);
}

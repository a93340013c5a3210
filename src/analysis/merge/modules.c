/* modules.c — the merge's module union and address rebasing (merge.h, step 2).
 *
 * A module's identity is its build-id (bytes) when it has one, else its path. The output holds
 * one module per identity: the extent [lo, hi) relative to the load bias is the union over the
 * inputs, the base is the first input's unless that range overlaps a module placed before, in
 * which case the module moves above everything placed (2 MiB aligned, so page offsets keep).
 * An address of input i in its module j becomes out.base + (addr - in.base); an address in no
 * module is kept as it is and counted in m->outside.
 * Invariants: modmap[i][j] < nmods; output modules never overlap; paths and build-ids are
 * borrowed from the inputs (which outlive the merge).
 */
#include "analysis/merge/merge.h"
#include <stdlib.h>
#include <string.h>

#define MOVE_ALIGN ((uint64_t)1 << 21)

static int same_identity(const hp_module *a, const hp_module *b)
{
    if (a->buildid_len || b->buildid_len)
        return a->buildid_len == b->buildid_len && memcmp(a->buildid, b->buildid, a->buildid_len) == 0;
    return strcmp(a->path, b->path) == 0;
}

/* The output module of identity `src`, added (with src's placement) if new; SIZE_MAX out of memory. */
static size_t identity_index(hp_merge *m, const hp_module *src, size_t *cap)
{
    for (size_t k = 0; k < m->nmods; k++) {
        hp_module *o = &m->mods[k];
        if (!same_identity(o, src)) continue;
        uint64_t lo = src->lo - src->base + o->base, hi = src->hi - src->base + o->base;
        if (lo < o->lo) o->lo = lo;
        if (hi > o->hi) o->hi = hi;
        return k;
    }
    if (!hp_rd_reserve((void **)&m->mods, cap, m->nmods, sizeof *m->mods)) return SIZE_MAX;
    m->mods[m->nmods] = *src;
    return m->nmods++;
}

static int overlaps(const hp_module *a, const hp_module *b) { return a->lo < b->hi && b->lo < a->hi; }

/* Moves modules that overlap an earlier one above the highest module placed so far. */
static void place(hp_merge *m)
{
    uint64_t top = 0;
    for (size_t k = 0; k < m->nmods; k++)
        if (m->mods[k].hi > top) top = m->mods[k].hi;
    for (size_t k = 1; k < m->nmods; k++) {
        hp_module *o = &m->mods[k];
        int clash = 0;
        for (size_t e = 0; e < k && !clash; e++) clash = overlaps(o, &m->mods[e]);
        if (!clash) continue;
        uint64_t lo = (top + MOVE_ALIGN - 1) & ~(MOVE_ALIGN - 1), shift = lo - (o->lo & ~(MOVE_ALIGN - 1));
        o->base += shift, o->lo += shift, o->hi += shift;
        top = o->hi;
    }
}

int hp_merge_modules(hp_merge *m)
{
    size_t cap = 0;
    m->modmap = calloc(m->nin, sizeof *m->modmap);
    if (!m->modmap) return hp_merge_fail(m, "out of memory");
    for (size_t i = 0; i < m->nin; i++) {
        const hp_profile *p = m->in[i];
        m->modmap[i] = calloc(p->nmodules + 1, sizeof **m->modmap);
        if (!m->modmap[i]) return hp_merge_fail(m, "out of memory");
        for (size_t j = 0; j < p->nmodules; j++)
            if ((m->modmap[i][j] = identity_index(m, &p->modules[j], &cap)) == SIZE_MAX)
                return hp_merge_fail(m, "out of memory");
    }
    place(m);
    return 0;
}

void hp_merge_modules_free(hp_merge *m)
{
    for (size_t i = 0; m->modmap && i < m->nin; i++) free(m->modmap[i]);
    free(m->modmap);
    free(m->mods);
}

/* Rebases addr, looking its module up at addr - back (1 for return addresses). */
static uint64_t rebase(hp_merge *m, size_t i, uint64_t addr, uint64_t back)
{
    const hp_profile *p = m->in[i];
    uint64_t at = addr - back;
    for (size_t j = 0; addr >= back && j < p->nmodules; j++) {
        const hp_module *s = &p->modules[j];
        if (at < s->lo || at >= s->hi) continue;
        return addr - s->base + m->mods[m->modmap[i][j]].base;
    }
    if (addr) m->outside++;
    return addr;
}

uint64_t hp_merge_addr(hp_merge *m, size_t i, uint64_t addr) { return rebase(m, i, addr, 0); }
uint64_t hp_merge_return_addr(hp_merge *m, size_t i, uint64_t site) { return rebase(m, i, site, 1); }

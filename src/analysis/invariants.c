/* invariants.c — selection of semi-invariant instructions and their call sites (invariants.h).
 * Invariant: a selected row's share is hp_value_share(list, 0) >= min_share; rows are sorted by
 * weighted, highest first, ties by (pc, kind, operand) as p->values is ordered.
 */
#define _GNU_SOURCE
#include "analysis/invariants.h"
#include "analysis/pairmap.h"
#include "analysis/ptype/samples.h"
#include "analysis/ptype/value.h"
#include <stdlib.h>

static int cmp_inv(const void *a, const void *b)
{
    const hp_invariant *x = a, *y = b;
    if (x->weighted != y->weighted) return x->weighted > y->weighted ? -1 : 1;
    return x->list < y->list ? -1 : x->list > y->list; /* p->values order */
}

int hp_invariants_select(const hp_profile *p, const hp_inv_opts *o, hp_invariant **out, size_t *n)
{
    *n = 0;
    if (!(*out = calloc(p->nvalues + 1, sizeof **out))) return -1;
    for (size_t i = 0; i < p->nvalues; i++) {
        const hp_value_stat *v = &p->values[i];
        if (v->kind == HP_VK_RETADDR || !v->nvalues) continue;
        uint64_t w = p->nstacks ? hp_samples_at_pc(p, v->pc) : v->captures;
        double share = hp_value_share(v, 0);
        if (share + 1e-12 < o->min_share || w < o->min_samples) continue;
        (*out)[(*n)++] = (hp_invariant){v, w, share, (double)w * share};
    }
    qsort(*out, *n, sizeof **out, cmp_inv);
    return 0;
}

static int cmp_site(const void *a, const void *b)
{
    const hp_inv_site *x = a, *y = b;
    if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
    return x->caller < y->caller ? -1 : x->caller > y->caller;
}

int hp_invariants_sites(const hp_profile *p, hp_symbolizer *s, uint64_t pc, hp_inv_site **out, size_t *n)
{
    hp_pairmap m = {0};
    *out = NULL, *n = 0;
    for (size_t i = 0; i < p->nstacks; i++) {
        const hp_stack_stat *st = &p->stacks[i];
        if (st->pcs[0] != pc) continue;
        uint64_t caller = st->depth > 1 ? hp_sym_function_start(s, hp_stack_frame_addr(st, 1)) : 0;
        hp_pair_item *it = hp_pairmap_get(&m, caller, 0);
        if (!it) return hp_pairmap_free(&m), -1;
        it->v1 = hp_sat_add(it->v1, st->count);
    }
    if (!(*out = calloc(m.count + 1, sizeof **out))) return hp_pairmap_free(&m), -1;
    for (size_t i = 0; i < m.count; i++) (*out)[i] = (hp_inv_site){m.items[i].k1, m.items[i].v1};
    *n = m.count;
    qsort(*out, *n, sizeof **out, cmp_site);
    hp_pairmap_free(&m);
    return 0;
}

/* pairmap.h — a growable hash map from a pair of 64-bit keys to a pair of 64-bit values.
 *
 * The reader uses one map type for everything it aggregates: funcs (addr, 0) -> (calls,
 * backedges), call pairs (site, callee) -> (count, 0), blocks (guard, 0) -> (count, 0), edges
 * (from, to) -> (count, 0), the block map (guard, 0) -> (pc, flags).
 *
 * Layout: entries live densely in `items[0..count)` in insertion order; `slots` is an open-
 * addressing table (linear probing, power-of-two size, load <= 1/2) of 1-based indexes into
 * items (0 = empty). Invariant: every item is reachable from exactly one slot. Nothing is ever
 * removed, so indexes into items stay valid; pointers into items do not survive an insert.
 */
#ifndef HOTPROF_ANALYSIS_PAIRMAP_H
#define HOTPROF_ANALYSIS_PAIRMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_pair_item { uint64_t k1, k2, v1, v2; } hp_pair_item;

typedef struct hp_pairmap {
    hp_pair_item *items;
    size_t count, items_cap;
    uint32_t *slots;
    size_t nslots; /* 0 or a power of two */
} hp_pairmap;

/* Finds (k1,k2) or inserts it with zero values; NULL only when memory runs out. The pointer is
 * valid until the next insert. */
hp_pair_item *hp_pairmap_get(hp_pairmap *m, uint64_t k1, uint64_t k2);
/* Finds (k1,k2); NULL when absent. */
const hp_pair_item *hp_pairmap_find(const hp_pairmap *m, uint64_t k1, uint64_t k2);
void hp_pairmap_free(hp_pairmap *m);

/* a + b, clamped at UINT64_MAX (hostile counts must not wrap). */
static inline uint64_t hp_sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

#endif

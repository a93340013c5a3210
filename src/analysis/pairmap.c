/* pairmap.c — open-addressing hash map of (u64,u64) -> (u64,u64); see pairmap.h for the layout
 * and invariants. Hashing mixes both keys with core/base/hash.h's hp_hash_seeded (k2 as the seed), so
 * that aligned addresses and small guard numbers spread over the table. */
#include "analysis/pairmap.h"
#include "core/base/hash.h"
#include <stdlib.h>

static size_t slot_of(const hp_pairmap *m, uint64_t k1, uint64_t k2)
{
    return (size_t)(hp_hash_seeded(k1, k2) & (m->nslots - 1));
}

static size_t probe(const hp_pairmap *m, uint64_t k1, uint64_t k2)
{
    size_t i = slot_of(m, k1, k2);
    while (m->slots[i]) {
        const hp_pair_item *it = &m->items[m->slots[i] - 1];
        if (it->k1 == k1 && it->k2 == k2) break;
        i = (i + 1) & (m->nslots - 1);
    }
    return i;
}

static int rehash(hp_pairmap *m, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return 0;
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    for (size_t n = 0; n < m->count; n++) {
        size_t i = probe(m, m->items[n].k1, m->items[n].k2);
        m->slots[i] = (uint32_t)(n + 1);
    }
    return 1;
}

static int make_room(hp_pairmap *m)
{
    if (m->count >= UINT32_MAX - 1) return 0;
    if (m->count == m->items_cap) {
        size_t cap = m->items_cap ? m->items_cap * 2 : 16;
        hp_pair_item *items = realloc(m->items, cap * sizeof *items);
        if (!items) return 0;
        m->items = items;
        m->items_cap = cap;
    }
    if ((m->count + 1) * 2 > m->nslots) return rehash(m, m->nslots ? m->nslots * 2 : 32);
    return 1;
}

hp_pair_item *hp_pairmap_get(hp_pairmap *m, uint64_t k1, uint64_t k2)
{
    if (m->nslots) {
        size_t i = probe(m, k1, k2);
        if (m->slots[i]) return &m->items[m->slots[i] - 1];
    }
    if (!make_room(m)) return NULL;
    size_t i = probe(m, k1, k2);
    hp_pair_item *it = &m->items[m->count];
    it->k1 = k1, it->k2 = k2, it->v1 = 0, it->v2 = 0;
    m->slots[i] = (uint32_t)(++m->count);
    return it;
}

const hp_pair_item *hp_pairmap_find(const hp_pairmap *m, uint64_t k1, uint64_t k2)
{
    if (!m->nslots) return NULL;
    size_t i = probe(m, k1, k2);
    return m->slots[i] ? &m->items[m->slots[i] - 1] : NULL;
}

void hp_pairmap_free(hp_pairmap *m)
{
    free(m->items);
    free(m->slots);
    *m = (hp_pairmap){0};
}

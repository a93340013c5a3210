/* tab.c — hp_tab's slow paths (tab.h): creation, insertion of a new key, growth by copy and
 * release publish (the old block stays mapped for concurrent readers). Nothing here calls malloc.
 *
 * State: one file-static sink slot (hp_tab_slow_get), this file's own: it absorbs the counts of
 * a key that could not be inserted because mmap failed, and is never written out.
 * Async-signal-safe: memory and mmap only.
 */
#include "runtime/tab.h"

HP_NOINST hp_tab *hp_tab_new(uint64_t capacity)
{
    hp_tab *t = hp_map(sizeof(hp_tab) + capacity * sizeof(hp_slot));
    if (!t) return NULL;
    t->mask = capacity - 1;
    t->shift = (uint32_t)(64 - __builtin_ctzll(capacity));
    return t;
}

/* Place (k1,k2) with its values into a table known to have room (no k1 duplicate). */
static HP_NOINST hp_slot *tab_place(hp_tab *t, uint64_t k1, uint64_t k2, uint64_t v1, uint64_t v2)
{
    uint64_t i = hp_tab_hash(t, k1, k2);
    while (t->s[i].k1 != 0) i = (i + 1) & t->mask;
    hp_slot *s = &t->s[i];
    s->k2 = k2;
    HP_STORE_RLX(&s->v1, v1);
    HP_STORE_RLX(&s->v2, v2);
    HP_STORE_REL(&s->k1, k1);
    t->used++;
    return s;
}

static HP_NOINST hp_tab *tab_grow(hp_tab **tabp)
{
    hp_tab *old = *tabp;
    hp_tab *t = hp_tab_new((old->mask + 1) * 2);
    if (!t) return NULL;
    for (uint64_t i = 0; i <= old->mask; i++) {
        hp_slot *s = &old->s[i];
        if (s->k1) tab_place(t, s->k1, s->k2, s->v1, s->v2);
    }
    HP_STORE_REL(tabp, t); /* the old block stays mapped for concurrent readers */
    return t;
}

HP_NOINST hp_slot *hp_tab_slow_get(hp_tab **tabp, uint64_t k1, uint64_t k2)
{
    static hp_slot sink; /* absorbs counts if mmap ever fails; never written out */
    hp_tab *t = *tabp;
    if ((t->used + 1) * 2 > t->mask + 1 && !(t = tab_grow(tabp))) return &sink;
    return tab_place(t, k1, k2, 0, 0);
}

HP_NOINST void hp_tab_zero_counts(hp_tab *t)
{
    for (uint64_t i = 0; i <= t->mask; i++) t->s[i].v1 = t->s[i].v2 = 0;
}

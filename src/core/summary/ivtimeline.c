/* ivtimeline.c — the bounded interval timeline (ivtimeline.h): append, pairwise merge. */
#include "core/summary/ivtimeline.h"
#include <string.h>

size_t hp_ivt_bytes(uint32_t max_slots, uint32_t max_entries)
{
    if (max_slots < 2 || max_entries < 1) return 0;
    return sizeof(hp_ivt) + (size_t)max_slots * sizeof(hp_ivt_slot) + 2 * (size_t)max_entries * sizeof(hp_ivt_entry);
}

hp_ivt *hp_ivt_init(void *mem, size_t bytes, uint32_t max_slots, uint32_t max_entries)
{
    size_t need = hp_ivt_bytes(max_slots, max_entries);
    if (!mem || !need || bytes < need) return NULL;
    hp_ivt *t = mem;
    memset(t, 0, sizeof *t);
    t->max_slots = max_slots, t->max_entries = max_entries, t->span = 1;
    t->slots = (hp_ivt_slot *)(void *)(t + 1);
    t->pool = (hp_ivt_entry *)(void *)(t->slots + max_slots);
    t->scratch = t->pool + max_entries;
    return t;
}

static void add_into(hp_ivt_entry *d, const hp_ivt_entry *s)
{
    d->count += s->count, d->truth += s->truth, d->hw_hits += s->hw_hits, d->exact_hits += s->exact_hits;
}

uint32_t hp_ivt_merge_lists(const hp_ivt_entry *a, uint32_t na, const hp_ivt_entry *b, uint32_t nb, hp_ivt_entry *out)
{
    uint32_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].key < b[j].key)) out[n++] = a[i++];
        else if (i == na || b[j].key < a[i].key) out[n++] = b[j++];
        else out[n] = a[i++], add_into(&out[n++], &b[j++]);
    }
    return n;
}

void hp_ivt_merge_pairs(hp_ivt *t)
{
    uint32_t w = 0, at = 0;
    for (uint32_t i = 0; i < t->nslots; i += 2) {
        hp_ivt_slot s = t->slots[i];
        uint32_t n = s.n;
        const hp_ivt_entry *src = t->pool + s.off;
        if (i + 1 < t->nslots) {
            const hp_ivt_slot *b = &t->slots[i + 1];
            n = hp_ivt_merge_lists(t->pool + s.off, s.n, t->pool + b->off, b->n, t->scratch);
            s.span += b->span, s.events += b->events;
            src = t->scratch;
        }
        memmove(t->pool + at, src, (size_t)n * sizeof *src); /* at <= s.off: never overwrites unread slots */
        s.off = at, s.n = n;
        t->slots[w++] = s;
        at += n;
    }
    t->nslots = w, t->nentries = at;
    t->span *= 2;
}

/* Entries in the union of two sorted lists. */
static uint64_t union_size(const hp_ivt_entry *a, uint32_t na, const hp_ivt_entry *b, uint32_t nb)
{
    uint32_t i = 0, j = 0;
    uint64_t n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].key < b[j].key)) i++;
        else if (i == na || b[j].key < a[i].key) j++;
        else i++, j++;
        n++;
    }
    return n;
}

/* Adds the interval into the last slot (which spans less than t->span). 0, or -1: no room. */
static int add_to_last(hp_ivt *t, uint64_t events, const hp_ivt_entry *e, uint32_t n)
{
    hp_ivt_slot *s = &t->slots[t->nslots - 1];
    if (s->off + union_size(t->pool + s->off, s->n, e, n) > t->max_entries) return -1; /* the scratch holds it too */
    uint32_t m = hp_ivt_merge_lists(t->pool + s->off, s->n, e, n, t->scratch);
    memcpy(t->pool + s->off, t->scratch, (size_t)m * sizeof *e);
    s->n = m, s->span++, s->events += events;
    t->nentries = s->off + m;
    return 0;
}

static int add_slot(hp_ivt *t, uint64_t first, uint64_t events, const hp_ivt_entry *e, uint32_t n)
{
    if (t->nslots == t->max_slots || (uint64_t)t->nentries + n > t->max_entries) return -1;
    hp_ivt_slot *s = &t->slots[t->nslots++];
    *s = (hp_ivt_slot){first, 1, events, t->nentries, n};
    memcpy(t->pool + t->nentries, e, (size_t)n * sizeof *e);
    t->nentries += n;
    return 0;
}

int hp_ivt_append(hp_ivt *t, uint64_t events, const hp_ivt_entry *e, uint32_t n)
{
    uint64_t first = t->intervals++;
    for (;;) {
        int last_open = t->nslots && t->slots[t->nslots - 1].span < t->span;
        if (last_open ? add_to_last(t, events, e, n) == 0 : add_slot(t, first, events, e, n) == 0) return 0;
        if (t->nslots > 1) hp_ivt_merge_pairs(t);
        else if (t->nslots == 1 && !last_open) t->span *= 2; /* the lone slot takes later intervals */
        else break; /* it cannot fit even into one slot */
    }
    t->dropped++;
    return -1;
}

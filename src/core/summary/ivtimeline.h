/* ivtimeline.h — a bounded timeline of interval candidate sets (interval profiles, docs/intervals.md).
 *
 * Each completed interval hands over its candidate list (entries sorted by key); the timeline
 * keeps one slot per interval until it holds max_slots slots or its entry pool max_entries
 * entries, then merges neighbouring slots pairwise (0+1, 2+3, ...) and doubles the span a new
 * slot covers: later intervals are added into the last slot until it spans that many base
 * intervals. So every slot but the last covers `span` base intervals (a power of two) and the
 * slots stay in time order. A merged entry sums its counts and its hits (the number of base
 * intervals in which the key was a hardware / exact candidate), so "share of intervals in which a
 * key was a candidate" stays exact after any number of merges.
 * Invariants: slots are contiguous in the pool in time order; entries of a slot are sorted by
 * key with no duplicate; nentries <= max_entries; nslots <= max_slots. When one slot is left and
 * it is full, the span doubles so that later intervals go into it; an interval that cannot fit
 * even into that slot is dropped (counted in `dropped`).
 * Everything lives in the caller's buffer (hp_ivt_bytes); no allocation, no globals.
 */
#ifndef HOTPROF_CORE_SUMMARY_IVTIMELINE_H
#define HOTPROF_CORE_SUMMARY_IVTIMELINE_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_ivt_entry {
    uint64_t key;
    uint64_t count;      /* hardware (multi-hash) estimate, summed over the intervals it was reported */
    uint64_t truth;      /* exact count (exact=1), summed; 0 when not recorded */
    uint32_t hw_hits;    /* base intervals in which it was a multi-hash candidate */
    uint32_t exact_hits; /* base intervals in which it was an exact candidate (count >= T) */
} hp_ivt_entry;

typedef struct hp_ivt_slot {
    uint64_t first;  /* index of its first base interval */
    uint64_t span;   /* base intervals it covers */
    uint64_t events; /* events in them */
    uint32_t off, n; /* its entries: pool[off .. off + n) */
} hp_ivt_slot;

typedef struct hp_ivt {
    uint32_t max_slots, max_entries, nslots, nentries;
    uint64_t span;      /* base intervals a new slot covers: 1, doubled at each merge */
    uint64_t intervals; /* base intervals handed over (dropped ones included) */
    uint64_t dropped;
    hp_ivt_slot *slots;
    hp_ivt_entry *pool, *scratch;
} hp_ivt;

/* Bytes for a timeline of these bounds (max_slots >= 2, max_entries >= 1), 0 if invalid. */
size_t hp_ivt_bytes(uint32_t max_slots, uint32_t max_entries);
hp_ivt *hp_ivt_init(void *mem, size_t bytes, uint32_t max_slots, uint32_t max_entries);
/* Adds one base interval of `events` events with its n entries (sorted by key, distinct).
 * 0, or -1 if it was dropped. */
int hp_ivt_append(hp_ivt *t, uint64_t events, const hp_ivt_entry *e, uint32_t n);
/* Merges slots pairwise and doubles the span (what append does when a bound is reached). */
void hp_ivt_merge_pairs(hp_ivt *t);
/* Merges two sorted entry lists into out (room for na + nb); returns the entries written. */
uint32_t hp_ivt_merge_lists(const hp_ivt_entry *a, uint32_t na, const hp_ivt_entry *b, uint32_t nb, hp_ivt_entry *out);

#endif

/* tab.h — hp_tab: a per-thread open-addressing hash table (linear probing, power-of-two capacity,
 * load <= 1/2) of 32-byte slots {k1, k2, v1, v2}, living in one mmap'd block.
 *
 * k1 == 0 marks an empty slot, so every key stored here has a nonzero k1 (a callee, or an edge
 * key whose "from" guard is nonzero). Hot methods are not a table of their own in exhaustive
 * mode: a call pair slot also counts the back-edges of the activations it started, and the writer
 * sums pairs by callee into FUNCS records (one hash lookup per call instead of two).
 *
 * Invariants:
 *   - Only the owning thread inserts or counts; other threads (the writer, snapshots) only read.
 *   - A table that grows is copied into a fresh mmap'd block, then the new pointer is published
 *     with release semantics; the old block is never unmapped, so a concurrent reader always walks
 *     a complete, consistent array (it may miss the latest increments, never more).
 *   - A new slot's values are written before its k1 (release store): a reader that sees k1 sees
 *     the slot's key and counts.
 *   - used counts occupied slots; (used + 1) * 2 <= capacity after every insert that succeeded.
 *
 * Async-signal-safety: hp_tab_get's fast path only touches memory; hp_tab_slow_get and
 * hp_tab_new call mmap (a plain system call), so they are async-signal-safe in practice.
 */
#ifndef HOTPROF_RUNTIME_TAB_H
#define HOTPROF_RUNTIME_TAB_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/base.h"

typedef struct hp_slot { uint64_t k1, k2, v1, v2; } hp_slot;

typedef struct hp_tab {
    uint64_t mask;  /* capacity - 1 */
    uint32_t shift; /* 64 - log2(capacity), for multiplicative hashing */
    uint32_t pad;
    uint64_t used;  /* occupied slots (owner only) */
    uint64_t pad2;
    hp_slot s[];
} hp_tab;

#define HP_TAB_INITIAL 64u

static inline HP_NOINST uint64_t hp_tab_hash(const hp_tab *t, uint64_t k1, uint64_t k2)
{
    return ((k1 ^ (k2 * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull) >> t->shift;
}

/* Inserts (k1, k2) with zero counts; grows *tabp first when needed. If mmap fails, a sink slot
 * that is never written out (never NULL). */
hp_slot *hp_tab_slow_get(hp_tab **tabp, uint64_t k1, uint64_t k2);
/* An empty table of capacity slots (a power of two); NULL if mmap fails. */
hp_tab *hp_tab_new(uint64_t capacity);
/* Bytes of t's mapping (for munmap of scratch tables). */
static inline HP_NOINST size_t hp_tab_bytes(const hp_tab *t) { return sizeof(hp_tab) + (t->mask + 1) * sizeof(hp_slot); }

/* The slot of (k1, k2), inserting it if absent. k1 must be nonzero. */
static inline HP_NOINST hp_slot *hp_tab_get(hp_tab **tabp, uint64_t k1, uint64_t k2)
{
    hp_tab *t = *tabp;
    for (uint64_t i = hp_tab_hash(t, k1, k2);; i = (i + 1) & t->mask) {
        hp_slot *s = &t->s[i];
        if (HP_LIKELY(s->k1 == k1 && s->k2 == k2)) return s;
        if (s->k1 == 0) return hp_tab_slow_get(tabp, k1, k2);
    }
}

/* Zeroes every slot's counts (keys stay): a fork child that follows the fork. Owner only. */
void hp_tab_zero_counts(hp_tab *t);

#endif

/* tnv.h — Top-N-Value table (Calder, Feller & Eustace's value profiler; shadow profiling §4).
 *
 * One table of N (value, count) entries for one site (the shadow paper keeps N = 50 per
 * instruction). Update: a listed value adds its weight; an unlisted one is appended while there
 * is room, else it replaces the least frequently used entry (smallest count, first in table
 * order on ties) and starts at its own weight. Every K updates (the clear interval) the table is
 * ordered by count, highest first (stable), and its lower half — the entries ranked
 * N - N/2 and below — is cleared, so new values can enter; the upper half is the "steady" part.
 * Defaults: N = 50 (shadow paper), K = 2000 (the clear interval of Calder et al.'s value
 * profiling; the shadow paper says only "periodically").
 *
 * Guarantee (deterministic): an entry starts at the weight of a real occurrence and grows only by
 * its own weight, so count <= true count (lower = count), and
 * true count <= total - (sum of the other listed counts) (upper).
 * Merge is not supported (replacement and clearing are order-dependent): merge() returns -1.
 *
 * Cost: a fingerprint byte per entry, compared 8 at a time, and the set of positions holding
 * the smallest count find the listed value and the LFU victim (tnv.c): ~N/8 word operations per
 * update, plus an O(N) rescan when the last entry at the minimum count grows (amortized over the
 * entries that reached it), and the clear, O(N^2) worst case (stable insertion sort), once per K
 * updates. Memory: hp_tnv_bytes(N) = 48 + 16 N + 8 ceil(N / 64) + 8 ceil(N / 8) bytes (N = 50:
 * 912 bytes).
 */
#ifndef HOTPROF_CORE_TNV_H
#define HOTPROF_CORE_TNV_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"
#include "core/summary/valuetable.h"

#define HP_TNV_DEFAULT_N 50
#define HP_TNV_DEFAULT_CLEAR 2000
#define HP_TNV_MAX_N 4096

typedef struct hp_tnv hp_tnv;
typedef hp_value_count hp_tnv_entry; /* see valuetable.h */

size_t hp_tnv_bytes(uint32_t n_entries);
hp_tnv *hp_tnv_init(void *mem, size_t budget, uint32_t n_entries, uint32_t clear_interval);
void hp_tnv_update(hp_tnv *t, uint64_t value, uint64_t weight);
/* Entries in table order; returns how many are in use. */
uint32_t hp_tnv_entries(const hp_tnv *t, const hp_tnv_entry **out);
uint64_t hp_tnv_clears(const hp_tnv *t); /* how many lower-half clears happened */

extern const hp_summary_vt hp_tnv_vt;

#endif

/* misragries.h — Misra–Gries frequent items, DataSketches style (purge by median, global offset).
 *
 * A linear-probing map of (key, count) with table size T (any size >= 8, as large as the budget
 * allows at 22 bytes per slot) holds at most max_active = 3T/4 keys. An update adds its weight to the key's counter, inserting the key if
 * absent. When the map would hold more than max_active keys, purge: find the median m of all
 * counters, subtract m from every counter, drop counters that are <= 0, and add m to `offset`.
 *
 * Guarantee (deterministic): for every key, count(key) <= true(key) <= count(key) + offset,
 * where count is 0 for keys not held. So lower = count, upper = count + offset.
 * Each purge removes at least half the keys, and offset <= total / (max_active / 2 + 1).
 * Merge: add every (key, count) of src as a weighted update, then offset += src.offset; the
 * bound stays valid for the concatenated stream.
 */
#ifndef HOTPROF_CORE_MISRAGRIES_H
#define HOTPROF_CORE_MISRAGRIES_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"

typedef struct hp_misragries hp_misragries;

hp_misragries *hp_misragries_init(void *mem, size_t budget, uint64_t seed);
void hp_misragries_update(hp_misragries *mg, uint64_t key, uint64_t weight);
/* Counter held for key (0 if none). */
uint64_t hp_misragries_count(const hp_misragries *mg, uint64_t key);
uint64_t hp_misragries_offset(const hp_misragries *mg);
uint32_t hp_misragries_capacity(const hp_misragries *mg); /* max_active */
uint32_t hp_misragries_active(const hp_misragries *mg);
int hp_misragries_merge(hp_misragries *dst, const hp_misragries *src);

extern const hp_summary_vt hp_misragries_vt;

#endif

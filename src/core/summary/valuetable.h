/* valuetable.h — what TNV tables (tnv.h) and per-site value lists (valuelist.h) share: a small
 * array of (value, count) entries, their estimates, their top-k and their serialized entries.
 *
 * Both summaries start an entry at the weight of a real occurrence and grow it only by its own
 * weight, so a listed value has lower = count and upper = total - (sum of the other listed
 * counts) (count if that would be smaller); an unlisted value has [0, total - sum]. Sums saturate
 * at UINT64_MAX. Top-k: count desc, then value asc. Serialized entries: n x (u64 value, u64 count)
 * in table order (each owner writes n, and reads and checks the entries itself).
 */
#ifndef HOTPROF_CORE_VALUETABLE_H
#define HOTPROF_CORE_VALUETABLE_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/bytes.h"
#include "core/summary/summary.h"

typedef struct hp_value_count { uint64_t value, count; } hp_value_count;

/* Sum of the n counts, saturating. */
uint64_t hp_vtab_sum(const hp_value_count *e, uint32_t n);
/* The estimate of a listed value, given total and the sum of all listed counts. */
void hp_vtab_fill(uint64_t total, uint64_t value, uint64_t count, uint64_t sum_all, hp_estimate *out);
/* The estimate of a value not listed. */
void hp_vtab_absent(uint64_t total, uint64_t sum_all, uint64_t value, hp_estimate *out);
/* The k best of the n entries into out, sorted; returns how many. */
size_t hp_vtab_topk(const hp_value_count *e, uint32_t n, uint64_t total, hp_estimate *out, size_t k);
/* Writes the n entries (value, count), u64 each. */
void hp_vtab_write(hp_wbuf *w, const hp_value_count *e, uint32_t n);

#endif

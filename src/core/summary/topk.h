/* topk.h — top-k selection shared by every summary's topk(): the k best entries of a table, given
 * an accessor for entry i. Order: count descending, then key ascending (ties deterministic).
 */
#ifndef HOTPROF_CORE_SUMMARY_TOPK_H
#define HOTPROF_CORE_SUMMARY_TOPK_H
#include <stddef.h>
#include "core/summary/summary.h"

/* Fills *out with entry i of ctx; returns 0 if entry i is empty. */
typedef int (*hp_entry_fn)(const void *ctx, size_t i, hp_estimate *out);
/* The k best of entries 0..n-1 (count desc, key asc) into out, sorted; returns how many. */
size_t hp_topk_select(const void *ctx, size_t n, hp_entry_fn get, hp_estimate *out, size_t k);

#endif

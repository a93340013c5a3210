/* exact.h — Exact: every key counted exactly, in a fixed open-addressing table (the ground truth).
 *
 * The table lives in the caller's memory: a header followed by as many (key, count) slots as the
 * budget holds, linear probing, keys mixed by hp_mix64_xmx (base/hash.h). A slot is empty iff its count is 0,
 * so every 64-bit key (0 and UINT64_MAX included) can be stored; zero-weight updates store nothing.
 * At most 3/4 of the slots are used. When the table is full, an update for a new key is dropped:
 * its weight goes to `dropped`, hp_exact_full() turns true and update returns -1. Invariant:
 * sum(counts) + dropped == total (all sums saturate at UINT64_MAX). While nothing was dropped
 * every estimate is exact (lower == count == upper); after a drop, upper = count + dropped.
 */
#ifndef HOTPROF_CORE_EXACT_H
#define HOTPROF_CORE_EXACT_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"
#include "core/base/bounds.h"
#include "core/summary/topk.h"

typedef struct hp_exact hp_exact;
extern const hp_summary_vt hp_exact_vt;

#define HP_EXACT_VERSION 1u

/* Places a table with as many slots as fit in budget (at least 8); NULL if budget is too small. */
hp_exact *hp_exact_init(void *mem, size_t budget);
/* Bytes needed for a table of `slots` slots (>= 8). */
size_t hp_exact_bytes_for(size_t slots);
/* Adds weight to key; returns 0 if counted, -1 if dropped because the table is full. */
int hp_exact_update(hp_exact *e, uint64_t key, uint64_t weight);
int hp_exact_query(const hp_exact *e, uint64_t key, hp_estimate *out);
uint64_t hp_exact_count(const hp_exact *e, uint64_t key);
size_t hp_exact_topk(const hp_exact *e, hp_estimate *out, size_t k);
/* dst += src; keys that do not fit go to dst's dropped weight. The merge is always done; returns
 * -1 (and dst is full()) if weight was lost, here or earlier in src, or if dst == src. */
int hp_exact_merge(hp_exact *dst, const hp_exact *src);
size_t hp_exact_serialized_size(const hp_exact *e);
size_t hp_exact_serialize(const hp_exact *e, void *buf, size_t cap);
hp_exact *hp_exact_deserialize(void *mem, size_t budget, const void *buf, size_t len);
size_t hp_exact_bytes_used(const hp_exact *e);
uint64_t hp_exact_total(const hp_exact *e);
int hp_exact_full(const hp_exact *e);        /* 1 once any weight was dropped */
uint64_t hp_exact_dropped(const hp_exact *e); /* weight dropped so far */
size_t hp_exact_size(const hp_exact *e);      /* distinct keys held */
size_t hp_exact_capacity(const hp_exact *e);  /* distinct keys it can hold */

#endif

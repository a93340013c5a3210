/* heavykeeper.h — HeavyKeeper top-k (Gong et al., USENIX ATC 2018).
 *
 * d = 2 arrays of w buckets, each (32-bit fingerprint, 32-bit count), bucket h_j(K) per array
 * (from one seeded hash of K); plus an indexed min-heap of the top candidates (hp_topheap, from
 * countmin.h).
 * Update of key K with fingerprint F, in each array at bucket B = h_j(K):
 *   B empty            -> B = (F, 1)
 *   B.fp == F          -> B.count += 1
 *   otherwise          -> with probability b^-B.count (b = 1.08) decrement B.count, and if it
 *                         reaches 0, B = (F, 1)                      (exponential-weakening decay)
 * A weight w > 1 is w unit updates (decays drawn as geometric skips). The estimate is the largest
 * count among the arrays whose fingerprint matches; the heap keeps max(heap count, estimate) for
 * held keys and admits a new key when its estimate exceeds the heap minimum.
 *
 * Guarantee (probabilistic, documented in docs/baselines.md): counts only grow through the key's
 * own updates, so estimate <= true count unless another key with the same 32-bit fingerprint
 * shares a bucket (probability about (keys in the bucket) / 2^32 per bucket). So lower = estimate
 * holds with that probability; upper = total weight always holds. The paper's error bound:
 * P(true - estimate >= eps * N) <= 1 / (eps * w * (b - 1) * true) for a key mapped alone.
 * Merge is not supported (the decay is order-dependent): merge() returns -1.
 * Budget split: a quarter of the budget for the heap, the rest for buckets.
 * Cost: one hp_mix64 per update gives the fingerprint (low 32 bits) and both buckets (one
 * multiply each); decay probabilities come from a table (no pow()); the heap offer is skipped
 * when the heap is full and the estimate is not above its minimum (it would change nothing).
 */
#ifndef HOTPROF_CORE_HEAVYKEEPER_H
#define HOTPROF_CORE_HEAVYKEEPER_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/countmin.h"
#include "core/summary/summary.h"

#define HP_HK_ARRAYS 2
#define HP_HK_DECAY_BASE 1.08
#define HP_HK_HEAP_SHARE 4

typedef struct hp_heavykeeper hp_heavykeeper;

hp_heavykeeper *hp_heavykeeper_init(void *mem, size_t budget, uint64_t seed);
/* Explicit shape: `width` buckets per array, heap of `heap_cap`; NULL if it does not fit. */
hp_heavykeeper *hp_heavykeeper_init_shape(void *mem, size_t budget, uint64_t seed, uint32_t width, uint32_t heap_cap);
void hp_heavykeeper_update(hp_heavykeeper *hk, uint64_t key, uint64_t weight);
/* The decay probability b^-count (b = HP_HK_DECAY_BASE) from a table, as the update uses it;
 * 0 from HK_NO_DECAY_COUNT (577) on, where b^-count < 2^-64. */
double hp_heavykeeper_decay_probability(uint32_t count);
/* Sketch estimate (ignores the heap). */
uint64_t hp_heavykeeper_estimate(const hp_heavykeeper *hk, uint64_t key);
uint32_t hp_heavykeeper_width(const hp_heavykeeper *hk);
uint32_t hp_heavykeeper_heap_cap(const hp_heavykeeper *hk);

extern const hp_summary_vt hp_heavykeeper_vt;

#endif

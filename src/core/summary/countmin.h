/* countmin.h — Count-Min sketch with conservative update (Estan–Varghese), plus a min-heap of
 * candidate heavy keys; and hp_topheap, the indexed min-heap it shares with HeavyKeeper.
 *
 * Count-Min: d rows of w saturating 32-bit counters. Hashing: one seeded hp_mix64 of the key, h;
 * row 0's column is h scaled to w, row r's the high bits of h * a_r (a_r a seeded odd multiplier:
 * multiply-shift, universal up to a factor 2, which is what the Count-Min error bound uses),
 * scaled to w by a multiply-high. Conservative update
 * raises each of a key's d counters only as far as (old estimate + weight), where the estimate is
 * the minimum of the key's counters. Invariant: every counter is >= the true count of every key
 * that hashes to it, so the estimate never underestimates (until a counter saturates at
 * 2^32-1; a saturated estimate reports upper = UINT64_MAX). Lower bound is 0.
 *
 * The heap is offered a key only when it can change: a heap count is that key's estimate at its
 * last offer (estimates never decrease), so with a full heap an estimate <= the heap minimum would
 * change nothing and is not offered (most updates of a flat tail).
 *
 * Budget split (documented in docs/baselines.md): a quarter of the budget, rounded down to whole
 * entries, holds the heap (HP_CM_HEAP_SHARE); the rest holds the counters, d = 4 rows.
 *
 * hp_topheap: a min-heap of (key, count) with an open-addressing index from key to heap slot,
 * so membership, raise and replace-the-minimum cost O(log cap). Invariants: heap order on count;
 * idx[s] == pos + 1 for exactly the slots holding a live key, 0 for empty; linear probing with
 * backward-shift deletion (no tombstones), home slot by Fibonacci hashing; index size a power of
 * two >= 2 * cap. Its top-k extraction and its serialized form are shared by both owners too.
 */
#ifndef HOTPROF_CORE_COUNTMIN_H
#define HOTPROF_CORE_COUNTMIN_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/bytes.h"
#include "core/summary/summary.h"

/* ---- indexed min-heap of candidate keys ---- */
typedef struct hp_topentry { uint64_t key, count; } hp_topentry;
typedef struct hp_topheap {
    uint32_t cap, n, idx_mask, reserved;
    /* followed by hp_topentry e[cap], then uint32_t idx[idx_mask + 1] */
} hp_topheap;

size_t hp_topheap_bytes(uint32_t cap);
/* Largest cap whose heap fits in `bytes` (0 if none). */
uint32_t hp_topheap_cap_for(size_t bytes);
hp_topheap *hp_topheap_init(void *mem, uint32_t cap);
void hp_topheap_clear(hp_topheap *h);
/* Slot of key in the heap array, or -1. */
long hp_topheap_find(const hp_topheap *h, uint64_t key);
/* Smallest count held, 0 while the heap is not full. */
uint64_t hp_topheap_floor(const hp_topheap *h);
/* Key present: count becomes max(old, count). Absent: inserted if room, or if count exceeds
 * the minimum of a full heap (the minimum is evicted). */
void hp_topheap_offer(hp_topheap *h, uint64_t key, uint64_t count);
const hp_topentry *hp_topheap_entries(const hp_topheap *h);
/* Overwrite every count through `reestimate`, then restore heap order and index. */
void hp_topheap_recount(hp_topheap *h, uint64_t (*reestimate)(const void *, uint64_t), const void *ctx);
/* Up to k entries, highest count first (ties: smaller key first). */
size_t hp_topheap_sorted(const hp_topheap *h, hp_topentry *out, size_t k);
/* Insert without any eviction; -1 if full or duplicate (used by deserializers). */
int hp_topheap_push(hp_topheap *h, uint64_t key, uint64_t count);
/* Fills *out for an entry of key with heap count `count` (the owner's estimate and bounds). */
typedef void (*hp_topheap_fill_fn)(const void *ctx, uint64_t key, uint64_t count, hp_estimate *out);
/* Up to k entries as `fill` makes them, by insertion: highest out->count first, ties by smaller
 * key; once k are held, an entry whose count is not above the k-th is skipped. */
size_t hp_topheap_topk(const hp_topheap *h, hp_topheap_fill_fn fill, const void *ctx, hp_estimate *out, size_t k);
/* Serialized heap: u32 n, then n x (u64 key, u64 count) in heap order. */
void hp_topheap_write(const hp_topheap *h, hp_wbuf *w);
/* Reads that into an empty heap: 0 if it is short, n > cap, other bytes follow, an entry is
 * rejected by entry_ok(ctx, key, count), or a key repeats. */
int hp_topheap_read(hp_topheap *h, hp_rbuf *r, int (*entry_ok)(const void *ctx, uint64_t key, uint64_t count),
                    const void *ctx);

/* ---- Count-Min, conservative update ---- */
#define HP_CM_ROWS 4
#define HP_CM_HEAP_SHARE 4 /* heap gets budget / HP_CM_HEAP_SHARE */
typedef struct hp_countmin hp_countmin;

hp_countmin *hp_countmin_init(void *mem, size_t budget, uint64_t seed);
void hp_countmin_update(hp_countmin *cm, uint64_t key, uint64_t weight);
uint64_t hp_countmin_estimate(const hp_countmin *cm, uint64_t key);
uint32_t hp_countmin_width(const hp_countmin *cm);
uint32_t hp_countmin_heap_cap(const hp_countmin *cm);
const hp_topheap *hp_countmin_heap(const hp_countmin *cm);
int hp_countmin_merge(hp_countmin *dst, const hp_countmin *src);

extern const hp_summary_vt hp_countmin_cu_vt;

#endif

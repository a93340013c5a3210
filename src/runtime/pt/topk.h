/* topk.h — the k hottest keys of one kind of per-thread table, merged across every thread
 * without stopping them: shared by hotprof_snapshot_topk (api.c) and the methods and callpairs
 * live views (hp_pt.live_rows, read by live.c's publisher).
 *
 * The walk reads each thread's live table through its published pointer (tab.h: a grown
 * table's old block stays mapped, a slot's key is published after its counts) and sums counts
 * per key into a scratch table mmap'd for the call; it never writes a thread's memory. Each
 * value was held at some moment during the walk; values are not consistent across keys.
 *
 * Invariants: the scratch table is sized for every key seen at sizing time at load <= 1/2, and
 * is unmapped (with any block it grew from) before returning. Rows come highest count first,
 * ties by key1 then key2; row values are the uint64 counts as doubles (exact below 2^53).
 * Async-signal-safety: mmap/munmap only; not meant for a handler.
 */
#ifndef HOTPROF_RUNTIME_PT_TOPK_H
#define HOTPROF_RUNTIME_PT_TOPK_H
#include "runtime/pt/pt.h"

enum hp_topk_kind {
    HP_TOPK_METHODS,   /* key: function; value: calls + back-edges (exhaustive: summed from the pairs) */
    HP_TOPK_CALLPAIRS, /* key: callee, key2: call site; value: calls */
    HP_TOPK_EDGES,     /* key: the edge key (from << 32 | to); value: executions */
};

/* The k hottest merged rows of kind into out (npcs = 0); returns how many, or -1 (no memory). */
int hp_topk_merged(enum hp_topk_kind kind, hp_live_row *out, int k);

#endif

/* intervals.h — interval multi-hash profiles in the runtime (docs/intervals.md): per thread and
 * stream (value, edges) one core multi-hash (core/summary/multihash.h, the paper's hash, seeded
 * with the run seed), optionally the exact counts of the interval (exact=1), and the bounded
 * timeline (core/summary/ivtimeline.h) the candidates of each completed interval go into.
 * Threads of such a run take the hooks' mode branch (t->bursty == HP_THREAD_TRACING, as with
 * --record-trace: hooks_trace.h), which feeds the very tuples the trace records, built into keys
 * by hp_multihash_tuple_key, so `hotprof sim multihash` on a trace of the same run replays the
 * same key stream through the same engine.
 * Names: a key loses the high half of the pc; each key promoted into the accumulator (and each
 * exact candidate) is remembered with its tuple in a small direct-mapped table (HP_IV_NAMES
 * entries; a collision forgets the older one) and written beside the timeline.
 * Invariants: only the owning thread updates its state (a signal handler's tuples that arrive
 * while the thread is inside an update are dropped: t->iv_busy); the writer reads it (a flush while the
 * owner merges its timeline may write an older slot list: entries are clamped to the pool).
 * Async-signal-safe: memory and mmap only. Bursty mode: edges are fed where the edges type
 * records a sampled edge, values while any sampled type is in a burst (live hooks) or a patched
 * window is open (patch mode: the value hooks' sites are live only in windows; hooks.c), so
 * intervals count sampled tuples.
 */
#ifndef HOTPROF_RUNTIME_PT_INTERVALS_H
#define HOTPROF_RUNTIME_PT_INTERVALS_H
#include <stdint.h>
#include "runtime/thread.h"
#include "core/control/spec.h"

#define HP_IV_NAMES 4096u

/* How the run feeds the streams: every event, or the events of live bursts or patched windows
 * (the sections say so: HP_IVSEC_BURSTY, and HP_IVSEC_PATCH for windows). */
enum { HP_RT_IV_EXHAUSTIVE = 0, HP_RT_IV_LIVE = 1, HP_RT_IV_PATCH = 2 };
/* Init: keeps the parameters and sets hp_g.iv_streams. */
void hp_rt_iv_start(const hp_iv_params iv[HP_IV_NSTREAMS], uint64_t seed, int how);
/* One tuple of a stream (HP_IV_VALUE, HP_IV_EDGES) of thread t. */
void hp_rt_iv_add(hp_thread *t, int stream, uint64_t a, uint64_t b);
/* Bursty runs (live or patched): after a group was written, says once on stderr for each stream
 * whose threads all completed fewer than HP_IVSEC_FEW_INTERVALS (core/format/ivsec.h) intervals
 * that its intervals are too few to show phases (too few sampled events per interval). */
void hp_rt_iv_warn_sparse(void);
/* The INFO value of a stream's configuration (hp_iv_params_format), "" if off. */
const char *hp_rt_iv_info(int stream);

#endif

/* trace.h — `hotprof run --record-trace`: the runtime side of event traces (docs/trace.md).
 * In an exhaustive run with HOTPROF_TRACE set, every thread is created with t->bursty =
 * HP_THREAD_TRACING, so the hooks take their (already tested, unlikely) mode branch, record one
 * kind of tuple here, then run the exhaustive body: hooks of runs that do not trace test no new
 * flag. Kinds (paper §3 names): edges <prev block pc, block pc> (trace-pc-guard, via the guard
 * map), values <hook return address, operand> (every operand of trace-cmp, the variable one of
 * const-cmp, switch/div/gep operands, and the value a trace-loads hook reads at its address),
 * calls <fn, call site> at entry and <fn, 0> at a loop back-edge of fn (hooks_common.h's rule).
 *
 * Mechanism: tuples go into a per-thread buffer (mmap'd on the thread's first traced event); a
 * full buffer is handed over with ONE write() of a raw record (tid, count, tuples) to a file
 * opened O_APPEND, which `hotprof run` compresses into the trace file after the program exits
 * (so libhotprof_rt needs no zstd, and writes from many threads never interleave). At normal exit
 * (and in the runtime's fatal-signal handler) every thread's buffer is flushed and an end record
 * carrying the flags (cut at HOTPROF_TRACE_LIMIT events) appended; a run that dies without it
 * (SIGKILL) is marked lost by `hotprof run`. Exec: before the image is replaced every buffer is
 * flushed and an exec record (flags) appended; the new image, if it traces (init.c: the same pid,
 * HOTPROF_TRACE_PID), opens the same file and appends its own kind record (the same kind:
 * HOTPROF_TRACE_KIND is set to the one in use) and tuples; its main thread keeps the tid, so its
 * tuples continue the same thread's stream. Each image has the whole budget; `hotprof run` cuts
 * the sum at the limit. A trace whose last record is an exec record ended in an image that does
 * not trace: complete, not lost.
 *
 * Raw records: u64 tid, u64 n, then n pairs of u64 (a, b); special tids: HP_RAW_KIND (n = the
 * kind recorded), HP_RAW_END (n = flags), HP_RAW_EXEC (n = flags). Native byte order (same machine).
 *
 * Invariants: only the owning thread appends to its buffer; at most HOTPROF_TRACE_LIMIT tuples
 * are ever written (a shared atomic budget); a thread state that holds a trace buffer is never
 * recycled (thread.c), so no tuple changes thread. Async-signal-safe: memory, mmap, write.
 */
#ifndef HOTPROF_RUNTIME_PT_TRACE_H
#define HOTPROF_RUNTIME_PT_TRACE_H
#include <stdint.h>
#include "runtime/thread.h"

#define HP_RAW_KIND (UINT64_MAX - 1)
#define HP_RAW_END UINT64_MAX
#define HP_RAW_EXEC (UINT64_MAX - 2)
#define HP_RT_TRACE_VALUES 1u /* = sim/trace.h's HP_TRACE_* kinds */
#define HP_RT_TRACE_EDGES 2u
#define HP_RT_TRACE_CALLS 3u
#define HP_RT_TRACE_BUF 16384u /* tuples per thread buffer */

typedef struct hp_trace_buf {
    uint64_t tid, n;                      /* the raw record's head, written with the tuples */
    uint64_t t[2 * HP_RT_TRACE_BUF];
} hp_trace_buf;

/* Init: opens path (O_APPEND) and sets hp_g.trace_kind (kind 0: edges if blocks are compiled
 * in, else calls). 0, or -1 after one message on stderr (then nothing is traced). */
int hp_rt_trace_start(const char *path, uint32_t kind, uint64_t limit);
/* The buffer is full or missing: hand it over (or map it) and append (a, b). */
void hp_rt_trace_slow(hp_thread *t, uint64_t a, uint64_t b);
/* Exit: flushes every thread's buffer and writes the end record. */
void hp_rt_trace_finish(void);
/* Before exec: flushes every thread's buffer and writes an exec record (the fd closes on exec;
 * if the exec fails, tracing goes on). */
void hp_rt_trace_exec(void);
/* "values", "edges" or "calls": the kind in use (HOTPROF_TRACE_KIND's words), "" if none. */
const char *hp_rt_trace_kind_name(void);

static inline HP_NOINST void hp_rt_trace(hp_thread *t, uint64_t a, uint64_t b)
{
    hp_trace_buf *buf = t->trace;
    if (HP_UNLIKELY(!buf || buf->n == HP_RT_TRACE_BUF)) {
        hp_rt_trace_slow(t, a, b);
        return;
    }
    buf->t[2 * buf->n] = a;
    buf->t[2 * buf->n + 1] = b;
    buf->n++;
}

#endif

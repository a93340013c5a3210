/* hooks_trace.h — the hook bodies of an exhaustive run that records a trace (--record-trace;
 * included by hooks.c only). Threads of such a run have bursty == HP_THREAD_TRACING, so these
 * run from the hooks' mode branch: record the tuple of the traced kind (pt/trace.h says which),
 * then do exactly what the exhaustive body does, so the run's profile is the same as without
 * the trace. Static inline: one call (pt/trace.c) only when a buffer is full.
 */
#ifndef HOTPROF_RUNTIME_HOOKS_TRACE_H
#define HOTPROF_RUNTIME_HOOKS_TRACE_H
#include "runtime/hooks_exhaustive.h"
#include "runtime/pt/trace.h"
#include "runtime/pt/intervals.h"

static inline HP_NOINST uint32_t trace_kind(void) { return HP_LOAD_RLX(&hp_g.trace_kind); }
/* Interval profiles (pt/intervals.h) of stream s are on: they get the same tuples as the trace. */
static inline HP_NOINST uint32_t iv_on(int s) { return HP_LOAD_RLX(&hp_g.iv_streams) & (1u << s); }

static inline HP_NOINST void trace_enter(hp_thread *t, uint64_t fn, uint64_t site)
{
    if (trace_kind() == HP_RT_TRACE_CALLS) hp_rt_trace(t, fn, site);
    exhaustive_enter(t, fn, site);
}

/* edges: <previous block's pc, this block's pc> of this thread; calls: <fn, 0> at a back-edge. */
static inline HP_NOINST void trace_block(hp_thread *t, uint32_t id)
{
    uint32_t prev = t->prev_guard, kind = trace_kind();
    uint64_t backedges = t->tot.backedges;
    exhaustive_block(t, id);
    if ((kind == HP_RT_TRACE_EDGES || iv_on(HP_IV_EDGES)) && prev && id) {
        uint64_t from = hp_block_pc(prev), to = hp_block_pc(id);
        if (from && to && kind == HP_RT_TRACE_EDGES) hp_rt_trace(t, from, to);
        if (from && to && iv_on(HP_IV_EDGES)) hp_rt_iv_add(t, HP_IV_EDGES, from, to);
    }
    if (kind == HP_RT_TRACE_CALLS && t->tot.backedges != backedges) {
        hp_rt_trace(t, hp_top_frame(t)->fn, 0);
    }
}

/* calls: <fn, 0> at a two-version build's loop back-edge (the dual back-edge hook's, hooks_dual.h:
 * the address rule of trace_block is off in such builds). */
static inline HP_NOINST void trace_dual_backedge(hp_thread *t, uint64_t fn)
{
    if (t->bursty == HP_THREAD_TRACING && trace_kind() == HP_RT_TRACE_CALLS) hp_rt_trace(t, fn, 0);
}

/* values: <the hook's return address, the operand>. */
static inline HP_NOINST void trace_value(hp_thread *t, uint64_t pc, uint64_t v)
{
    if (trace_kind() == HP_RT_TRACE_VALUES) hp_rt_trace(t, pc, v);
    if (iv_on(HP_IV_VALUE)) hp_rt_iv_add(t, HP_IV_VALUE, pc, v);
}

#endif

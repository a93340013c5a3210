/* hooks_bursty.h — the hook bodies of bursty mode with live hooks (HOTPROF_MODE=bursty,
 * HOTPROF_BURSTS=live or patching unavailable; docs/bursty.md; the HPS controller of
 * core/control/bursty.h). Included by hooks.c only; hooks_patch.h reuses the record helpers.
 *
 * Calls and back-edges are the boundary events that advance the thread's controller. Every hook
 * keeps the state the event rules need whether or not it samples — func_enter/exit push and pop
 * the shadow frame, a block runs the back-edge rule and sets prev_guard — and then, only for the
 * types whose flag is on: a call records methods (t->methods v1) and call pairs (t->pairs v1);
 * a back-edge records methods (t->methods v2 of the top frame's function) and edges; any block
 * records edges (block count + edge) when the edge flag is on (forward blocks: hp_bursty_on,
 * no counter moves); with an edges interval profile a sampled edge also goes to pt/intervals.c
 * (and hooks.c gives it the values seen while any type is in a burst). Loads/stores read the datastream flag and, while it is on, go to
 * hp_rt_ds_sample (pt/datastream.c); the controller's slow path, where the flag goes off, ends
 * the detector's burst (hp_rt_ds_burst_end). Not sampling, a call costs the frame push and one
 * decrement; a block the back-edge rule and one decrement or one flag test; a load or store one
 * flag test. Static inline fast paths; recording is in noinline functions (off the fast path).
 *
 * Async-signal-safety: a hook run by a signal handler that interrupted this thread's slow path
 * gives its event back and records nothing (t->in_slow).
 */
#ifndef HOTPROF_RUNTIME_HOOKS_BURSTY_H
#define HOTPROF_RUNTIME_HOOKS_BURSTY_H
#include "runtime/hooks_common.h"
#include "runtime/pt/datastream.h"
#include "runtime/pt/intervals.h"

#define BIT_METHODS HP_BURSTY_BIT(HP_BURSTY_METHODS)
#define BIT_PAIRS HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS)
#define BIT_EDGES HP_BURSTY_BIT(HP_BURSTY_EDGES)
#define BIT_STREAMS HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS)

/* The controller's slow path, guarded: a hook run by a signal handler that interrupted this
 * thread's slow path gives its event back (countdown++) and records nothing. Inlined into the
 * count mode's slow path (hooks_dual.h), called by the others (bursty_slow). */
static inline __attribute__((always_inline)) HP_NOINST uint32_t bursty_slow_body(hp_thread *t)
{
    if (t->in_slow) {
        t->bs.countdown++;
        return 0;
    }
    t->in_slow = 1;
    __asm__ volatile("" ::: "memory");
    uint32_t on = hp_bursty_boundary_slow(&t->bs); /* (streams are never folded: on the event before) */
    if (HP_UNLIKELY(on & ~t->bs.on_mask & BIT_STREAMS)) hp_rt_ds_burst_end(t);
    __asm__ volatile("" ::: "memory");
    t->in_slow = 0;
    return on;
}

static HP_NOINST __attribute__((noinline)) uint32_t bursty_slow(hp_thread *t) { return bursty_slow_body(t); }

/* hp_bursty_boundary (core/control/bursty.h) with the guarded slow path: a boundary event (call or
 * back-edge); returns the types whose flag was on at it. Fast path: one decrement, one branch. */
static inline HP_NOINST uint32_t bursty_boundary(hp_thread *t)
{
    if (HP_LIKELY(--t->bs.countdown != 0)) return 0;
    return bursty_slow(t);
}

static HP_NOINST __attribute__((noinline)) void bursty_record_call(hp_thread *t, uint64_t fn, uint64_t site, uint32_t on)
{
    if (on & BIT_METHODS) HP_BUMP(&hp_tab_get(&t->methods, fn, 0)->v1);
    if (on & BIT_PAIRS) HP_BUMP(&hp_tab_get(&t->pairs, fn, site)->v1);
    HP_BUMP(&t->tot.calls);
}

/* Bursty call: the frame is always pushed (the back-edge rule needs it); the call is recorded
 * only for the types sampling at it. */
static inline HP_NOINST void bursty_enter(hp_thread *t, uint64_t fn, uint64_t site)
{
    push_frame(t, fn, site, NULL);
    uint32_t on = bursty_boundary(t) & (BIT_METHODS | BIT_PAIRS);
    if (HP_UNLIKELY(on)) bursty_record_call(t, fn, site, on);
}

static HP_NOINST __attribute__((noinline)) void bursty_record_block(hp_thread *t, uint32_t prev, uint32_t id,
                                                                    uint32_t on, hp_frame *fr)
{
    if (on & BIT_EDGES) {
        count_block(t, prev, id);
        if (HP_UNLIKELY(HP_LOAD_RLX(&hp_g.iv_streams) & (1u << HP_IV_EDGES)) && prev && id) { /* pt/intervals.h */
            uint64_t from = hp_block_pc(prev), to = hp_block_pc(id);
            if (from && to) hp_rt_iv_add(t, HP_IV_EDGES, from, to);
        }
    }
    if (!(on & BIT_METHODS) || !fr) return;
    HP_BUMP(fr->fn ? &hp_tab_get(&t->methods, fr->fn, 0)->v2 : &t->orphan_backedges);
    HP_BUMP(&t->tot.backedges);
}

/* Bursty block: the back-edge rule runs on every block (a back-edge is a boundary event); a
 * forward block only reads the flags. Recorded only for the types sampling at it. */
static inline HP_NOINST void bursty_block(hp_thread *t, uint32_t id)
{
    uint32_t prev = t->prev_guard;
    t->prev_guard = id;
    hp_frame *fr = backedge_frame(t, id);
    uint32_t on = fr ? bursty_boundary(t) & (BIT_METHODS | BIT_EDGES) : hp_bursty_on(&t->bs) & BIT_EDGES;
    if (HP_UNLIKELY(on)) bursty_record_block(t, prev, id, on, fr);
}

#endif

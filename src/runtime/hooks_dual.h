/* hooks_dual.h — the body of the back-edge hook of two-version code (__hotprof_dual_backedge,
 * plugin/hotprof_dual.cpp, docs/dual.md). Included by hooks.c only.
 *
 * The instrumented copy of a function calls the hook on every taken loop back-edge (a LoopInfo
 * latch -> header edge): +1 back-edge of the function's frame and of the thread's totals. The
 * frame is the top one when it is fn's; else fn's frame a little further down (the frames above
 * were left by a throw or longjmp without exit hooks: dropped), else the top frame (fn was
 * entered through its clean copy: no frame of its own). The return value tells the copy whether
 * to stay instrumented (non-zero) or go back to the clean copy at this back-edge: stay while
 * hp_g.dual says every site is on (exhaustive mode, and bursty mode with live hooks, where the
 * back-edge is a boundary event of the thread's HPS counters and methods record it for fn).
 * Patched bursts (hp_g.dual == HP_DUAL_BURSTS): stay while a window is open; a back-edge in a
 * window takes a unit and methods record it for fn. This hook never hands its call site to
 * sites.c: its return value is its answer, and `mov eax, imm32` there would forge one.
 *
 * Static inline, memory only: async-signal-safe like the other bodies.
 */
#ifndef HOTPROF_RUNTIME_HOOKS_DUAL_H
#define HOTPROF_RUNTIME_HOOKS_DUAL_H
#include "runtime/hooks_patch.h"
#include "runtime/ctl/dual.h"

static HP_NOINST __attribute__((noinline, cold)) hp_frame *dual_frame(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth;
    if (d >= HP_STACK_FRAMES) return &t->overflow;
    uint64_t lowest = d > HP_RESYNC_SEARCH ? d - HP_RESYNC_SEARCH : 1;
    for (uint64_t k = d; k >= lowest && k > 0; k--)
        if (t->stack[k].fn == fn) {
            t->depth = k;
            return &t->stack[k];
        }
    return hp_top_frame(t);
}

static inline HP_NOINST void dual_backedge(hp_thread *t, uint64_t fn)
{
    hp_frame *fr = hp_top_frame(t);
    if (HP_UNLIKELY(fr->fn != fn)) fr = dual_frame(t, fn);
    HP_BUMP(fr->backedges);
    HP_BUMP(&t->tot.backedges);
}

/* Patched bursts: 0 (leave) outside a window; in one, a unit and the window's mask. */
static inline HP_NOINST uint32_t dual_patch_backedge(hp_thread *t, uint64_t fn)
{
    uint32_t mask = HP_LOAD_ACQ(&hp_g.pb.mask);
    if (HP_LIKELY(!mask)) return 0;
    if (HP_UNLIKELY(t->win.epoch != HP_LOAD_RLX(&hp_g.pb.epoch))) window_reset(t);
    HP_BUMP(&t->win.hooks);
    uint64_t t0 = tsc_start(t); /* the hooks' time comes out of the window's time per unit */
    if (hp_pb_take()) {
        if (mask & BIT_METHODS) HP_BUMP(&hp_tab_get(&t->methods, fn, 0)->v2);
        HP_BUMP(&t->tot.backedges);
    }
    tsc_add(t, t0);
    return mask;
}

/* Live bursty hooks: a boundary event of the HPS counters; methods record it while on. */
static inline HP_NOINST void dual_live_backedge(hp_thread *t, uint64_t fn)
{
    if (HP_UNLIKELY(bursty_boundary(t) & BIT_METHODS)) {
        HP_BUMP(&hp_tab_get(&t->methods, fn, 0)->v2);
        HP_BUMP(&t->tot.backedges);
    }
}

#endif

/* hooks_dual.h — the body of the back-edge hook of two-version code (__hotprof_dual_backedge,
 * plugin/hotprof_dual.cpp, docs/dual.md). Included by hooks.c only.
 *
 * The instrumented copy of a function calls the hook on every taken loop back-edge (a LoopInfo
 * latch -> header edge): +1 back-edge of the function's frame and of the thread's totals. The
 * frame is the top one when it is fn's; else fn's frame a little further down (the frames above
 * were left by a throw or longjmp without exit hooks: dropped), else the top frame (fn was
 * entered through its clean copy: no frame of its own). The return value tells the copy whether
 * to stay instrumented (non-zero) or go back to the clean copy at this back-edge: stay while
 * hp_g.dual says every site is on (exhaustive mode).
 *
 * Static inline, memory only: async-signal-safe like the other bodies.
 */
#ifndef HOTPROF_RUNTIME_HOOKS_DUAL_H
#define HOTPROF_RUNTIME_HOOKS_DUAL_H
#include "runtime/hooks_common.h"
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

#endif

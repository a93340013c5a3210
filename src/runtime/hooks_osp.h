/* hooks_osp.h — the block hook's OSP body (included by hooks.c only; pt/subpath.h has the
 * state). Live sampling: a skip decrement, or one append while a sample is being recorded, inline;
 * everything else (a thread's first block, a complete sample, exact counting) goes to
 * hp_rt_osp_block. Reached only when the thread's blockflags has HP_BLOCK_OSP, so the block hook
 * of a run without subpaths tests nothing more than before. Count mode (HP_OSP_RT_COUNT): a block
 * outside a subpath burst returns at once; osp_exit cuts a burst when its first frame returns
 * (the caller may be a clean copy, whose blocks no hook sees) — unless it returns to a call with
 * a live return site (ctl/dual.h hp_dual_return_point): the countdown is 0 in a burst, so the
 * caller goes on in its instrumented copy right after the call, and the base moves down to it —
 * or unless it returns out of every module with dual sites (ctl/dual_text.c: a thread's start
 * routine into libc, a callback into a library): no block of ours runs until ours is entered
 * again, whose blocks the burst then sees as the exhaustive stream does, so nothing is cut.
 */
#ifndef HOTPROF_RUNTIME_HOOKS_OSP_H
#define HOTPROF_RUNTIME_HOOKS_OSP_H
#include "runtime/hooks_common.h"
#include "runtime/pt/subpath.h"
#include "runtime/ctl/dual.h"

static inline HP_NOINST void osp_block(hp_thread *t, uint32_t id)
{
    hp_thread_osp *o = t->osp;
    if (HP_LIKELY(o && o->live && !o->busy)) {
        if (HP_LIKELY(o->s.skip)) {
            o->s.skip--;
            return;
        }
        if (o->s.pos + 1 < o->s.length) {
            o->s.ids[o->s.pos++] = id;
            return;
        }
    } else if (o && (o->cmode & 1)) { /* count mode, idle or pre-armed */
        return;
    }
    hp_rt_osp_block(t, id);
}

static HP_NOINST __attribute__((noinline, cold)) void osp_exit_base(hp_thread *t, hp_thread_osp *o, uint64_t ret)
{
    if (hp_dual_return_point(ret) || !hp_dual_in_text(ret)) hp_rt_osp_count_return(o, t->depth);
    else hp_rt_osp_count_exit(o);
}

/* An exit hook (bursty) returning to ret: a count-mode subpath burst ends when its first frame
 * returns (a pre-armed thread then takes a new first frame at its trigger), unless ret has a
 * live return site or lies outside our modules. */
static inline HP_NOINST void osp_exit(hp_thread *t, uint64_t ret)
{
    hp_thread_osp *o = t->osp;
    if (HP_UNLIKELY(o && o->cmode >= HP_OSP_C_BURST) && t->depth <= o->cbase) osp_exit_base(t, o, ret);
}

#endif

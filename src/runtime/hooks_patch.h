/* hooks_patch.h — the hook bodies of patch mode (HOTPROF_MODE=bursty over patched call sites,
 * ctl/sites.c and ctl/bursts.c, docs/bursty.md). Included by hooks.c only.
 *
 * Hooks run only in a window (hp_g.pb.mask != 0) or at a call site not turned off yet. Outside a
 * window a hook only hands its call site to ctl/sites.c and returns. In a window every event of
 * the types in the mask is recorded (with hooks_bursty.h's record helpers), and calls and
 * back-edges take the window's units (hp_pb_take). The call state (shadow stack, previous block)
 * is stale at a window's start (hooks did not run since the last one): the first hook of a
 * thread in a new window drops it and ends the last window's data stream trace. Each hook run in
 * a window counts in t->win.hooks, call and block hooks also in t->win.heavy, and one of those in
 * HP_WIN_TIME_EVERY adds its TSC time to t->win.tsc: bursts.c takes the hooks' time out of the
 * window's time per unit, so that the off phase is timed at the program's own speed.
 * Subpaths (HP_PB_BIT_SUBPATH): a block in such a window goes to hp_rt_osp_window_block.
 *
 * Async-signal-safety: as the bursty bodies (memory; mmap on growth; hp_sites_note is lock-free).
 */
#ifndef HOTPROF_RUNTIME_HOOKS_PATCH_H
#define HOTPROF_RUNTIME_HOOKS_PATCH_H
#include "runtime/hooks_bursty.h"
#include "runtime/ctl/ctl.h"
#include "runtime/pt/subpath.h"
#include <x86intrin.h>

static HP_NOINST __attribute__((noinline, cold)) void window_reset(hp_thread *t)
{
    t->win.epoch = HP_LOAD_RLX(&hp_g.pb.epoch);
    t->depth = 0;
    t->prev_guard = 0;
    t->stack[0].last_pc = 0;
    if (!t->ds.guard) hp_rt_ds_burst_end(t);
}

/* The types recording now for a hook called from ret (hook: its address), 0 outside a window. */
static inline HP_NOINST uint32_t patch_mask(hp_thread *t, uint64_t ret, uint64_t hook)
{
    uint32_t mask = HP_LOAD_ACQ(&hp_g.pb.mask);
    if (HP_LIKELY(!mask)) {
        hp_sites_note(ret, hook);
        return 0;
    }
    if (HP_UNLIKELY(t->win.epoch != HP_LOAD_RLX(&hp_g.pb.epoch))) window_reset(t);
    HP_BUMP(&t->win.hooks);
    return mask;
}

/* The time of one call/block hook in HP_WIN_TIME_EVERY, for bursts.c to take the hooks' time
 * out of a window's time per unit (rdtsc costs ~20 ns here: timing every hook would double a
 * window's cost). tsc_start returns 0 when this hook is not timed. */
static inline HP_NOINST uint64_t tsc_start(hp_thread *t)
{
    uint64_t n = t->win.heavy + 1;
    HP_STORE_RLX(&t->win.heavy, n);
    return n % HP_WIN_TIME_EVERY == 0 ? __rdtsc() : 0;
}
static inline HP_NOINST void tsc_add(hp_thread *t, uint64_t since)
{
    if (HP_LIKELY(!since)) return;
    HP_STORE_RLX(&t->win.tsc, HP_LOAD_RLX(&t->win.tsc) + (__rdtsc() - since));
    HP_BUMP(&t->win.timed);
}

static HP_NOINST __attribute__((noinline)) void patch_enter(hp_thread *t, uint64_t fn, uint64_t site, uint64_t ret,
                                                           uint64_t hook)
{
    uint32_t mask = patch_mask(t, ret, hook);
    if (!mask) return;
    uint64_t t0 = tsc_start(t);
    push_frame(t, fn, site, NULL);
    if (hp_pb_take()) bursty_record_call(t, fn, site, mask & (BIT_METHODS | BIT_PAIRS));
    tsc_add(t, t0);
}

/* A block in a window. A non-entry block met with no frame at all belongs to a function entered
 * before the window: a frame is adopted for it, so that its loops' back-edges count for it (its
 * exit pops it like any frame). */
static HP_NOINST __attribute__((noinline)) void patch_block(hp_thread *t, uint32_t id, uint64_t ret, uint64_t hook)
{
    uint32_t mask = patch_mask(t, ret, hook);
    if (!mask) return;
    uint64_t t0 = tsc_start(t);
    int stamp = mask & HP_PB_BIT_SUBPATH ? hp_rt_osp_window_block(t, id) : 0; /* timed with the hook */
    uint32_t prev = t->prev_guard;
    t->prev_guard = id;
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    if (t->depth == 0 && m && id < m->cap && m->e[id].fn && !(m->e[id].flags & 1))
        push_frame(t, m->e[id].fn, 0, NULL);
    hp_frame *fr = backedge_frame(t, id);
    uint32_t on = mask & BIT_EDGES;
    if (fr && hp_pb_take()) { /* a unit: counted in the totals whatever the mask records */
        if (mask & BIT_METHODS) on |= BIT_METHODS;
        else HP_BUMP(&t->tot.backedges);
    }
    if (on) bursty_record_block(t, prev, id, on, fr);
    tsc_add(t, t0);
    if (stamp) hp_rt_osp_stamp(t); /* last: the program's own time runs from here */
}

#endif

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
 * Count-triggered bursts (hp_g.dual == HP_DUAL_COUNT, `--bursts count`, ctl/dual.h): every
 * site jumps to a trampoline (or, compiled in, is an inline count site or a filled entry pad)
 * that decrements the thread's hp_dual_countdown and enters the instrumented copy when it
 * reaches 0. The hooks there run the thread's HPS controller
 * (t->bs, core/control/bursty.h) as live bursty hooks do, with the countdown in place of
 * t->bs.countdown: an event a trampoline did not count (the countdown still > 0: a back-edge in an
 * instrumented copy, a function with one copy) is decremented here; at 0 the slow path runs and
 * re-arms: 0 while any type is in a burst (every site then enters the instrumented copy), else the
 * controller's next arming. So the controller sees exactly the events of live mode, in clean code
 * at the cost of the trampoline. The back-edge hook answers "stay" while a burst is on. A thread's
 * first count hook loads the countdown from its controller (hp_dual_synced); a burst's start drops
 * the shadow stack (stale: clean copies keep none). An inactive thread (stopped, forked child)
 * gets a countdown that never runs out: it stays in the clean copies.
 * With subpaths (HP_OSP_RT_COUNT, pt/subpath_cnt.c) the countdown also runs to the thread's next
 * subpath trigger and stays at 0 while a subpath burst is on (dual_count_slow_osp).
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

/* ---- count-triggered bursts ---- */

/* The controller's part of a slow path: its transitions; a burst's start drops the call state
 * (a folded burst begins at this very event: its flags come back on though on_mask is off again
 * when the burst was one event long). */
static inline __attribute__((always_inline)) HP_NOINST uint32_t dual_count_controller(hp_thread *t)
{
    uint32_t was = t->bs.on_mask;
    uint32_t on = bursty_slow_body(t);
    if (!was && (on | t->bs.on_mask)) { /* a burst begins with this event or the next: fresh call state */
        t->depth = 0;
        t->prev_guard = 0;
        t->stack[0].last_pc = 0;
        hp_dual_count_burst();
    }
    return on;
}

#define DUAL_OSP_NEW (1u << 31) /* dual_count_event: a subpath burst began at this event */

/* Subpaths in count mode (pt/subpath.h HP_OSP_RT_COUNT): the one countdown runs to the earlier of
 * the controller's slow path (o->cbs events) and the o->cprearm-th event before the thread's
 * next subpath trigger, and stays at 0 from there (pre-armed: the frames of those events run
 * instrumented, so their blocks after the trigger's callees return are seen) while either is in a burst; o->carmed
 * events have elapsed when it runs out. A subpath burst that begins (or whose first frame
 * returned) drops stale call state as the controller's does and notes its first frame. */
static HP_NOINST __attribute__((noinline)) uint32_t dual_count_slow_osp(hp_thread *t, hp_thread_osp *o)
{
    if (o->busy) return 0; /* a signal handler inside our own slow path: the event is lost */
    o->busy = 1;
    __asm__ volatile("" ::: "memory");
    uint64_t el = o->carmed;
    uint32_t on = 0, was = o->cmode;
    if (el >= o->cbs) {
        on = dual_count_controller(t);
        o->cbs = t->bs.on_mask ? 1 : t->bs.countdown;
    } else {
        o->cbs -= el;
    }
    int m = hp_rt_osp_count_event(o, el);
    if (m != HP_OSP_C_IDLE && (was == HP_OSP_C_IDLE || o->cexited)) {
        if (!t->bs.on_mask) t->depth = 0, t->prev_guard = 0, t->stack[0].last_pc = 0;
        o->cbase = t->depth; /* (an entry event moves it to its own frame: dual_count_enter) */
        o->cexited = 0;
        on |= DUAL_OSP_NEW;
    }
    uint64_t left = o->cs->left - o->cprearm; /* IDLE: left > the pre-armed events */
    uint64_t arm = t->bs.on_mask || m != HP_OSP_C_IDLE ? 0 : o->cbs < left ? o->cbs : left;
    o->carmed = arm ? arm : 1;
    hp_dual_countdown = (int64_t)arm;
    __asm__ volatile("" ::: "memory");
    o->busy = 0;
    return on;
}

/* The event reached the slow path: the controller's transitions, then the countdown re-armed. */
static HP_NOINST __attribute__((noinline)) uint32_t dual_count_slow(hp_thread *t)
{
    if (t->in_slow) return 0; /* a signal handler inside our own slow path: the event is lost */
    if (HP_UNLIKELY(HP_LOAD_RLX(&hp_g.osp) == HP_OSP_RT_COUNT)) {
        hp_thread_osp *o = hp_rt_osp_count_state(t);
        if (o) return dual_count_slow_osp(t, o);
    }
    uint32_t on = dual_count_controller(t);
    hp_dual_countdown = t->bs.on_mask ? 0 : (int64_t)t->bs.countdown;
    return on;
}

/* One boundary event seen by a hook; the types whose flag was on at it (0 on the fast path). */
static inline HP_NOINST uint32_t dual_count_event(hp_thread *t)
{
    int64_t cd = hp_dual_countdown;
    if (HP_UNLIKELY(!hp_dual_synced)) { /* the thread's first event: its controller's first arming */
        hp_dual_synced = 1;
        cd = HP_LOAD_RLX(&hp_g.osp) == HP_OSP_RT_COUNT ? 1 : (int64_t)t->bs.countdown; /* subpaths: to the slow path */
    }
    if (cd > 0) cd--; /* no trampoline counted this one */
    hp_dual_countdown = cd;
    if (HP_LIKELY(cd > 0)) return 0;
    return dual_count_slow(t);
}

/* The call site to record a sampled call at: a burst's call is mostly made by a clean copy
 * (the burst's event enters the instrumented copy), and a clean copy's tail call leaves its
 * caller's return address: then the pair is keyed by the tail-calling function, at its entry
 * + 1 (a site is a return address: the analysis looks the caller up at site - 1). */
static HP_NOINST __attribute__((noinline, cold)) uint64_t dual_count_call_site(uint64_t fn, uint64_t site)
{
    uint64_t tail = hp_dual_tail_caller(fn, site);
    return tail ? tail + 1 : site;
}

static inline HP_NOINST void dual_count_enter(hp_thread *t, uint64_t fn, uint64_t site)
{
    uint32_t ev = dual_count_event(t);
    push_frame(t, fn, site, NULL);
    if (HP_UNLIKELY(ev)) {
        uint32_t on = ev & (BIT_METHODS | BIT_PAIRS);
        if (ev & DUAL_OSP_NEW) t->osp->cbase = t->depth; /* the subpath burst's first frame: this one */
        if (on & BIT_PAIRS) site = dual_count_call_site(fn, site);
        if (on) bursty_record_call(t, fn, site, on);
    }
}

/* Non-zero: stay in the instrumented copy (a burst is on). */
static inline HP_NOINST int dual_count_backedge(hp_thread *t, uint64_t fn)
{
    if (HP_UNLIKELY(dual_count_event(t) & BIT_METHODS)) {
        HP_BUMP(&hp_tab_get(&t->methods, fn, 0)->v2);
        HP_BUMP(&t->tot.backedges);
    }
    return hp_dual_countdown <= 0;
}

/* A block: in a cloned function never a boundary event (its latch hook counts back-edges); in a
 * function with one copy the address rule's back-edges are (bursty_block with the countdown). */
static inline HP_NOINST void dual_count_block(hp_thread *t, uint32_t id)
{
    uint32_t prev = t->prev_guard;
    t->prev_guard = id;
    hp_frame *fr = backedge_frame(t, id);
    uint32_t on = fr ? dual_count_event(t) & (BIT_METHODS | BIT_EDGES) : hp_bursty_on(&t->bs) & BIT_EDGES;
    if (HP_UNLIKELY(on)) bursty_record_block(t, prev, id, on, fr);
}

/* A hook of an inactive thread (stopped, or the runtime off) in count mode or in a program with
 * inline count sites (ctl/dual.h): never enter the instrumented copies again. */
static inline HP_NOINST void dual_count_inactive(void)
{
    if ((HP_LOAD_RLX(&hp_g.dual) == HP_DUAL_COUNT || hp_dual_count_sites()) && hp_tls)
        hp_dual_countdown = DUAL_COUNT_NEVER;
}

#endif

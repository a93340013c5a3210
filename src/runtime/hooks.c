/* hooks.c — the compiler hooks: -finstrument-functions and -fsanitize-coverage callbacks.
 *
 * Every hook starts with the same fast path: load the thread's state from initial-exec TLS and
 * return unless it is active (one predictable branch). Then, exhaustively:
 *   func_enter(fn, site): pair(fn, site)++ (the writer sums pairs into per-function calls), push
 *                  a shadow frame {fn, site, last_pc = 0} whose back-edges count in that pair.
 *   func_exit(fn): pop to the topmost frame of fn within HP_UNWIND_SEARCH frames (frames skipped
 *                  by longjmp or a C++ throw are dropped with it); an unmatched exit is ignored.
 *   trace_pc_guard(g): blocks[*g]++, edge(prev, *g)++, and the back-edge rule: a non-entry block
 *                  whose start pc is at or below the top frame's last block pc counts one back-edge for
 *                  that frame's function; entry blocks (pc-table flag bit 0) never count and do
 *                  not move the frame. Blocks with no frame pushed use the thread pseudo-frame.
 *                  A block whose function (known from the pc-table) is a few frames below the
 *                  top drops the frames above it: they were unwound without exit hooks (clang's
 *                  -finstrument-functions calls no exit hook when an exception unwinds).
 *   load/store/cmp/switch/div/gep hooks: count into the thread totals.
 * Bursty (HOTPROF_MODE=bursty, t->bursty; docs/bursty.md, the HPS controller of core/bursty.h):
 *   calls and back-edges are the boundary events that advance the thread's controller. Every hook
 *   keeps the state the event rules need whether or not it samples — func_enter/exit push and pop
 *   the shadow frame, a block runs the back-edge rule and sets prev_guard — and then, only for the
 *   types whose flag is on: a call records methods (t->methods v1) and call pairs (t->pairs v1);
 *   a back-edge records methods (t->methods v2 of the top frame's function) and edges; any block
 *   records edges (block count + edge) when the edge flag is on (forward blocks: hp_bursty_on,
 *   no counter moves). Loads/stores read the datastream flag and, while it is on, go to
 *   datastream_sample, which appends the reference to the thread's hot data stream detector
 *   (core/datastream.h, mmap'd at the first one); the controller's slow path, where the flag
 *   goes off, ends the detector's burst (hp_ds_burst_end: processes the burst's trace). Not
 *   sampling, a call costs the frame push and one decrement; a block the back-edge rule and one
 *   decrement or one flag test; a load or store one flag test.
 * Guard ids are global (1..N, assigned in trace_pc_guard_init under a spin lock); pcs_init fills
 * the global guard -> {pc, flags} map (hp_g_bmap) for the guards of the preceding init call.
 *
 * Hook signatures are those clang 14 emits (checked with nm -u on a test compiled with
 * trace-pc-guard,pc-table,trace-loads,trace-stores,trace-cmp and, for div/gep, trace-div,trace-gep).
 *
 * Async-signal-safety: hooks run in whatever context the program runs code, including its
 * signal handlers; they touch only the thread's own state and use mmap on growth. A signal
 * handler interrupting a hook's table growth on the same thread may lose that handler's events
 * (documented limit). guard_init/pcs_init take a spin lock and are called from constructors.
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include <sched.h>
#include <x86intrin.h>

hp_bmap *hp_g_bmap;
uint32_t hp_g_guards;

static int g_guard_lock;

/* The hooks whose addresses patch mode compares call targets with (defined below). */
HP_API void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
HP_API void __cyg_profile_func_enter(void *this_fn, void *call_site);
HP_API void __cyg_profile_func_exit(void *this_fn, void *call_site);
static uint32_t *g_last_guard_start, *g_last_guard_stop; /* range of the last guard_init */

/* A thread's first event creates its state; an inactive state (off, stopped, fork child) never
 * becomes active again, so it returns without a call. */
#define FAST_THREAD(t)                                                                             \
    hp_thread *t = hp_tls;                                                                         \
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) return

/* ---------------------------------------------------------------- frames */

static inline HP_NOINST void push_frame(hp_thread *t, uint64_t fn, uint64_t site, uint64_t *backedges)
{
    uint64_t d = t->depth + 1;
    t->depth = d;
    if (HP_LIKELY(d < HP_STACK_FRAMES)) {
        hp_frame *fr = &t->stack[d];
        fr->fn = fn;
        fr->site = site;
        fr->last_pc = 0;
        fr->backedges = backedges;
    }
}

/* ---------------------------------------------------------------- data streams */

HP_NOINST void hp_ds_runtime_config(hp_ds_config *c)
{
    hp_ds_default_config(c);
    c->seed = hp_thread_seed(~0ull); /* one seed for every thread: their states merge */
}

/* The thread's detector, mapped on its first sampled reference (never on a fast path). */
static HP_NOINST __attribute__((noinline, cold)) hp_ds_state *datastream_create(hp_thread *t)
{
    hp_ds_config c;
    hp_ds_runtime_config(&c);
    size_t n = hp_ds_bytes_for(&c);
    void *mem = n ? hp_map(n) : NULL;
    hp_ds_state *ds = mem ? hp_ds_init(mem, n, &c) : NULL;
    if (!ds) {
        t->ds_failed = 1;
        return NULL;
    }
    HP_STORE_REL(&t->ds, ds);
    return ds;
}

/* Processes the buffered trace inside the seqlock the writer checks (t->ds_seq odd meanwhile). */
static HP_NOINST __attribute__((noinline)) void datastream_process(hp_thread *t, hp_ds_state *ds)
{
    HP_STORE_RLX(&t->ds_seq, t->ds_seq + 1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    hp_ds_burst_end(ds);
    HP_STORE_REL(&t->ds_seq, t->ds_seq + 1);
}

/* The datastream type's burst just ended (its flag went off in the controller's slow path, which
 * also covers disabling the type): process the burst's trace. Skipped when the slow path runs
 * in a signal handler that interrupted datastream_sample on this thread: that trace then
 * continues into the next burst. */
static HP_NOINST void datastream_burst_end(hp_thread *t)
{
    hp_ds_state *ds = t->ds;
    if (ds && !t->ds_guard && ds->trace_len) datastream_process(t, ds);
}

/* ---------------------------------------------------------------- bursty controller */

/* The controller's slow path, guarded: a hook run by a signal handler that interrupted this
 * thread's slow path gives its event back (countdown++) and records nothing. */
static HP_NOINST __attribute__((noinline)) uint32_t bursty_slow(hp_thread *t)
{
    if (t->in_slow) {
        t->bs.countdown++;
        return 0;
    }
    t->in_slow = 1;
    __asm__ volatile("" ::: "memory");
    uint32_t was = t->bs.on_mask;
    uint32_t on = hp_bursty_boundary_slow(&t->bs);
    if (HP_UNLIKELY(was & ~t->bs.on_mask & HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS))) datastream_burst_end(t);
    __asm__ volatile("" ::: "memory");
    t->in_slow = 0;
    return on;
}

/* hp_bursty_boundary (core/bursty.h) with the guarded slow path: a boundary event (call or
 * back-edge); returns the types whose flag was on at it. Fast path: one decrement, one branch. */
static inline HP_NOINST uint32_t bursty_boundary(hp_thread *t)
{
    if (HP_LIKELY(--t->bs.countdown != 0)) return 0;
    return bursty_slow(t);
}

#define BIT_METHODS HP_BURSTY_BIT(HP_BURSTY_METHODS)
#define BIT_PAIRS HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS)
#define BIT_EDGES HP_BURSTY_BIT(HP_BURSTY_EDGES)
#define BIT_STREAMS HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS)

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

/* ---------------------------------------------------------------- patch mode (sites.c) */

/* Patch mode (HOTPROF_MODE=bursty over patched call sites, docs/bursty.md): hooks run only in a
 * window (hp_pb_mask != 0, bursts.c) or at a call site not turned off yet. Outside a window a
 * hook only hands its call site to sites.c and returns. In a window every event of the types in
 * the mask is recorded, and calls and back-edges take the window's units (hp_pb_take). The call
 * state (shadow stack, previous block) is stale at a window's start (hooks did not run since the
 * last one): the first hook of a thread in a new window drops it and ends the last window's
 * data stream trace. Each hook run in a window counts in t->win_hooks, call and block hooks also
 * in t->win_heavy, and one of those in HP_WIN_TIME_EVERY adds its TSC time to t->win_tsc:
 * bursts.c takes the hooks' time out of the window's time per unit, so that the off phase is
 * timed at the program's own speed. */
/* The calling thread's data stream trace, processed now (the exit destructor: in patch mode a
 * window's trace is otherwise processed at the thread's first hook of the next window). */
HP_NOINST void hp_ds_flush_self(void)
{
    hp_thread *t = hp_tls;
    if (t && t->active && t->bursty && HP_LOAD_RLX(&hp_g_patch) && !t->ds_guard && !t->in_slow) datastream_burst_end(t);
}

static HP_NOINST __attribute__((noinline, cold)) void window_reset(hp_thread *t)
{
    t->window = HP_LOAD_RLX(&hp_pb_epoch);
    t->depth = 0;
    t->prev_guard = 0;
    t->stack[0].last_pc = 0;
    if (!t->ds_guard) datastream_burst_end(t);
}

/* The types recording now for a hook called from ret (hook: its address), 0 outside a window. */
static inline HP_NOINST uint32_t patch_mask(hp_thread *t, uint64_t ret, uint64_t hook)
{
    uint32_t mask = HP_LOAD_ACQ(&hp_pb_mask);
    if (HP_LIKELY(!mask)) {
        hp_sites_note(ret, hook);
        return 0;
    }
    if (HP_UNLIKELY(t->window != HP_LOAD_RLX(&hp_pb_epoch))) window_reset(t);
    HP_BUMP(&t->win_hooks);
    return mask;
}

/* The time of one call/block hook in HP_WIN_TIME_EVERY, for bursts.c to take the hooks' time
 * out of a window's time per unit (rdtsc costs ~20 ns here: timing every hook would double a
 * window's cost). tsc_start returns 0 when this hook is not timed. */
static inline HP_NOINST uint64_t tsc_start(hp_thread *t)
{
    uint64_t n = t->win_heavy + 1;
    HP_STORE_RLX(&t->win_heavy, n);
    return n % HP_WIN_TIME_EVERY == 0 ? __rdtsc() : 0;
}
static inline HP_NOINST void tsc_add(hp_thread *t, uint64_t since)
{
    if (HP_LIKELY(!since)) return;
    HP_STORE_RLX(&t->win_tsc, HP_LOAD_RLX(&t->win_tsc) + (__rdtsc() - since));
    HP_BUMP(&t->win_timed);
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

/* ---------------------------------------------------------------- calls */

HP_API void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    uint64_t fn = (uint64_t)(uintptr_t)this_fn, site = (uint64_t)(uintptr_t)call_site;
    if (HP_UNLIKELY(t->bursty)) {
        if (HP_LOAD_RLX(&hp_g_patch))
            patch_enter(t, fn, site, (uint64_t)(uintptr_t)__builtin_return_address(0),
                        (uint64_t)(uintptr_t)&__cyg_profile_func_enter);
        else
            bursty_enter(t, fn, site);
        return;
    }
    hp_tab *before = t->pairs;
    hp_slot *pair = hp_tab_get(&t->pairs, fn, site);
    HP_BUMP(&pair->v1);
    HP_BUMP(&t->tot.calls);
    if (HP_UNLIKELY(t->pairs != before)) hp_frames_rebind(t);
    push_frame(t, fn, site, &pair->v2);
}

static HP_NOINST __attribute__((noinline, cold)) void func_exit_search(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth;
    if (d >= HP_STACK_FRAMES) { t->depth = d - 1; return; } /* untracked overflow frames */
    uint64_t lowest = d > HP_UNWIND_SEARCH ? d - HP_UNWIND_SEARCH : 1;
    for (uint64_t k = d; k >= lowest; k--)
        if (t->stack[k].fn == fn) { t->depth = k - 1; return; }
    /* no frame of fn: an exit whose enter we never saw; leave the stack alone */
}

HP_API void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    if (HP_UNLIKELY(t->bursty) && HP_LOAD_RLX(&hp_g_patch) &&
        !patch_mask(t, (uint64_t)(uintptr_t)__builtin_return_address(0), (uint64_t)(uintptr_t)&__cyg_profile_func_exit))
        return;
    uint64_t d = t->depth;
    if (HP_LIKELY(d - 1 < HP_STACK_FRAMES - 1 && t->stack[d].fn == (uint64_t)(uintptr_t)this_fn)) {
        t->depth = d - 1;
        return;
    }
    if (d) func_exit_search(t, (uint64_t)(uintptr_t)this_fn);
}

/* ---------------------------------------------------------------- blocks */

/* The block's function is not the top frame's. If its frame is a little further down, the
 * frames above it were left without an exit hook (a C++ exception, longjmp): drop them. If it
 * has no frame (a function built without call hooks), the block counts against the top frame. */
static HP_NOINST __attribute__((noinline, cold)) hp_frame *resync_frame(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth; /* 1 <= d < HP_STACK_FRAMES: checked by the caller */
    if (t->frameless_fn == fn && t->frameless_depth == d) return &t->stack[d]; /* searched already */
    uint64_t lowest = d > HP_RESYNC_SEARCH ? d - HP_RESYNC_SEARCH : 1;
    for (uint64_t k = d - 1; k >= lowest; k--)
        if (t->stack[k].fn == fn) {
            t->depth = k;
            return &t->stack[k];
        }
    t->frameless_fn = fn;
    t->frameless_depth = d;
    return &t->stack[d];
}

/* The back-edge rule: updates the top frame's last block pc and returns the frame if this block
 * is a taken back-edge in it, else NULL. */
static inline HP_NOINST hp_frame *backedge_frame(hp_thread *t, uint32_t id)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g_bmap);
    if (HP_UNLIKELY(!m || id >= m->cap)) return NULL;
    const hp_bentry *e = &m->e[id];
    uint64_t pc = e->pc;
    if (!pc || (e->flags & 1)) return NULL; /* unknown pc, or a function entry block */
    hp_frame *fr = hp_top_frame(t);
    if (HP_UNLIKELY(fr->fn != e->fn) && t->depth - 1 < HP_STACK_FRAMES - 1) fr = resync_frame(t, e->fn);
    uint64_t last = fr->last_pc;
    fr->last_pc = pc;
    return pc <= last ? fr : NULL; /* back to its own start or below: a taken back-edge */
}

/* Counts block id (and the edge from prev) in the thread's arrays; 0 if the array cannot grow. */
static inline HP_NOINST int count_block(hp_thread *t, uint32_t prev, uint32_t id)
{
    hp_counts *c = t->blocks;
    if (HP_UNLIKELY(id >= c->cap) && (c = hp_blocks_grow(t, id))->cap <= id) return 0;
    HP_BUMP(&c->c[id]);
    HP_BUMP(&t->tot.blocks);
    if (HP_LIKELY(prev && id)) HP_BUMP(&hp_tab_get(&t->edges, (uint64_t)prev << 32 | id, 0)->v1);
    return 1;
}

static HP_NOINST __attribute__((noinline)) void bursty_record_block(hp_thread *t, uint32_t prev, uint32_t id,
                                                                    uint32_t on, hp_frame *fr)
{
    if (on & BIT_EDGES) count_block(t, prev, id);
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

/* Patch mode: a block in a window. A non-entry block met with no frame at all belongs to a
 * function entered before the window: a frame is adopted for it, so that its loops' back-edges
 * count for it (its exit pops it like any frame). */
static HP_NOINST __attribute__((noinline)) void patch_block(hp_thread *t, uint32_t id, uint64_t ret)
{
    uint32_t mask = patch_mask(t, ret, (uint64_t)(uintptr_t)&__sanitizer_cov_trace_pc_guard);
    if (!mask) return;
    uint64_t t0 = tsc_start(t);
    uint32_t prev = t->prev_guard;
    t->prev_guard = id;
    hp_bmap *m = HP_LOAD_ACQ(&hp_g_bmap);
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
}

HP_API void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
    FAST_THREAD(t);
    uint32_t id = *guard;
    if (HP_UNLIKELY(t->bursty)) {
        if (HP_LOAD_RLX(&hp_g_patch))
            patch_block(t, id, (uint64_t)(uintptr_t)__builtin_return_address(0));
        else
            bursty_block(t, id);
        return;
    }
    uint32_t prev = t->prev_guard;
    if (!count_block(t, prev, id)) return;
    t->prev_guard = id;
    hp_frame *fr = backedge_frame(t, id);
    if (fr) {
        HP_BUMP(fr->backedges);
        HP_BUMP(&t->tot.backedges);
    }
}

static HP_NOINST void guard_lock(void)
{
    while (__atomic_exchange_n(&g_guard_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static HP_NOINST void guard_unlock(void) { __atomic_store_n(&g_guard_lock, 0, __ATOMIC_RELEASE); }


HP_NOINST void hp_locks_reset_after_fork(void)
{
    guard_unlock();
    hp_modules_lock_reset();
}

/* Make hp_g_bmap hold ids 0..need-1 (copy + publish; the old map stays mapped). */
static HP_NOINST void bmap_reserve(uint64_t need)
{
    hp_bmap *old = hp_g_bmap;
    if (old && old->cap >= need) return;
    uint64_t cap = 1024;
    while (cap < need) cap *= 2;
    hp_bmap *m = hp_map(sizeof(hp_bmap) + cap * sizeof(hp_bentry));
    if (!m) return;
    m->cap = cap;
    for (uint64_t i = 0; old && i < old->cap; i++) m->e[i] = old->e[i];
    HP_STORE_REL(&hp_g_bmap, m);
}

HP_API void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
    if (start == stop) return;
    guard_lock();
    uint32_t next = hp_g_guards;
    for (uint32_t *g = start; g < stop; g++)
        if (*g == 0) *g = ++next;
    bmap_reserve((uint64_t)next + 1);
    HP_STORE_REL(&hp_g_guards, next);
    g_last_guard_start = start;
    g_last_guard_stop = stop;
    guard_unlock();
    hp_modules_refresh(); /* a new instrumented module: remember where it is mapped */
}

HP_API void __sanitizer_cov_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end)
{
    guard_lock();
    hp_bmap *m = hp_g_bmap;
    size_t n = (size_t)(pcs_end - pcs_beg) / 2;
    size_t guards = g_last_guard_start ? (size_t)(g_last_guard_stop - g_last_guard_start) : 0;
    uint64_t fn = 0;
    for (size_t i = 0; m && i < n && i < guards; i++) {
        uint32_t id = g_last_guard_start[i];
        uint64_t pc = (uint64_t)pcs_beg[2 * i], flags = (uint64_t)pcs_beg[2 * i + 1];
        if (flags & 1) fn = pc; /* a function's entry block opens its run of blocks */
        if (id >= m->cap) continue;
        HP_STORE_RLX(&m->e[id].flags, flags);
        HP_STORE_RLX(&m->e[id].fn, fn);
        HP_STORE_RLX(&m->e[id].pc, pc);
    }
    guard_unlock();
}

/* ---------------------------------------------------------------- memory and compare hooks */

/* gcc would fold these identical bodies into jump thunks (identical code folding): one more
 * jump per event, and tools such as callgrind then count two hooks per event. */
#if defined(__GNUC__) && !defined(__clang__)
#define HP_NO_ICF __attribute__((noipa))
#else
#define HP_NO_ICF
#endif

/* The data-stream hook point: a load or store seen while the datastream type samples (bursty
 * mode). It counts in the thread totals and appends (pc, addr) to the thread's detector trace
 * (the pc is the hook's return address, just after the reference's hook call; the runtime's
 * detector keeps addresses only, with_pc = 0). A full trace is processed here, under the seqlock.
 * A hook run by a signal handler while this thread is in here or in the controller's slow path
 * (which may be processing the trace) is counted but not traced. */
static HP_NOINST __attribute__((noinline, cold)) void datastream_sample(hp_thread *t, const void *addr, uint64_t pc,
                                                                        int store)
{
    HP_BUMP(store ? &t->tot.stores : &t->tot.loads);
    if (t->in_slow || t->ds_guard || t->ds_failed) return;
    t->ds_guard = 1;
    __asm__ volatile("" ::: "memory");
    hp_ds_state *ds = t->ds ? t->ds : datastream_create(t);
    if (ds) {
        if (HP_UNLIKELY(ds->trace_len == ds->trace_cap)) datastream_process(t, ds);
        hp_ds_access_pc(ds, pc, (uint64_t)(uintptr_t)addr);
    }
    __asm__ volatile("" ::: "memory");
    t->ds_guard = 0;
}

/* Exhaustive: count. Bursty: only the datastream type's flag is read (memory references are not
 * boundary events), and a sampled reference goes to datastream_sample. */
#define MEM_HOOK(name, field, is_store, type)                                                      \
    HP_API HP_NO_ICF void name(type *addr)                                                         \
    {                                                                                              \
        FAST_THREAD(t);                                                                            \
        if (HP_UNLIKELY(t->bursty)) {                                                              \
            uint64_t ret_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                      \
            uint32_t on_ = HP_LOAD_RLX(&hp_g_patch) ? patch_mask(t, ret_, (uint64_t)(uintptr_t)&name) \
                                                    : hp_bursty_on(&t->bs);                        \
            if (HP_UNLIKELY(on_ & BIT_STREAMS)) datastream_sample(t, addr, ret_, is_store);         \
            return;                                                                                \
        }                                                                                          \
        HP_BUMP(&t->tot.field);                                                                    \
    }

/* Compare hooks count in exhaustive mode only (no bursty profile type uses them yet); in patch
 * mode they hand their call site to sites.c, to be turned off. */
#define COUNT_HOOK(name, field, params)                                                            \
    HP_API HP_NO_ICF void name params                                                              \
    {                                                                                              \
        FAST_THREAD(t);                                                                            \
        if (HP_UNLIKELY(t->bursty)) {                                                              \
            if (HP_LOAD_RLX(&hp_g_patch) && !HP_LOAD_RLX(&hp_pb_mask))                             \
                hp_sites_note((uint64_t)(uintptr_t)__builtin_return_address(0), (uint64_t)(uintptr_t)&name); \
            return;                                                                                \
        }                                                                                          \
        HP_BUMP(&t->tot.field);                                                                    \
    }

MEM_HOOK(__sanitizer_cov_load1, loads, 0, uint8_t)
MEM_HOOK(__sanitizer_cov_load2, loads, 0, uint16_t)
MEM_HOOK(__sanitizer_cov_load4, loads, 0, uint32_t)
MEM_HOOK(__sanitizer_cov_load8, loads, 0, uint64_t)
MEM_HOOK(__sanitizer_cov_load16, loads, 0, __int128)
MEM_HOOK(__sanitizer_cov_store1, stores, 1, uint8_t)
MEM_HOOK(__sanitizer_cov_store2, stores, 1, uint16_t)
MEM_HOOK(__sanitizer_cov_store4, stores, 1, uint32_t)
MEM_HOOK(__sanitizer_cov_store8, stores, 1, uint64_t)
MEM_HOOK(__sanitizer_cov_store16, stores, 1, __int128)
COUNT_HOOK(__sanitizer_cov_trace_cmp1, cmps, (uint8_t a, uint8_t b))
COUNT_HOOK(__sanitizer_cov_trace_cmp2, cmps, (uint16_t a, uint16_t b))
COUNT_HOOK(__sanitizer_cov_trace_cmp4, cmps, (uint32_t a, uint32_t b))
COUNT_HOOK(__sanitizer_cov_trace_cmp8, cmps, (uint64_t a, uint64_t b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp1, cmps, (uint8_t a, uint8_t b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp2, cmps, (uint16_t a, uint16_t b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp4, cmps, (uint32_t a, uint32_t b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp8, cmps, (uint64_t a, uint64_t b))
COUNT_HOOK(__sanitizer_cov_trace_switch, cmps, (uint64_t val, uint64_t *cases))
COUNT_HOOK(__sanitizer_cov_trace_div4, cmps, (uint32_t val))
COUNT_HOOK(__sanitizer_cov_trace_div8, cmps, (uint64_t val))
COUNT_HOOK(__sanitizer_cov_trace_gep, cmps, (uintptr_t idx))

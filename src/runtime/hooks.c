/* hooks.c — the ABI entry points of libhotprof_rt: the -finstrument-functions and
 * -fsanitize-coverage callbacks the compiler calls. Nothing but entry points: each one loads the
 * thread's state (FAST_THREAD: initial-exec TLS, one predictable branch) and hands the event to
 * its mode's body, a static inline function of
 *   hooks_exhaustive.h  exhaustive (every event; the default)
 *   hooks_bursty.h      bursty with live hooks (HPS counters in every hook)
 *   hooks_patch.h       bursty over patched call sites (hooks run only in windows)
 *   hooks_osp.h         subpaths (OSP), before the mode's own block body, when the thread's
 *                       blockflags say so (the block hook tests blockflags where it tested bursty)
 *   hooks_dual.h        the back-edge hook of two-version code (plugin/, ctl/dual.c), and the
 *                       bodies of count-triggered bursts on it (hp_g.dual == HP_DUAL_COUNT)
 *   hooks_trace.h       exhaustive with a trace (--record-trace): t->bursty == HP_THREAD_TRACING
 *                       (the block hook: blockflags has HP_BLOCK_TRACE)
 *   pt/pathval.h        exhaustive with paths (blockflags HP_BLOCK_PATH: the block hook calls
 *                       hp_rt_path_block after exhaustive_block) and/or values (t->bursty ==
 *                       HP_THREAD_VALUES: the exhaustive bodies, and the compare and load hooks
 *                       hand their values to hp_rt_val_add), on the branches those tests take
 * (shared pieces in hooks_common.h). The mode is chosen by two predictable branches on the
 * thread's fixed `bursty` flag and hp_g.patch — exactly the tests the hooks made before the
 * bodies moved out — never by a function pointer; no body adds work to another mode's path.
 * Memory references of the datastream type go to pt/datastream.c on their cold path.
 *
 * guard_init/pcs_init fill the process-wide guard map (blockmap.c) and refresh the module list
 * (a new instrumented module: modules.c). __hotprof_blkra (through its thunk in hooks_pm.c) is
 * the block hook of the dual plugin's instrumented copies that names the block by its return
 * address (blockra.c), with the same body as the guard hook.
 *
 * Hook signatures are those clang 14 emits (checked with nm -u on a test compiled with
 * trace-pc-guard,pc-table,trace-loads,trace-stores,trace-cmp and, for div/gep, trace-div,trace-gep).
 *
 * Layering: hooks.c is the top of the runtime (docs/runtime.md, Sources); it may call anything
 * below, and reaches init only through hp_thread_slow (thread.c -> init.h).
 * Async-signal-safety: hooks run in whatever context the program runs code, including its
 * signal handlers; they touch only the thread's own state and use mmap on growth. A signal
 * handler interrupting a hook's table growth on the same thread may lose that handler's events
 * (documented limit). guard_init/pcs_init take a spin lock and are called from constructors.
 */
#define _GNU_SOURCE
#include "runtime/hooks_exhaustive.h"
#include "runtime/hooks_bursty.h"
#include "runtime/hooks_patch.h"
#include "runtime/hooks_osp.h"
#include "runtime/hooks_trace.h"
#include "runtime/hooks_dual.h"
#include "runtime/modules.h"
#include "runtime/blockra.h"
#include "runtime/pt/pathval.h"
#include "core/format/format.h"

/* ---------------------------------------------------------------- calls */

HP_API void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    uint64_t fn = (uint64_t)(uintptr_t)this_fn, site = (uint64_t)(uintptr_t)call_site;
    if (HP_UNLIKELY(t->bursty)) {
        if (t->bursty == HP_THREAD_TRACING) trace_enter(t, fn, site);
        else if (t->bursty == HP_THREAD_VALUES) {
            hp_rt_gap_close(t); /* with values (and paths): sampled gaps between hooks (pathval.h) */
            exhaustive_enter(t, fn, site);
            hp_rt_gap_open(t);
        }
        else if (HP_LOAD_RLX(&hp_g.patch))
            patch_enter(t, fn, site, (uint64_t)(uintptr_t)__builtin_return_address(0),
                        (uint64_t)(uintptr_t)&__cyg_profile_func_enter);
        else if (HP_LOAD_RLX(&hp_g.dual) == HP_DUAL_COUNT)
            dual_count_enter(t, fn, site);
        else
            bursty_enter(t, fn, site);
        return;
    }
    exhaustive_enter(t, fn, site);
}

HP_API void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    if (HP_UNLIKELY(t->bursty)) { /* the exhaustive path tests t->bursty once */
        if (t->blockflags & HP_BLOCK_OSP) /* count mode: a subpath burst's first frame returns */
            osp_exit(t, (uint64_t)(uintptr_t)call_site);
        if (t->bursty == HP_THREAD_BURSTY && HP_LOAD_RLX(&hp_g.patch) &&
            !patch_mask(t, (uint64_t)(uintptr_t)__builtin_return_address(0), (uint64_t)(uintptr_t)&__cyg_profile_func_exit))
            return;
        if (t->bursty == HP_THREAD_VALUES) { /* sampled gaps between hooks (pathval.h) */
            hp_rt_gap_close(t);
            exit_pop(t, (uint64_t)(uintptr_t)this_fn);
            hp_rt_gap_open(t);
            return;
        }
    }
    exit_pop(t, (uint64_t)(uintptr_t)this_fn);
}

/* ---------------------------------------------------------------- blocks */

/* A block's event: guard is its coverage guard; ret, the hook call's return address and hook, the
 * function it calls, are what patch mode notes to switch the call (hook 0: never switched). */
static inline __attribute__((always_inline)) HP_NOINST void block_event(uint32_t *guard, uint64_t ret, uint64_t hook)
{
    FAST_THREAD(t);
    uint32_t id = *guard;
    if (HP_UNLIKELY(t->blockflags)) { /* bursty, subpaths and/or a trace (one test, as `bursty` was) */
        if (t->blockflags & HP_BLOCK_OSP) osp_block(t, id);
        if (!(t->blockflags & HP_BLOCK_BURSTY)) {
            if (t->blockflags & HP_BLOCK_ADOPT) { /* a shadow (ctl/shadow_child.c) */
                hp_rt_gap_close(t); /* the program's own time since the last hook ends here (pathval.h) */
                adopt_frame(t, id);
            }
            if (t->blockflags & HP_BLOCK_TRACE) trace_block(t, id); /* counts as exhaustive_block, and traces */
            else if (t->blockflags & HP_BLOCK_PATH) hp_rt_path_block(t, id, exhaustive_block(t, id));
            else exhaustive_block(t, id);
            return;
        }
        if (HP_LOAD_RLX(&hp_g.patch))
            patch_block(t, id, ret, hook);
        else if (HP_LOAD_RLX(&hp_g.dual) == HP_DUAL_COUNT)
            dual_count_block(t, id);
        else
            bursty_block(t, id);
        return;
    }
    exhaustive_block(t, id);
}

HP_API void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
    block_event(guard, (uint64_t)(uintptr_t)__builtin_return_address(0),
                (uint64_t)(uintptr_t)&__sanitizer_cov_trace_pc_guard);
}

/* A block hook named by its return address (plugin/dual_blockra.h), from __hotprof_blkra_thunk
 * (hooks_pm.c), which saved the registers: ra is the thunk's return address. Its call is an
 * inline asm that patch mode must never switch (its off form would clobber EAX): hook 0. */
HP_API void __hotprof_blkra(uint64_t ra)
{
    uint32_t *guard = hp_blockra_guard(ra);
    if (HP_LIKELY(guard != NULL)) block_event(guard, ra, 0);
}

HP_API void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
    if (hp_blockmap_guard_init(start, stop)) hp_modules_refresh(); /* a new instrumented module */
}

HP_API void __sanitizer_cov_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end)
{
    hp_blockmap_pcs_init(pcs_beg, pcs_end);
}

/* ---------------------------------------------------------------- two-version code (docs/dual.md) */

/* A module's __hotprof_dual section (its constructor, before ours: priority 2). */
HP_API void __hotprof_dual_init(const hp_dual_rec *start, const hp_dual_rec *stop)
{
    if (hp_dual_register(start, stop)) hp_modules_refresh(); /* a new module (dual-functions has no guards) */
}

/* A module's latch branches (built with `hotprof cc --dual-latch=branch`; absent: NULL, NULL). */
HP_API void __hotprof_dual_branches_init(const void *start, const void *stop) { hp_dual_register_branches(start, stop); }
HP_API void __hotprof_dual_branches_fini(const void *start, const void *stop)
{
    (void)stop;
    hp_dual_unregister_branches(start);
}

/* A module's block hooks named by their return address (plugin/dual_blockra.h): its constructor,
 * after its guards' init, and its destructor. */
HP_API void __hotprof_blkra_init(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    static const char *const why[] = {"hotprof: no room for another module's block hooks (1024 modules): "
                                      "its instrumented copies' blocks are not recorded"};
    if (hp_blockra_register(start, stop) != 0) hp_say(why, 1);
}

HP_API void __hotprof_blkra_fini(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    hp_blockra_unregister(start, stop);
}

/* A module's destructor (dlclose or exit): its sites are never written again. */
HP_API void __hotprof_dual_fini(const hp_dual_rec *start, const hp_dual_rec *stop)
{
    hp_dual_unregister(start, stop);
}

/* A taken loop back-edge in an instrumented copy: count it; non-zero: stay instrumented. */
HP_API int __hotprof_dual_backedge(void *fn)
{
    hp_thread *t = hp_tls;
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) {
        dual_count_inactive();
        return 0;
    }
    uint64_t f = (uint64_t)(uintptr_t)fn;
    if (HP_UNLIKELY(t->bursty == HP_THREAD_BURSTY)) {
        if (HP_LOAD_RLX(&hp_g.patch)) return dual_patch_backedge(t, f) != 0;
        if (HP_LOAD_RLX(&hp_g.dual) == HP_DUAL_COUNT) return dual_count_backedge(t, f);
        dual_live_backedge(t, f);
    } else {
        if (t->blockflags & HP_BLOCK_PATH) { /* the path ends before the header; sampled gaps (pathval.h) */
            hp_rt_gap_close(t);
            dual_backedge(t, f);
            hp_rt_path_backedge(t);
            hp_rt_gap_open(t);
        } else {
            dual_backedge(t, f); /* exhaustive, or exhaustive with a trace */
            trace_dual_backedge(t, f);
        }
    }
    return HP_LOAD_RLX(&hp_g.dual) == HP_DUAL_ALL;
}

/* A taken loop back-edge of a clean copy that has no instrumented copy in its frame (the wrapper
 * form, and the separate form of a computed-goto function: plugin/dual_wrapper.h): counted and
 * recorded as __hotprof_dual_backedge does; the code after it runs clean, so a subpath burst
 * cannot see its blocks: the burst is cut there (count mode). */
HP_API void __hotprof_dual_clean_backedge(void *fn)
{
    (void)__hotprof_dual_backedge(fn);
    hp_thread *t = hp_tls;
    if (t && t->osp && HP_LOAD_RLX(&hp_g.osp) == HP_OSP_RT_COUNT) {
        hp_thread_osp *o = hp_rt_osp_count_state(t);
        if (o) hp_rt_osp_count_exit(o);
    }
}

/* ---------------------------------------------------------------- memory and compare hooks */

/* gcc would fold these identical bodies into jump thunks (identical code folding): one more
 * jump per event, and tools such as callgrind then count two hooks per event. */
#if defined(__GNUC__) && !defined(__clang__)
#define HP_NO_ICF __attribute__((noipa))
#else
#define HP_NO_ICF
#endif

/* Exhaustive: count. Bursty: only the datastream type's flag is read (memory references are not
 * boundary events), and a sampled reference goes to hp_rt_ds_sample (pt/datastream.c). */
#define MEM_HOOK(name, field, is_store, type)                                                      \
    HP_API HP_NO_ICF void name(type *addr)                                                         \
    {                                                                                              \
        FAST_THREAD(t);                                                                            \
        if (HP_UNLIKELY(t->bursty)) {                                                              \
            uint64_t ret_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                      \
            if (t->bursty == HP_THREAD_TRACING) {                                                  \
                if (!(is_store)) trace_value(t, ret_, (uint64_t)*addr);                            \
                HP_BUMP(&t->tot.field);                                                            \
                return;                                                                            \
            }                                                                                      \
            if (t->bursty == HP_THREAD_VALUES) {                                                   \
                if (!(is_store)) hp_rt_val_add(t, ret_, HP_VK_LOAD, 0, (uint64_t)*addr);           \
                else hp_rt_gap_close(t), hp_rt_gap_open(t); /* a hook: sampled gaps (pathval.h) */ \
                HP_BUMP(&t->tot.field);                                                            \
                return;                                                                            \
            }                                                                                      \
            uint32_t on_ = HP_LOAD_RLX(&hp_g.patch) ? patch_mask(t, ret_, (uint64_t)(uintptr_t)&name) \
                                                    : hp_bursty_on(&t->bs);                        \
            if (HP_UNLIKELY(on_ & BIT_STREAMS)) hp_rt_ds_sample(t, addr, ret_, is_store);          \
            if (HP_UNLIKELY(on_) && !(is_store) && iv_on(HP_IV_VALUE))                            \
                hp_rt_iv_add(t, HP_IV_VALUE, ret_, (uint64_t)*addr); /* a value in a burst/window */ \
            return;                                                                                \
        }                                                                                          \
        HP_BUMP(&t->tot.field);                                                                    \
    }

/* Compare hooks count in exhaustive mode only; with value profiles (HP_THREAD_VALUES) they also
 * hand their operands to pt/values_hook.c (`valued`: compares and switch values, kind HP_VK_CMP);
 * in bursty mode with a value interval profile, their values during bursts (live hooks) or in a
 * patched window go to pt/intervals.c; in patch mode they hand their call site to sites.c outside
 * windows, to be turned off. */
#define COUNT_HOOK(name, field, params, traced, valued)                                            \
    HP_API HP_NO_ICF void name params                                                              \
    {                                                                                              \
        FAST_THREAD(t);                                                                            \
        if (HP_UNLIKELY(t->bursty)) {                                                              \
            if (t->bursty == HP_THREAD_VALUES) { /* exhaustive with value profiles */              \
                uint64_t pc_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                   \
                valued;                                                                            \
                HP_BUMP(&t->tot.field);                                                            \
                return;                                                                            \
            }                                                                                      \
            if (t->bursty == HP_THREAD_TRACING) {                                                  \
                uint64_t pc_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                   \
                traced;                                                                            \
                HP_BUMP(&t->tot.field);                                                            \
                return;                                                                            \
            }                                                                                      \
            if (HP_UNLIKELY(iv_on(HP_IV_VALUE)) && !HP_LOAD_RLX(&hp_g.patch) && hp_bursty_on(&t->bs)) { \
                uint64_t pc_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                   \
                traced; /* values in a burst of any type: trace_value feeds pt/intervals.c */      \
                return;                                                                            \
            }                                                                                      \
            if (HP_LOAD_RLX(&hp_g.patch)) {                                                        \
                uint64_t pc_ = (uint64_t)(uintptr_t)__builtin_return_address(0);                   \
                if (HP_LIKELY(!iv_on(HP_IV_VALUE))) {                                              \
                    if (!HP_LOAD_RLX(&hp_g.pb.mask)) hp_sites_note(pc_, (uint64_t)(uintptr_t)&name); \
                } else if (patch_mask(t, pc_, (uint64_t)(uintptr_t)&name)) {                        \
                    traced; /* values in a patched window: trace_value feeds pt/intervals.c */     \
                }                                                                                  \
            }                                                                                      \
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
COUNT_HOOK(__sanitizer_cov_trace_cmp1, cmps, (uint8_t a, uint8_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)), (hp_rt_val_add(t, pc_, HP_VK_CMP, 0, a), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp2, cmps, (uint16_t a, uint16_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)), (hp_rt_val_add(t, pc_, HP_VK_CMP, 0, a), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp4, cmps, (uint32_t a, uint32_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)), (hp_rt_val_add(t, pc_, HP_VK_CMP, 0, a), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp8, cmps, (uint64_t a, uint64_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)), (hp_rt_val_add(t, pc_, HP_VK_CMP, 0, a), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b)))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp1, cmps, (uint8_t a, uint8_t b), trace_value(t, pc_, b), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp2, cmps, (uint16_t a, uint16_t b), trace_value(t, pc_, b), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp4, cmps, (uint32_t a, uint32_t b), trace_value(t, pc_, b), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp8, cmps, (uint64_t a, uint64_t b), trace_value(t, pc_, b), hp_rt_val_add(t, pc_, HP_VK_CMP, 1, b))
COUNT_HOOK(__sanitizer_cov_trace_switch, cmps, (uint64_t val, uint64_t *cases), trace_value(t, pc_, val), hp_rt_val_add(t, pc_, HP_VK_CMP, 0, val))
COUNT_HOOK(__sanitizer_cov_trace_div4, cmps, (uint32_t val), trace_value(t, pc_, val), (void)pc_)
COUNT_HOOK(__sanitizer_cov_trace_div8, cmps, (uint64_t val), trace_value(t, pc_, val), (void)pc_)
COUNT_HOOK(__sanitizer_cov_trace_gep, cmps, (uintptr_t idx), trace_value(t, pc_, idx), (void)pc_)

/* hooks.c — the ABI entry points of libhotprof_rt: the -finstrument-functions and
 * -fsanitize-coverage callbacks the compiler calls. Nothing but entry points: each one loads the
 * thread's state (FAST_THREAD: initial-exec TLS, one predictable branch) and hands the event to
 * its mode's body, a static inline function of
 *   hooks_exhaustive.h  exhaustive (every event; the default)
 *   hooks_bursty.h      bursty with live hooks (HPS counters in every hook)
 *   hooks_patch.h       bursty over patched call sites (hooks run only in windows)
 *   hooks_osp.h         subpaths (OSP), before the mode's own block body, when the thread's
 *                       blockflags say so (the block hook tests blockflags where it tested bursty)
 *   hooks_trace.h       exhaustive with a trace (--record-trace): t->bursty == HP_THREAD_TRACING
 *                       (the block hook: blockflags has HP_BLOCK_TRACE)
 * (shared pieces in hooks_common.h). The mode is chosen by two predictable branches on the
 * thread's fixed `bursty` flag and hp_g.patch — exactly the tests the hooks made before the
 * bodies moved out — never by a function pointer; no body adds work to another mode's path.
 * Memory references of the datastream type go to pt/datastream.c on their cold path.
 *
 * guard_init/pcs_init fill the process-wide guard map (blockmap.c) and refresh the module list
 * (a new instrumented module: modules.c).
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
#include "runtime/modules.h"

/* ---------------------------------------------------------------- calls */

HP_API void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    uint64_t fn = (uint64_t)(uintptr_t)this_fn, site = (uint64_t)(uintptr_t)call_site;
    if (HP_UNLIKELY(t->bursty)) {
        if (t->bursty == HP_THREAD_TRACING) trace_enter(t, fn, site);
        else if (HP_LOAD_RLX(&hp_g.patch))
            patch_enter(t, fn, site, (uint64_t)(uintptr_t)__builtin_return_address(0),
                        (uint64_t)(uintptr_t)&__cyg_profile_func_enter);
        else
            bursty_enter(t, fn, site);
        return;
    }
    exhaustive_enter(t, fn, site);
}

HP_API void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    FAST_THREAD(t);
    if (HP_UNLIKELY(t->bursty == HP_THREAD_BURSTY) && HP_LOAD_RLX(&hp_g.patch) &&
        !patch_mask(t, (uint64_t)(uintptr_t)__builtin_return_address(0), (uint64_t)(uintptr_t)&__cyg_profile_func_exit))
        return;
    exit_pop(t, (uint64_t)(uintptr_t)this_fn);
}

/* ---------------------------------------------------------------- blocks */

HP_API void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
    FAST_THREAD(t);
    uint32_t id = *guard;
    if (HP_UNLIKELY(t->blockflags)) { /* bursty, subpaths and/or a trace (one test, as `bursty` was) */
        if (t->blockflags & HP_BLOCK_OSP) osp_block(t, id);
        if (!(t->blockflags & HP_BLOCK_BURSTY)) {
            if (t->blockflags & HP_BLOCK_ADOPT) adopt_frame(t, id); /* a shadow (ctl/shadow_child.c) */
            if (t->blockflags & HP_BLOCK_TRACE) trace_block(t, id); /* counts as exhaustive_block, and traces */
            else exhaustive_block(t, id);
            return;
        }
        if (HP_LOAD_RLX(&hp_g.patch))
            patch_block(t, id, (uint64_t)(uintptr_t)__builtin_return_address(0),
                        (uint64_t)(uintptr_t)&__sanitizer_cov_trace_pc_guard);
        else
            bursty_block(t, id);
        return;
    }
    exhaustive_block(t, id);
}

HP_API void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
    if (hp_blockmap_guard_init(start, stop)) hp_modules_refresh(); /* a new instrumented module */
}

HP_API void __sanitizer_cov_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end)
{
    hp_blockmap_pcs_init(pcs_beg, pcs_end);
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
            uint32_t on_ = HP_LOAD_RLX(&hp_g.patch) ? patch_mask(t, ret_, (uint64_t)(uintptr_t)&name) \
                                                    : hp_bursty_on(&t->bs);                        \
            if (HP_UNLIKELY(on_ & BIT_STREAMS)) hp_rt_ds_sample(t, addr, ret_, is_store);          \
            if (HP_UNLIKELY(on_) && !(is_store) && iv_on(HP_IV_VALUE) && !HP_LOAD_RLX(&hp_g.patch)) \
                hp_rt_iv_add(t, HP_IV_VALUE, ret_, (uint64_t)*addr); /* a value in a burst */      \
            return;                                                                                \
        }                                                                                          \
        HP_BUMP(&t->tot.field);                                                                    \
    }

/* Compare hooks count in exhaustive mode only; in bursty mode with live hooks and a value interval
 * profile, their values during bursts go to pt/intervals.c; in patch mode they hand their call
 * site to sites.c, to be turned off. */
#define COUNT_HOOK(name, field, params, traced)                                                    \
    HP_API HP_NO_ICF void name params                                                              \
    {                                                                                              \
        FAST_THREAD(t);                                                                            \
        if (HP_UNLIKELY(t->bursty)) {                                                              \
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
            if (HP_LOAD_RLX(&hp_g.patch) && !HP_LOAD_RLX(&hp_g.pb.mask))                             \
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
COUNT_HOOK(__sanitizer_cov_trace_cmp1, cmps, (uint8_t a, uint8_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp2, cmps, (uint16_t a, uint16_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp4, cmps, (uint32_t a, uint32_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)))
COUNT_HOOK(__sanitizer_cov_trace_cmp8, cmps, (uint64_t a, uint64_t b), (trace_value(t, pc_, a), trace_value(t, pc_, b)))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp1, cmps, (uint8_t a, uint8_t b), trace_value(t, pc_, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp2, cmps, (uint16_t a, uint16_t b), trace_value(t, pc_, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp4, cmps, (uint32_t a, uint32_t b), trace_value(t, pc_, b))
COUNT_HOOK(__sanitizer_cov_trace_const_cmp8, cmps, (uint64_t a, uint64_t b), trace_value(t, pc_, b))
COUNT_HOOK(__sanitizer_cov_trace_switch, cmps, (uint64_t val, uint64_t *cases), trace_value(t, pc_, val))
COUNT_HOOK(__sanitizer_cov_trace_div4, cmps, (uint32_t val), trace_value(t, pc_, val))
COUNT_HOOK(__sanitizer_cov_trace_div8, cmps, (uint64_t val), trace_value(t, pc_, val))
COUNT_HOOK(__sanitizer_cov_trace_gep, cmps, (uintptr_t idx), trace_value(t, pc_, idx))

/* stubs.c — stand-in hook bodies for bench/fastpath: each variant isolates one part of what a
 * compiled hook costs (HPS Figure 7's breakdown), with no profiler behind it:
 *   FP_EMPTY      every hook returns at once           -> the cost of the hook call itself
 *   FP_COUNT      every hook increments a TLS counter  -> + the cheapest possible body
 *   FP_COUNTDOWN  call hooks run hotprof's bursty controller fast path (core/control/bursty.h) with
 *                 methods at period 999, burst 1; block hooks count  -> the HPS counter cost
 *   FP_XRAY       installs an empty XRay handler and patches every sled at start-up
 *   FP_8BIT       the init callback inline-8bit-counters needs (counters need no hook)
 * Compiled without instrumentation; the workloads are compiled with the matching flags. */
#include <stdint.h>
#include <stdlib.h>

#define NOINST __attribute__((no_instrument_function, used))

#if defined(FP_EMPTY) || defined(FP_COUNT) || defined(FP_COUNTDOWN)
static __thread uint64_t fp_events;
#ifdef FP_COUNT
#define BODY() (fp_events++)
#else
#define BODY() ((void)0)
#endif

#ifdef FP_COUNTDOWN
#include "core/control/bursty.h"
static hp_bursty_config fp_cfg;
static __thread hp_bursty_state fp_state;
static __thread int fp_ready;
static NOINST void fp_thread_init(void)
{
    static int config_done;
    if (!__atomic_exchange_n(&config_done, 1, __ATOMIC_ACQ_REL)) {
        hp_bursty_config_init(&fp_cfg);
        hp_bursty_params p = {999, 1, 0, 1};
        hp_bursty_config_set(&fp_cfg, HP_BURSTY_METHODS, &p);
    }
    hp_bursty_init(&fp_state, &fp_cfg, (uint64_t)(uintptr_t)&fp_state);
    fp_ready = 1;
}
NOINST void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn, (void)site;
    if (__builtin_expect(!fp_ready, 0)) fp_thread_init();
    if (__builtin_expect(hp_bursty_boundary(&fp_state) != 0, 0)) fp_events++;
}
#else
NOINST void __cyg_profile_func_enter(void *fn, void *site) { (void)fn, (void)site; BODY(); }
#endif
NOINST void __cyg_profile_func_exit(void *fn, void *site) { (void)fn, (void)site; BODY(); }
NOINST void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { (void)guard; BODY(); }
NOINST void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) { (void)start, (void)stop; }
NOINST void __sanitizer_cov_pcs_init(const uintptr_t *b, const uintptr_t *e) { (void)b, (void)e; }
#endif

#ifdef FP_XRAY
/* xray_interface.h is C++; these two are extern "C" there (XRayEntryType is an int enum). */
extern int __xray_set_handler(void (*entry)(int32_t fn, int type));
extern int __xray_patch(void);
static NOINST void fp_xray_handler(int32_t fn, int type) { (void)fn, (void)type; }
__attribute__((constructor)) static NOINST void fp_xray_patch(void)
{
    __xray_set_handler(fp_xray_handler);
    __xray_patch();
}
#endif

#ifdef FP_8BIT
NOINST void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) { (void)start, (void)stop; }
NOINST void __sanitizer_cov_pcs_init(const uintptr_t *b, const uintptr_t *e) { (void)b, (void)e; }
#endif

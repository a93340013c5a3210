/* timer_unwind.c — timer mode's stack unwinding (timer.h: hp_unwind_load, hp_unwind): libunwind's
 * local unwinder (Debian's libunwind8), which reads the .eh_frame CFI (Debian's binaries have no
 * frame pointers) and is documented async-signal-safe for local unwinding.
 *
 * Why dlopen and not -lunwind: libunwind.so.8 also exports the _Unwind_* functions of C++
 * exception handling. Linked into the preloaded runtime it would sit in the program's global
 * symbol scope and could take over the program's exceptions from libgcc_s. dlopen'ed with
 * RTLD_LOCAL it serves only us. The caching policy is set to per-thread (no lock in a handler).
 *
 * State (file-static, set once by hp_unwind_load at init, read-only afterwards): the resolved
 * functions and the local address space.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include "core/format/format.h"
#include <dlfcn.h>
#include <libunwind.h>
#include <stdio.h>

static int (*g_init)(unw_cursor_t *, unw_context_t *, int);
static int (*g_step)(unw_cursor_t *);
static int (*g_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);

HP_NOINST int hp_unwind_load(char *err, size_t errlen)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "hotprof: --mode timer needs libunwind (Debian: libunwind8): %s (not profiling)", dlerror());
        return -1;
    }
    int (*policy)(unw_addr_space_t, unw_caching_policy_t) = (int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(h, "_ULx86_64_set_caching_policy");
    unw_addr_space_t *as = (unw_addr_space_t *)dlsym(h, "_ULx86_64_local_addr_space");
    g_init = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, "_ULx86_64_init_local2");
    g_step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
    g_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, "_ULx86_64_get_reg");
    if (!policy || !as || !g_init || !g_step || !g_get_reg) {
        snprintf(err, errlen, "hotprof: --mode timer: libunwind.so.8 lacks unw_init_local2 (libunwind >= 1.3 needed; not profiling)");
        return -1;
    }
    policy(*as, UNW_CACHE_PER_THREAD);
    return 0;
}

HP_NOINST uint32_t hp_unwind(ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags)
{
    unw_cursor_t cur;
    uint32_t n = 1;
    if (g_init(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
        *flags = HP_STACK_UNWIND_FAIL;
        return 1;
    }
    for (;;) {
        int r = g_step(&cur);
        if (r == 0) return n; /* the outermost frame */
        unw_word_t ip = 0;
        if (r < 0 || g_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0) {
            *flags = r < 0 ? HP_STACK_UNWIND_FAIL : 0;
            return n;
        }
        if (n == depth) {
            *flags = HP_STACK_TRUNCATED;
            return n;
        }
        pcs[n++] = (uint64_t)ip;
    }
}

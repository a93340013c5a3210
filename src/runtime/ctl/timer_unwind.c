/* timer_unwind.c — timer mode's stack unwinding (timer.h: hp_unwind_load, hp_unwind): libunwind's
 * local unwinder (Debian's libunwind8), which reads the .eh_frame CFI (Debian's binaries have no
 * frame pointers) and is documented async-signal-safe for local unwinding.
 *
 * Why dlopen and not -lunwind: libunwind.so.8 also exports the _Unwind_* functions of C++
 * exception handling. Linked into the preloaded runtime it would sit in the program's global
 * symbol scope and could take over the program's exceptions from libgcc_s. dlopen'ed with
 * RTLD_LOCAL it serves only us. The caching policy is set to per-thread (no lock in a handler).
 *
 * libunwind opens a pipe (close-on-exec) at its first unwind, to validate addresses. Left to
 * itself it takes the lowest free descriptors, where the program would see them (and could close
 * them and reuse the numbers: libunwind would then write into the program's file). So
 * hp_unwind_load makes that first unwind itself, at init, with every descriptor below
 * HP_UNWIND_FD_FLOOR temporarily taken: the pipe lands at or above it (docs/timer.md). The same
 * warm-up pays libunwind's one-time costs outside the program's first interrupt.
 *
 * The unwind-step cache (timer_ucache.c) is tried first; libunwind's steps fill it. Its mode is
 * HOTPROF_UNWIND_CACHE (read by hp_unwind_load): unset or "on": on; "off"; "check": libunwind
 * always, the cache beside it, stacks that differ counted (a debug setting, for the tests).
 *
 * State (file-static): the resolved functions and the cache mode, set once by hp_unwind_load at
 * init and read-only afterwards; per thread, whether it is unwinding now (t_unwinding).
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include "core/format/format.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define HP_UNWIND_FD_FLOOR 900

static __thread int t_unwinding; /* hp_timer_unwinding (timer.h) */

HP_NOINST int hp_timer_unwinding(void) { return t_unwinding; }

static int g_ucache_mode = 1;
static int (*g_init)(unw_cursor_t *, unw_context_t *, int);
static int (*g_step)(unw_cursor_t *);
static int (*g_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);

/* One unwind step from here (getcontext returns twice: kept apart from warm_up's locals). */
static HP_NOINST __attribute__((noinline)) void first_unwind(void)
{
    ucontext_t uc;
    unw_cursor_t cur;
    if (getcontext(&uc) == 0 && g_init(&cur, (unw_context_t *)&uc, UNW_INIT_SIGNAL_FRAME) >= 0)
        for (int i = 0; i < 8 && g_step(&cur) > 0; i++) continue;
}

/* libunwind's initialization (its pipe: in the first call, set_caching_policy) and first unwind,
 * with the low descriptors taken; the caching policy is set to per-thread. */
static HP_NOINST void warm_up(int (*policy)(unw_addr_space_t, unw_caching_policy_t), unw_addr_space_t as)
{
    static int held[HP_UNWIND_FD_FLOOR];
    struct rlimit rl;
    int n = 0, floor = HP_UNWIND_FD_FLOOR;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)floor + 64) floor = (int)rl.rlim_cur - 64;
    int base = open("/dev/null", O_RDONLY | O_CLOEXEC);
    while (base >= 0 && n < floor) {
        int fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) break;
        held[n++] = fd;
        if (fd >= floor - 1) break;
    }
    policy(as, UNW_CACHE_PER_THREAD); /* libunwind's own init (and pipe) happen here */
    first_unwind();
    while (n > 0) close(held[--n]);
    if (base >= 0) close(base);
}

HP_NOINST int hp_ucache_mode(void) { return g_ucache_mode; }

HP_NOINST int hp_unwind_load(char *err, size_t errlen)
{
    const char *uc = getenv("HOTPROF_UNWIND_CACHE");
    g_ucache_mode = !uc || !*uc || strcmp(uc, "on") == 0 ? 1 : strcmp(uc, "check") == 0 ? 2 : 0;
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
    warm_up(policy, *as);
    return 0;
}

/* HOTPROF_UNWIND_CACHE=check: the cached walks (from frame 0, and from the first frame where the
 * rest is cached, as the "on" mode would take them) beside libunwind's result. */
typedef struct ucheck {
    uint64_t pcs[HP_STACK_MAX_DEPTH];
    uint32_t n;
    uint16_t flags;
} ucheck;

static HP_NOINST uint32_t unwind(hp_timer_thread *tt, ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags,
                                 ucheck *part);

static HP_NOINST void compare(hp_timer_thread *tt, const ucheck *c, const uint64_t *pcs, uint32_t n, uint16_t flags)
{
    if (!c->n) return;
    tt->unwind_cached++;
    if (c->n != n || c->flags != flags || memcmp(c->pcs, pcs, n * 8u) != 0) tt->unwind_mismatches++;
}

static HP_NOINST uint32_t unwind_checked(hp_timer_thread *tt, ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags)
{
    static __thread ucheck full, part;
    full.pcs[0] = pcs[0], full.flags = 0, part.n = 0;
    full.n = hp_ucache_walk(tt, pcs[0], (uint64_t)uc->uc_mcontext.gregs[REG_RSP], 1, full.pcs, 1, depth, &full.flags);
    uint32_t n = unwind(tt, uc, pcs, depth, flags, &part);
    compare(tt, &full, pcs, n, *flags);
    compare(tt, &part, pcs, n, *flags);
    return n;
}

HP_NOINST uint32_t hp_unwind(hp_timer_thread *tt, ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags)
{
    if (depth <= 1) return 1;
    if (g_ucache_mode == 1) {
        uint32_t n = hp_ucache_walk(tt, pcs[0], (uint64_t)uc->uc_mcontext.gregs[REG_RSP], 1, pcs, 1, depth, flags);
        if (n) return tt->unwind_cached++, n;
    }
    t_unwinding = 1;
    uint32_t n = g_ucache_mode == 2 ? unwind_checked(tt, uc, pcs, depth, flags) : unwind(tt, uc, pcs, depth, flags, NULL);
    t_unwinding = 0;
    return n;
}

static HP_NOINST uint32_t unwind(hp_timer_thread *tt, ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags,
                                 ucheck *part)
{
    unw_cursor_t cur;
    uint32_t n = 1;
    uint64_t ip = pcs[0], sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    int fill = g_ucache_mode != 0;
    if (g_init(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
        *flags = HP_STACK_UNWIND_FAIL;
        return 1;
    }
    for (;;) {
        int r = g_step(&cur);
        if (r == 0) { /* the outermost frame */
            if (fill) hp_ucache_observe_end(tt, ip, n == 1);
            return n;
        }
        unw_word_t nip = 0, nsp = 0;
        if (r < 0 || g_get_reg(&cur, UNW_REG_IP, &nip) < 0 || g_get_reg(&cur, UNW_REG_SP, &nsp) < 0 || nip == 0) {
            if (fill && r > 0 && nip == 0) hp_ucache_observe(tt, ip, n == 1, sp, (uint64_t)nsp, 0);
            *flags = r < 0 ? HP_STACK_UNWIND_FAIL : 0;
            return n;
        }
        if (fill) hp_ucache_observe(tt, ip, n == 1, sp, (uint64_t)nsp, (uint64_t)nip);
        ip = (uint64_t)nip, sp = (uint64_t)nsp;
        if (n == depth) {
            *flags = HP_STACK_TRUNCATED;
            return n;
        }
        pcs[n++] = ip;
        if (part && !part->n) { /* check mode: what "on" would have taken from here */
            memcpy(part->pcs, pcs, n * 8u);
            part->flags = 0;
            part->n = hp_ucache_walk(tt, ip, sp, 0, part->pcs, n, depth, &part->flags);
        }
        uint32_t rest = g_ucache_mode == 1 ? hp_ucache_walk(tt, ip, sp, 0, pcs, n, depth, flags) : 0;
        if (rest) return tt->unwind_cached++, rest; /* the rest of the stack is cached */
    }
}

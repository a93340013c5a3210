/* shadow_child.c — a shadow's life, in the process the monitor's clone made (one thread: the one
 * the timer signal interrupted), from inside that signal handler:
 *   begin: PR_SET_PDEATHSIG(the monitor's signal: only the process's death, not the exit of the
 *          thread that cloned us, ends the shadow: hp_shadow_child_parent_check), and _exit if the
 *          parent died before the prctl; the runtime's
 *          locks reset; this thread's state made exhaustive and zeroed (every thread's counts
 *          zeroed), hp_g.patch and hp_g.bursty off; every known hook site back on (sites.c: only
 *          this process's copy-on-write text changes), and with two-version code every dual site
 *          on and hp_g.dual = HP_DUAL_ALL (ctl/dual.c; the parent's stay nops); the profile <output>.shadows/<n> opened at
 *          HP_SHADOW_PROFILE_FD and /dev/null at HP_SHADOW_NULL_FD (init's callback); writable
 *          shared mappings made read-only (from /proc/self/maps, read with raw calls into a static
 *          buffer), except the counters page; SIGSYS, SIGSEGV and SIGBUS handlers; a CPU-time
 *          timer (1 ms, the monitor's signal) that ends the shadow after `sample` events or `slice`
 *          ms of its CPU time x a seeded jitter in [0.5, 1.5) (so that shadows spaced per load
 *          spread over the run's phases, periodic ones too); then the
 *          seccomp filter (shadow_filter.c). The handler returns and the program goes on, recorded.
 *   end:   (sample size reached, an input or unsafe call, a write to a protected mapping, a fault,
 *          the program's exit) the counts added into the shared page, the profile's final group
 *          written (init's callback: the writer), exit_group with the cookie.
 * Nothing here allocates or takes a lock the program could hold: system calls and memory only.
 * A shadow whose program blocks (a lock held by a thread that does not exist here, a read that
 * never comes) is killed by the monitor's deadline.
 *
 * State: file-static (this shadow's number, start time, end guard, protected ranges, the maps
 * buffer); in the parent it is all unused.
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/dual.h"
#include "core/base/hash.h"
#include "runtime/thread.h"
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROTECTED 256
#define CHILD_TICK_NS 1000000L /* the sample-size check: every ms of the shadow's CPU time */

static int g_is_child, g_ending;
static uint64_t g_start_cpu_ns;
static uint64_t g_slice_ns;
static uint64_t g_start_tsc, g_start_mono_ns; /* TSC cycles to ns over this shadow's life */ /* this shadow's CPU time at most: slice x [0.5, 1.5), 0: no limit */
static struct { uint64_t lo, hi; } g_prot[MAX_PROTECTED];
static int g_nprot;
static char g_maps[16384];
static int g_reason = -1;
static int g_parent_pid; /* the profiled process (getppid() is its pid while it lives) */

int hp_shadow_in_child(void) { return HP_LOAD_RLX(&g_is_child); }

static HP_NOINST uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The shadow's thread state, remembered: after its thread's exit (the program's thread ends in
 * the shadow too) hp_tls is the inactive thread, but the counts are still there to report. */
static hp_thread *g_thread;

static HP_NOINST uint64_t events_now(void)
{
    hp_thread *t = hp_tls;
    if (t && t->active) g_thread = t;
    t = g_thread;
    return t ? HP_LOAD_RLX(&t->tot.calls) + HP_LOAD_RLX(&t->tot.blocks) : 0;
}

HP_NOINST int hp_shadow_protected(uint64_t addr, uint64_t len)
{
    for (int i = 0; i < g_nprot; i++)
        if (addr < g_prot[i].hi && addr + len > g_prot[i].lo) return 1;
    return 0;
}

static HP_NOINST uint64_t hex_field(const char **p)
{
    uint64_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return v;
        v = v * 16 + (uint64_t)d;
    }
}

/* One /proc/self/maps line: "lo-hi perms ...". A writable shared mapping becomes read-only. */
static HP_NOINST void protect_line(const char *line, uint64_t skip)
{
    const char *p = line;
    uint64_t lo = hex_field(&p);
    if (*p++ != '-') return;
    uint64_t hi = hex_field(&p);
    if (*p++ != ' ' || p[1] != 'w' || p[3] != 's' || lo == skip || g_nprot == MAX_PROTECTED) return;
    int prot = PROT_READ | (p[2] == 'x' ? PROT_EXEC : 0);
    if (mprotect((void *)(uintptr_t)lo, hi - lo, prot) == 0) g_prot[g_nprot].lo = lo, g_prot[g_nprot++].hi = hi;
}

/* Every rw?s mapping but the counters page, read-only. Lines longer than the buffer are skipped. */
static HP_NOINST void protect_shared(uint64_t skip)
{
    int fd = (int)hp_sys6(SYS_open, (uint64_t)(uintptr_t)"/proc/self/maps", O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
    if (fd < 0) return;
    size_t have = 0;
    for (;;) {
        long n = hp_sys6(SYS_read, (uint64_t)fd, (uint64_t)(uintptr_t)(g_maps + have), sizeof g_maps - 1 - have, 0, 0, 0);
        if (n <= 0) break;
        have += (size_t)n;
        g_maps[have] = 0;
        char *start = g_maps, *nl;
        while ((nl = strchr(start, '\n'))) *nl = 0, protect_line(start, skip), start = nl + 1;
        have = (size_t)(g_maps + have - start);
        memmove(g_maps, start, have);
        if (have == sizeof g_maps - 1) have = 0; /* a line too long: dropped */
    }
    hp_sys6(SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
}

static HP_NOINST void end_handler(int signo, siginfo_t *si, void *uc)
{
    uint64_t a = (uint64_t)(uintptr_t)si->si_addr;
    hp_shadow_child_end(hp_shadow_protected(a, 1) ? HP_END_SHARED_WRITE : HP_END_FAULT);
}

static HP_NOINST void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = end_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSYS); /* the end writes the profile: trapped calls need SIGSYS open */
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    hp_shadow_sys_install();
}

/* The CPU-time timer that checks the sample size (timers are not inherited: this is the shadow's). */
static HP_NOINST int start_end_timer(int sig)
{
    struct sigevent ev;
    timer_t id;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = sig;
    ev.sigev_value.sival_int = HP_SHADOW_TICK_CHILD;
    if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &id) != 0) return -1;
    struct itimerspec its = {{0, CHILD_TICK_NS}, {0, CHILD_TICK_NS}};
    return timer_settime(id, 0, &its, NULL);
}

/* This thread exhaustive from now on, every count zero. */
static HP_NOINST void make_exhaustive(void)
{
    HP_STORE_REL(&hp_g.patch, 0);
    HP_STORE_REL(&hp_g.bursty, 0);
    HP_STORE_REL(&hp_g.pathval, HP_LOAD_ACQ(&hp_g.shadow_pathval)); /* a thread state made now gets them too */
    hp_threads_reset_counts();
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) HP_STORE_RLX(&t->active, t == hp_tls);
    hp_thread *t = hp_tls;
    if (!t || !t->stack) return; /* no state yet: its first event creates an exhaustive one */
    t->bursty = 0;
    t->blockflags = HP_BLOCK_ADOPT; /* frames for the activations already running (hooks_exhaustive.h) */
    hp_rt_pathval_thread_setup(t); /* --sample path / value:summary=... */
    t->methods = NULL;
    t->depth = 0;
    t->prev_guard = 0;
    t->stack[0].last_pc = 0;
}

HP_NOINST void hp_shadow_child_begin(uint64_t n, int parent_pid)
{
    const hp_shadow_cfg *c = hp_shadow_cfg_get();
    HP_STORE_RLX(&g_is_child, 1);
    g_parent_pid = parent_pid;
    /* The "parent" of PDEATHSIG is the THREAD that cloned us: a worker's exit would kill us with
     * SIGKILL while the process lives. So the monitor's signal instead, which the tick handler
     * sends to hp_shadow_child_parent_check: exit only if the process is gone (the setting stays
     * for the next thread we are re-parented to, and the last one's exit re-parents us outside). */
    prctl(PR_SET_PDEATHSIG, c->spec.signal, 0, 0, 0);
    if (getppid() != parent_pid) hp_sys6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
    g_start_cpu_ns = cpu_ns();
    g_start_tsc = __builtin_ia32_rdtsc(), g_start_mono_ns = hp_now_ns();
    /* jittered per shadow (seeded): shadows spaced exactly alike would keep meeting the same phase
     * of a program whose phases are periodic (heapsort's ascending/descending arrays) */
    g_slice_ns = c->spec.slice_ms * 1000000ull / 1024 * (512 + hp_splitmix64_mix(c->cookie ^ n) % 1024);
    hp_threads_lock_reset();
    make_exhaustive();
    hp_sites_child_all_on();
    if (hp_dual_present()) { /* two-version code: the instrumented copies, in this text only */
        HP_STORE_REL(&hp_g.dual, HP_DUAL_ALL);
        hp_dual_child_all_on();
    }
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup3(null, HP_SHADOW_NULL_FD, O_CLOEXEC) < 0 || c->ops.open_output(n, HP_SHADOW_PROFILE_FD) != 0) {
        __atomic_fetch_add(&c->shared->end[HP_END_SETUP], 1, __ATOMIC_RELAXED);
        hp_sys6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
    }
    close(null);
    hp_shadow_rate_begin(); /* calibration first, with two-version code (shadow_rate.c) */
    protect_shared((uint64_t)(uintptr_t)c->shared);
    install_handlers();
    if (start_end_timer(c->spec.signal) != 0 || hp_shadow_filter_install() != 0) hp_shadow_child_end(HP_END_SETUP);
}

/* A signal that is not our timer's: PDEATHSIG (begin). The thread that cloned us exited; only if
 * the profiled process is gone (we were re-parented out of it) does the shadow end, at once:
 * nobody will merge its profile. Raw calls with the cookie: async-signal-safe, past the filter. */
HP_NOINST void hp_shadow_child_parent_check(void)
{
    uint64_t cookie = hp_shadow_cfg_get()->cookie;
    if (hp_sys6(SYS_getppid, 0, 0, 0, 0, 0, cookie) != g_parent_pid) hp_sys6(SYS_exit_group, 0, 0, 0, 0, 0, cookie);
}

/* Every ms of the shadow's CPU: its sample is full, its slice of CPU time used, or the parent is exiting (its profile so far is
 * kept: the parent waits for it instead of killing it). */
HP_NOINST void hp_shadow_child_tick(void)
{
    const hp_shadow_cfg *c = hp_shadow_cfg_get();
    uint64_t now = cpu_ns();
    hp_shadow_rate_tick(now);
    if (events_now() >= c->spec.sample && !hp_shadow_rate_hold_end(now)) hp_shadow_child_end(HP_END_SAMPLE);
    if (g_slice_ns && now - g_start_cpu_ns >= g_slice_ns + hp_shadow_rate_extra_ns() && !hp_shadow_rate_hold_end(now))
        hp_shadow_child_end(HP_END_SLICE);
    if (HP_LOAD_ACQ(&c->shared->parent_exiting)) hp_shadow_child_end(HP_END_PARENT_EXIT);
}

/* The native time this shadow's events stand for: its entries + back-edges over its calibrated
 * native rate (shadow_rate.c: two-version code); else the sampled gaps between its hooks
 * (pt/path.c, with --sample path), in ns; else its CPU time minus HOOK_NS per event (at least a
 * tenth kept). */
#define HOOK_NS 6u
static HP_NOINST uint64_t native_ns(uint64_t events, uint64_t cpu)
{
    uint64_t cal;
    if (hp_shadow_rate_native_ns(&cal)) {
        hp_shadow_shared *s = hp_shadow_cfg_get()->shared;
        __atomic_fetch_add(&s->calibrated, 1, __ATOMIC_RELAXED);
        if (cal && events >= HP_SHADOW_DENSITY_MIN_EVENTS) { /* the density where this shadow ran (shadow.c) */
            __atomic_fetch_add(&s->density_sum, (uint64_t)((double)events * 1e6 / (double)cal), __ATOMIC_RELAXED);
            __atomic_fetch_add(&s->density_n, 1, __ATOMIC_RELAXED);
        }
        return cal;
    }
    uint64_t cycles = hp_rt_native_cycles(hp_tls), tsc = __builtin_ia32_rdtsc() - g_start_tsc;
    uint64_t ns = hp_now_ns() - g_start_mono_ns;
    if (cycles && tsc) return (uint64_t)((double)cycles * (double)ns / (double)tsc);
    double native = (double)cpu - (double)events * HOOK_NS;
    return native < (double)cpu / 10 ? cpu / 10 : (uint64_t)native;
}

HP_NOINST void hp_shadow_child_end(int reason)
{
    const hp_shadow_cfg *c = hp_shadow_cfg_get();
    uint64_t cookie = c->cookie, all = ~((1ull << (SIGSYS - 1)) | (1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)));
    /* no tick may end the shadow again while its profile is written (the program's exit path
     * runs with signals open); SIGSYS stays open: a trapped call with it blocked kills the process */
    hp_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (uint64_t)(uintptr_t)&all, 0, sizeof all, 0, cookie);
    if (__atomic_exchange_n(&g_ending, 1, __ATOMIC_ACQ_REL)) hp_sys6(SYS_exit_group, 0, 0, 0, 0, 0, cookie);
    g_reason = reason;
    hp_shadow_shared *s = c->shared;
    uint64_t ev = events_now(), cpu = cpu_ns() - g_start_cpu_ns;
    for (int k = 0; k < HP_SYS_NCAT; k++) __atomic_fetch_add(&s->sys[k], hp_shadow_sys_count(k), __ATOMIC_RELAXED);
    c->ops.write_final();
    __atomic_fetch_add(&s->events, ev, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->cpu_ns, cpu, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->native_ns, native_ns(ev, cpu), __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->written, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->end[reason], 1, __ATOMIC_RELAXED);
    hp_sys6(SYS_exit_group, 0, 0, 0, 0, 0, cookie);
    __builtin_unreachable();
}

/* This shadow's INFO lines (its group INFO): why it ended and its trapped calls. */
HP_NOINST size_t hp_shadow_child_info(char *out, size_t cap)
{
    static const char *const cats[HP_SYS_NCAT] = {"benign", "output", "input", "unsafe"};
    size_t n = hp_info_str(out, 0, cap, "shadow", "end", g_reason >= 0 ? hp_shadow_end_name(g_reason) : "running");
    for (int k = 0; k < HP_SYS_NCAT; k++) {
        char key[32] = "syscalls.";
        memcpy(key + 9, cats[k], strlen(cats[k]) + 1);
        n = hp_info_u64(out, n, cap, "shadow", key, hp_shadow_sys_count(k));
    }
    static const unsigned pcts[] = {10, 50, 90, 99};
    for (unsigned i = 0; i < sizeof pcts / sizeof pcts[0]; i++) { /* the gaps between hooks (pathval.h) */
        char key[16] = "gap.p";
        key[5] = (char)('0' + pcts[i] / 10), key[6] = (char)('0' + pcts[i] % 10), key[7] = 0;
        n = hp_info_u64(out, n, cap, "shadow", key, hp_rt_gap_pct(hp_tls, pcts[i]));
    }
    n = hp_info_u64(out, n, cap, "shadow", "native_cycles", hp_rt_native_cycles(hp_tls));
    return hp_shadow_rate_info(out, n, cap);
}

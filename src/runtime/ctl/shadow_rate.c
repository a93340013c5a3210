/* shadow_rate.c — a shadow's native event rate, for the coverage estimate (docs/shadow.md,
 * "Coverage"). In a program with two-version code whose trampolines could be mapped (count
 * mode's, ctl/dual.c; mapped once in the parent at start), a shadow first runs CAL_NS of its CPU
 * time (to the next tick after it: CPU-time timers fire on the scheduler's ticks, every 1-4 ms) of
 * the program's CLEAN code with every dual site jumping to its
 * trampoline, which decrements this thread's hp_dual_countdown (started at CAL_START: it never
 * reaches 0, so the instrumented copies are not entered): a count of function entries and loop
 * back-edges at native speed (plus ~1 ns a trampoline). Each tick closes a window; the fastest
 * window gives the rate (core/metrics/shadow.h). Then the countdown is set to CAL_DONE (far below
 * 0): every trampoline now enters the instrumented copy, and the shadow records as before. At its
 * end, its entries + back-edges recorded since the switch over the rate is the native time they
 * stand for. Events that the hooks counted during calibration (a site no trampoline reaches, a
 * function with one copy) count in the windows too.
 * The trampolines' own cost per event is measured by the shadow before its filter (a loop through
 * a trampoline against the same loop through a nop, MEASURE_ITERS iterations, best of
 * MEASURE_REPS: code the parent wrote once into a page of its own) and comes off each window: in
 * dense code (~1 ns per event) it is as large as the program's own time.
 *
 * Without two-version code, when the parent turned its hook call sites off (sites.c), the same
 * windows count calls + blocks through a stub the listed sites call instead of their hooks
 * (shadow_rate_sites.c) — at the END of a shadow that reached its sample or slice
 * (hp_shadow_rate_hold_end), so that one ended early by an input or a write to shared memory
 * keeps its profile (it is then not calibrated; the coverage takes the others' density). Its
 * calls + blocks recorded before the counting over the rate are its native time.
 *
 * Invariants: every page is made writable in hp_shadow_rate_begin (before the seccomp filter); the
 * tick and hp_shadow_rate_hold_end write only the countdown or the listed sites' bytes (no system
 * call, no lock). State: file-static; in the parent only g_ready and g_sites are used.
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include "runtime/ctl/dual.h"
#include "runtime/ctl/dual_tramp.h"
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "runtime/thread.h"
#include "core/metrics/shadow.h"

#define CAL_NS 2000000u                /* calibration: until the first tick after 2 ms of CPU */
#define CAL_START (INT64_MAX / 2)      /* the countdown while counting: never reaches 0 */
#define CAL_DONE (INT64_MIN / 2)       /* after: every trampoline enters the instrumented copy */
#define MEASURE_ITERS 50000L
#define MEASURE_REPS 3

static int g_ready;                    /* parent: trampolines mapped */
static int g_sites;                    /* no two-version code, hook call sites off (sites.c): a shadow
                                        * counts through shadow_rate_sites.c (shadow: its page is ready) */
static int g_by_sites;                 /* shadow: calibrating (or calibrated) through call sites */
static uint64_t g_rec_events;          /* shadow (sites): calls + blocks recorded before calibrating */
static uint8_t *g_probe;               /* parent: the measuring loops' page (NULL: none) */
static double g_count_ns;              /* shadow: a trampoline's cost per event */
static int g_phase;                    /* shadow: 0 none, 1 calibrating, 2 calibrated (recording,
                                        * or with call sites: ending) */
static uint64_t g_last_count, g_last_cpu, g_base_cb;
static uint64_t g_cal_start;           /* the shadow's CPU clock when its calibration began */
static hp_shadow_rate g_rate;

/* The events the hooks recorded: entries + back-edges (what trampolines count), or calls + blocks
 * (what the call-site stub counts). */
static HP_NOINST uint64_t hooked_cb(void)
{
    hp_thread *t = hp_tls;
    if (!t) return 0;
    uint64_t other = g_by_sites ? HP_LOAD_RLX(&t->tot.blocks) : HP_LOAD_RLX(&t->tot.backedges);
    return HP_LOAD_RLX(&t->tot.calls) + other;
}

static HP_NOINST uint64_t counted(void)
{
    uint64_t native = g_by_sites ? hp_shadow_rate_sites_count() : (uint64_t)(CAL_START - hp_dual_countdown);
    return native + hooked_cb();
}

HP_NOINST void hp_shadow_rate_loops(uint8_t *p, uint8_t op, int32_t rel)
{
    static const uint8_t loop[11] = {0, 0, 0, 0, 0, 0x48, 0xff, 0xcf, 0x75, 0xf6, 0xc3}; /* dec rdi; jnz; ret */
    static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    memcpy(p, loop, sizeof loop), memcpy(p + 32, loop, sizeof loop);
    p[0] = op;
    memcpy(p + 1, &rel, 4);
    memcpy(p + 32, nop5, sizeof nop5);
}

/* The measuring page: at 0 a loop of `n` (rdi) iterations whose site jumps to the trampoline at
 * 64 (jle to the ret, never taken while counting; jmp back after the site); at 32 the same loop
 * with the site's 5-byte nop. */
static HP_NOINST uint8_t *make_probe(void)
{
    int32_t fs_off, rel;
    if (!hp_tramp_fs_offset(&hp_dual_countdown, &fs_off)) return NULL;
    uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uint64_t at = (uint64_t)(uintptr_t)p;
    hp_tramp_rel32(at + 5, at + 64, &rel);
    hp_shadow_rate_loops(p, 0xe9, rel); /* jmp rel32 */
    if (!hp_tramp_encode(p + 64, at + 64, at + 10, at + 5, fs_off) || mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}

HP_NOINST void hp_shadow_rate_prepare(void)
{
    const char *why;
    g_ready = hp_dual_present() && hp_dual_count_probe(&why) == 0;
    if (g_ready) g_probe = make_probe();
    g_sites = !hp_dual_present() && HP_LOAD_RLX(&hp_g.patch);
}

/* One run of the loop at p over MEASURE_ITERS iterations, in ns. */
static HP_NOINST uint64_t time_loop(const uint8_t *p)
{
    void (*f)(long) = (void (*)(long))(uintptr_t)p;
    uint64_t t0 = hp_now_ns();
    f(MEASURE_ITERS);
    return hp_now_ns() - t0;
}

HP_NOINST double hp_shadow_rate_cost_ns(const uint8_t *with_loop, const uint8_t *nop_loop)
{
    uint64_t with = UINT64_MAX, without = UINT64_MAX;
    for (int r = 0; r < MEASURE_REPS; r++) { /* interleaved: both see the same machine */
        uint64_t a = time_loop(with_loop), b = time_loop(nop_loop);
        with = a < with ? a : with, without = b < without ? b : without;
    }
    return with > without ? (double)(with - without) / (double)MEASURE_ITERS : 0.0;
}

/* A trampoline's cost per event (ns, >= 0); 0 without the measuring page. */
static HP_NOINST double measure_count_ns(void)
{
    if (!g_probe) return 0.0;
    hp_dual_countdown = CAL_START;
    return hp_shadow_rate_cost_ns(g_probe, g_probe + 32);
}

static HP_NOINST uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

HP_NOINST void hp_shadow_rate_begin(void)
{
    if (g_sites) { /* the page and the stub's cost now (before the filter); the counting at the end */
        g_sites = hp_shadow_rate_sites_prepare(&g_count_ns);
        return;
    }
    if (!g_ready) return;
    g_cal_start = process_cpu_ns();
    g_count_ns = measure_count_ns();
    hp_dual_count_start(0); /* every site to its trampoline (the pages are writable already) */
    HP_STORE_REL(&hp_g.dual, HP_DUAL_ALL); /* the hooks of an instrumented copy record exhaustively */
    hp_dual_countdown = CAL_START;
    g_phase = 1;
    g_last_count = counted(), g_last_cpu = process_cpu_ns();
}

HP_NOINST void hp_shadow_rate_tick(uint64_t cpu_now)
{
    if (g_phase != 1) return;
    uint64_t c = counted();
    hp_shadow_rate_window(&g_rate, c - g_last_count, cpu_now - g_last_cpu, g_count_ns);
    g_last_count = c, g_last_cpu = cpu_now;
    uint64_t spent = cpu_now - g_cal_start; /* CAL_NS at least and a window that counted; 4 CAL_NS at most */
    if ((spent < CAL_NS || !g_rate.best_events) && spent < 4 * CAL_NS) return;
    g_base_cb = hooked_cb();
    if (!g_by_sites) hp_dual_countdown = CAL_DONE; /* (call sites: the shadow ends now) */
    g_phase = 2;
}

/* The shadow reached its sample or slice: 1 while it must run on to calibrate (call sites: the
 * counting starts now, after the recording, so that a shadow that ends early — an input, a write
 * to shared memory — keeps what it recorded), 0 when it may end. */
HP_NOINST int hp_shadow_rate_hold_end(uint64_t cpu_now)
{
    if (g_phase == 1) return 1;
    if (!g_sites || g_phase == 2 || !hp_shadow_rate_sites_begin()) return 0;
    g_by_sites = 1; /* (hooked_cb counts calls + blocks from here) */
    g_rec_events = hooked_cb();
    g_phase = 1;
    g_cal_start = cpu_now;
    g_last_count = counted(), g_last_cpu = cpu_now;
    return 1;
}

/* How much longer than its slice this shadow may run: while it calibrates, UINT64_MAX / 4 (no
 * slice ends it before it recorded a tick); after, 0 (the slice includes the calibration, so the
 * shadows' spacing per load is what it was without one). */
HP_NOINST uint64_t hp_shadow_rate_extra_ns(void) { return g_phase == 1 ? UINT64_MAX / 4 : 0; }

/* A shadow that ended while calibrating recorded (almost) nothing: the events its hooks counted
 * meanwhile over the rate, or 0 before the first window. */
HP_NOINST int hp_shadow_rate_native_ns(uint64_t *ns)
{
    if (!g_phase) return 0;
    *ns = (uint64_t)hp_shadow_rate_native_ns_of(&g_rate, g_by_sites ? g_rec_events : hooked_cb() - g_base_cb);
    return 1;
}

HP_NOINST size_t hp_shadow_rate_info(char *out, size_t n, size_t cap)
{
    if (!g_rate.best_ns) return n;
    n = hp_info_u64(out, n, cap, "shadow", "count_ps", (uint64_t)(g_count_ns * 1000.0));
    return hp_info_u64(out, n, cap, "shadow", "rate_per_ms", g_rate.best_events * 1000000u / g_rate.best_ns);
}

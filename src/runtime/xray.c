/* xray.c — time-driven bursts over XRay sleds: a function-level bursty mode whose hooks do not
 * run at all outside bursts (programs built with `hotprof cc --hooks=xray`).
 *
 * What it does: in bursty mode with the methods type enabled, if the program carries XRay sleds
 * (compiler-rt's XRay runtime linked in; its functions are weak here, so a program without it
 * links and simply has no XRay mode), init installs xray_handler and starts one control thread.
 * The sleds stay unpatched (nops: native speed) except during a burst: the control thread sleeps
 * an interval, arms g_left = B (the methods burst), patches every sled (__xray_patch), waits until
 * the handlers have taken B function entries across all threads (the entry that takes the last
 * one wakes it through a futex) or a timeout, then unpatches (__xray_unpatch). The handler adds
 * each entry it takes to the calling thread's methods table (t->methods v1, the table the HPS
 * path of hooks.c uses for sampled calls) and to t->tot.calls.
 *
 * Interval: HPS samples B of every B+S boundary events; here the next interval is chosen so that
 * the program makes about S entries while unpatched: interval = S * (time per entry measured in
 * the last burst, first to last entry; the whole burst if it timed out), an EWMA over bursts,
 * with the methods jitter, clamped to [XR_MIN_INTERVAL_NS, XR_MAX_INTERVAL_NS] and to at least
 * 20x the time the last patch + unpatch took (patching stays under ~5% of the run). The burst's
 * entry rate is that of the patched (slower) program, so the real sampled fraction is below
 * B/(B+S), far below when the clamps bind (small B*S at a high call rate). S = 0 (methods
 * exhaustive) patches once and records every entry: an exhaustive reference from the same
 * binary. Events
 * seen while unpatched are unknown, so the profile records what was observed, not an estimate:
 * INFO mode=xray and xray.* keys (bursts, sampled entries, patched and total time, B, S).
 *
 * Invariants: only the control thread patches, unpatches and writes g_stats; g_left is the only
 * word the handlers share (atomic decrement; an entry is recorded iff it took a unit, so a burst
 * records at most B entries); the handler never allocates except through the runtime's table
 * growth (mmap), never locks, and makes one system call per burst (the futex wake of the entry
 * that takes the last unit). Exit entries are ignored (methods count calls). Limits: a fork
 * child has no control thread (its sleds stay as they were at fork; nothing more is recorded in
 * it); call pairs, back-edges and blocks are not recorded in this mode.
 *
 * Signal-safety: xray_handler runs wherever instrumented code runs, signal handlers included; it
 * touches only its thread's state, g_left and the futex word (the same limit as hooks.c: a handler
 * interrupting this thread's table growth may lose its own entries). hp_xray_info is
 * async-signal-safe (reads only). hp_xray_probe/hp_xray_start run once from init (not signal-safe:
 * pthread_create).
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* compiler-rt's XRay C API (xray/xray_interface.h, extern "C"), weak: absent without XRay. */
extern int __xray_set_handler(void (*entry)(int32_t, int)) __attribute__((weak));
extern int __xray_patch(void) __attribute__((weak));
extern int __xray_unpatch(void) __attribute__((weak));
extern uintptr_t __xray_function_address(int32_t fid) __attribute__((weak));
extern size_t __xray_max_function_id(void) __attribute__((weak));

enum { XR_ENTRY = 0, XR_LOG_ARGS_ENTRY = 3 }; /* XRayEntryType values we record */

#define XR_MIN_INTERVAL_NS 200000ull      /* 0.2 ms */
#define XR_MAX_INTERVAL_NS 200000000ull   /* 0.2 s */
#define XR_FIRST_INTERVAL_NS 1000000ull   /* 1 ms before the first burst */
#define XR_BURST_TIMEOUT_NS 20000000ull   /* a burst ends after 20 ms even if short of B entries */

int hp_g_xray; /* 1: XRay bursts drive sampling (set by hp_xray_probe before INFO is written) */

static int64_t g_left;        /* units of the current burst not yet taken (<= 0: none) */
static uint32_t g_done;       /* futex word: 1 once the burst's last unit is taken */
static uintptr_t *g_fnaddr;   /* function id -> address, ids 1..g_nfn (mmap'd at probe) */
static size_t g_nfn;
static uint32_t g_burst, g_period, g_jitter;
static uint64_t g_first_ns, g_last_ns; /* times of the burst's first and last entries */

static struct {
    uint64_t bursts, sampled, timeouts, patched_ns, start_ns, interval_ns, patched_since;
} g_stats;

static HP_NOINST uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static HP_NOINST void xray_handler(int32_t fid, int type)
{
    if (type != XR_ENTRY && type != XR_LOG_ARGS_ENTRY) return;
    hp_thread *t = hp_tls;
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) return;
    if (HP_LOAD_RLX(&g_left) <= 0 || !t->methods) return;
    int64_t left = __atomic_sub_fetch(&g_left, 1, __ATOMIC_ACQ_REL);
    if (left < 0) return;
    uintptr_t fn = fid > 0 && (size_t)fid <= g_nfn ? g_fnaddr[fid] : 0;
    if (fn) {
        HP_BUMP(&hp_tab_get(&t->methods, (uint64_t)fn, 0)->v1);
        HP_BUMP(&t->tot.calls);
    }
    if ((uint64_t)left == g_burst - 1u) HP_STORE_RLX(&g_first_ns, now_ns()); /* vDSO, no syscall */
    if (left == 0) {
        HP_STORE_RLX(&g_last_ns, now_ns());
        HP_STORE_REL(&g_done, 1);
        syscall(SYS_futex, &g_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

/* Waits until the burst's last unit is taken or deadline (CLOCK_MONOTONIC ns) passes. */
static HP_NOINST int wait_burst(uint64_t deadline)
{
    for (;;) {
        if (HP_LOAD_ACQ(&g_done)) return 1;
        uint64_t now = now_ns();
        if (now >= deadline) return 0;
        uint64_t rel = deadline - now;
        struct timespec ts = {(time_t)(rel / 1000000000ull), (long)(rel % 1000000000ull)};
        syscall(SYS_futex, &g_done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
    }
}

static HP_NOINST void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
    }
}

static HP_NOINST uint64_t clamp_interval(uint64_t ns)
{
    return ns < XR_MIN_INTERVAL_NS ? XR_MIN_INTERVAL_NS : ns > XR_MAX_INTERVAL_NS ? XR_MAX_INTERVAL_NS : ns;
}

/* S = 0 (the methods type exhaustive): patch once and record every entry from then on. */
static HP_NOINST void patch_for_good(void)
{
    HP_STORE_REL(&g_left, INT64_MAX);
    uint64_t t0 = now_ns();
    __xray_patch();
    HP_STORE_RLX(&g_stats.bursts, 1);
    HP_STORE_RLX(&g_stats.patched_ns, 0);
    HP_STORE_REL(&g_stats.patched_since, t0);
}

static HP_NOINST void *control_thread(void *arg)
{
    (void)arg;
    if (g_period == 0) {
        patch_for_good();
        return NULL;
    }
    uint64_t rng = hp_thread_seed(~1ull) | 1, interval = XR_FIRST_INTERVAL_NS;
    double smooth = 0.0; /* EWMA of the interval wanted, ns */
    for (;;) {
        uint64_t wait = interval;
        if (g_jitter) { /* uniform in [1 - j, 1 + j] of the interval */
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            double u = (double)(rng >> 11) / 9007199254740992.0; /* [0, 1) */
            wait = (uint64_t)((double)interval * (1.0 + (2.0 * u - 1.0) * g_jitter / 100.0));
        }
        sleep_ns(wait);
        if (HP_LOAD_ACQ(&hp_g_stopped)) break;
        HP_STORE_RLX(&g_done, 0);
        HP_STORE_RLX(&g_first_ns, 0);
        HP_STORE_REL(&g_left, (int64_t)g_burst);
        uint64_t t0 = now_ns();
        __xray_patch();
        uint64_t t1 = now_ns();
        int full = wait_burst(t0 + XR_BURST_TIMEOUT_NS);
        uint64_t t2 = now_ns();
        __xray_unpatch();
        int64_t left = __atomic_exchange_n(&g_left, 0, __ATOMIC_ACQ_REL);
        uint64_t t3 = now_ns(), taken = g_burst - (uint64_t)(left > 0 ? left : 0);
        /* Time per entry while patched: first to last entry of a full burst, else the whole
         * burst; the interval holds the S/B-fold of the burst's entries at that rate. */
        uint64_t first = HP_LOAD_RLX(&g_first_ns), last = HP_LOAD_RLX(&g_last_ns);
        double per = full && taken > 1 && first && last > first ? (double)(last - first) / (double)(taken - 1)
                     : taken ? (double)(t2 - t0) / (double)taken : 0.0;
        double target = per > 0.0 ? per * (double)g_period : (double)XR_MAX_INTERVAL_NS;
        smooth = smooth > 0.0 ? 0.75 * smooth + 0.25 * target : target;
        /* patching costs (t1 - t0) + (t3 - t2): keep it under ~5% of the time */
        uint64_t floor = 20 * ((t1 - t0) + (t3 - t2));
        interval = clamp_interval((uint64_t)smooth);
        if (interval < floor) interval = floor > XR_MAX_INTERVAL_NS ? XR_MAX_INTERVAL_NS : floor;
        HP_STORE_RLX(&g_stats.bursts, g_stats.bursts + 1);
        HP_STORE_RLX(&g_stats.sampled, g_stats.sampled + taken);
        HP_STORE_RLX(&g_stats.timeouts, g_stats.timeouts + !full);
        HP_STORE_RLX(&g_stats.patched_ns, g_stats.patched_ns + (t3 - t0));
        HP_STORE_RLX(&g_stats.interval_ns, interval);
    }
    return NULL;
}

static HP_NOINST void say1(const char *msg)
{
    const char *parts[] = {"hotprof: xray: ", msg};
    hp_say(parts, 2);
}

/* 1 if the program carries XRay sleds (the constructor then starts the runtime before main). */
HP_NOINST int hp_xray_present(void) { return __xray_max_function_id && __xray_max_function_id() > 0; }

/* Init, bursty mode: decides whether XRay bursts drive this run (hp_g_xray). want: $HOTPROF_XRAY
 * ("0": never, "1": required, else use when the program has sleds). 1 if XRay mode is on. */
HP_NOINST int hp_xray_probe(int quiet)
{
    const char *want = getenv("HOTPROF_XRAY");
    int required = want && strcmp(want, "1") == 0;
    if (want && strcmp(want, "0") == 0) return 0;
    if (!__xray_set_handler || !__xray_patch || !__xray_unpatch || !__xray_max_function_id ||
        !__xray_function_address || __xray_max_function_id() == 0) {
        if (required || (__xray_max_function_id && !quiet))
            say1("unavailable: the program has no XRay sleds (build it with hotprof cc --hooks=xray)");
        return 0;
    }
    uint32_t methods = HP_BURSTY_METHODS;
    if (!(atomic_load_explicit(&hp_g_bcfg.enabled_mask, memory_order_relaxed) >> methods & 1)) {
        say1("unavailable: XRay bursts sample methods; enable them (--sample methods:period=S,burst=B)");
        return 0;
    }
    g_burst = atomic_load_explicit(&hp_g_bcfg.burst[methods], memory_order_relaxed);
    g_period = atomic_load_explicit(&hp_g_bcfg.period[methods], memory_order_relaxed);
    g_jitter = atomic_load_explicit(&hp_g_bcfg.jitter_pct[methods], memory_order_relaxed);
    if (g_burst == 0) g_burst = 1;
    g_nfn = __xray_max_function_id();
    g_fnaddr = hp_map((g_nfn + 1) * sizeof *g_fnaddr);
    if (!g_fnaddr) return 0;
    for (size_t i = 1; i <= g_nfn; i++) g_fnaddr[i] = __xray_function_address((int32_t)i);
    HP_STORE_REL(&hp_g_xray, 1);
    return 1;
}

/* Init, after the output is open: installs the handler and starts the control thread. */
HP_NOINST void hp_xray_start(void)
{
    if (!HP_LOAD_ACQ(&hp_g_xray)) return;
    g_stats.start_ns = now_ns();
    __xray_set_handler(xray_handler);
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&tid, &attr, control_thread, NULL) != 0) say1("cannot start the control thread: no bursts");
    pthread_attr_destroy(&attr);
}

static HP_NOINST size_t put_kv(char *out, size_t len, size_t cap, const char *key, uint64_t v)
{
    char num[24];
    size_t k = strlen(key), n = hp_fmt_u64(num, v);
    if (len + k + n + 3 > cap) return len;
    memcpy(out + len, key, k), len += k;
    out[len++] = '=';
    memcpy(out + len, num, n), len += n;
    out[len++] = '\n';
    return len;
}

/* The xray.* INFO lines of the exposure observed so far (async-signal-safe). */
HP_NOINST size_t hp_xray_info(char *out, size_t cap)
{
    size_t n = 0;
    if (!HP_LOAD_ACQ(&hp_g_xray)) return 0;
    uint64_t now = now_ns();
    n = put_kv(out, n, cap, "xray.burst", g_burst);
    n = put_kv(out, n, cap, "xray.period", g_period);
    n = put_kv(out, n, cap, "xray.functions", g_nfn);
    n = put_kv(out, n, cap, "xray.bursts", HP_LOAD_RLX(&g_stats.bursts));
    uint64_t since = HP_LOAD_ACQ(&g_stats.patched_since), patched = HP_LOAD_RLX(&g_stats.patched_ns);
    uint64_t sampled = HP_LOAD_RLX(&g_stats.sampled);
    if (since) { /* S = 0: patched for good, every entry recorded */
        patched = now > since ? now - since : 0;
        sampled = HP_LOAD_RLX(&g_left) >= 0 ? (uint64_t)(INT64_MAX - HP_LOAD_RLX(&g_left)) : 0;
    }
    n = put_kv(out, n, cap, "xray.sampled_entries", sampled);
    n = put_kv(out, n, cap, "xray.timeouts", HP_LOAD_RLX(&g_stats.timeouts));
    n = put_kv(out, n, cap, "xray.patched_ns", patched);
    n = put_kv(out, n, cap, "xray.total_ns", g_stats.start_ns && now > g_stats.start_ns ? now - g_stats.start_ns : 0);
    n = put_kv(out, n, cap, "xray.interval_ns", HP_LOAD_RLX(&g_stats.interval_ns));
    return n;
}

/* bursts.c — patched bursts: the control thread that turns hooks on for a burst and off again,
 * shared by the two backends whose hooks cost nothing while off (ctl.h, hp_pb_backend):
 *   - xray.c:  XRay sleds, patched with __xray_patch / __xray_unpatch (`hotprof cc --hooks=xray`);
 *   - sites.c: the compiler's hook call sites (-finstrument-functions, sanitizer coverage),
 *              rewritten to 5-byte nops between bursts and back to calls for a burst.
 *
 * One burst ("window"): the control thread sets hp_g.pb.left = W units, bumps hp_g.pb.epoch, calls
 * backend->on(), and only then sets hp_g.pb.mask = the profile types recording in this window (so
 * that no hook records before every hook is on). The hooks take W units across all threads
 * (hp_pb_take): the unit that takes the last one clears the mask, turns the hooks off at once
 * (backend->off_now, where the backend has one: sites.c, dual.c) and wakes the control thread
 * through a futex. The control thread closes the window (backend->off(), which then writes
 * nothing, and the statistics) when the last unit is taken or a timeout passes; where off_now
 * exists and the off phase is measured under the current schedule, not until its next wake-up,
 * just before it opens the next window (one wake-up per window, not two: on the dual-functions
 * workloads at 1/1000 the control thread's CPU time went from 89-121 ms to 54-85 ms of 1.6-2.5 s
 * runs; patch.patched_ns counts up to off_now). Units are HPS boundary events (function entries;
 * back-edges where blocks are compiled in).
 *
 * Schedule (HPS's per-type period S and burst B, made to fit patching; core/control/window_plan.h): the
 * window budget is W = max(B, min_window) of the type with the highest frequency B/(B+S), and the
 * off phase is S' = W * S / B boundary events long, so W/(W+S') = B/(B+S). A type of lower
 * frequency records in every k-th window, k = round(f_schedule / f_type). Events are not
 * counted while the hooks are off, so the off phase is timed: interval = S' x (time per unit in
 * the last window, first to last unit; the whole window if it timed out; times the program's
 * share of that time: the hooks' own time, measured by them with the TSC plus PB_HOOK_CALL_NS per
 * call, is taken out, since the off phase runs at native speed), an EWMA over windows,
 * with the schedule type's jitter, clamped to [PB_MIN_INTERVAL_NS, PB_MAX_INTERVAL_NS] and to at
 * least 20x the control thread's CPU time for the last on + off (patching stays under ~5% of the
 * run; CPU time, so that a pass preempted on a loaded machine does not stretch the interval).
 * The hooks' time is an estimate (the call overhead is a constant), so the real sampled
 * fraction is near B/(B+S), not exact; the profile therefore records raw sampled counts and
 * the exposure (INFO "<prefix>.*"), never estimates. S = 0 for the schedule type: on once, record everything.
 * Run-time changes of the configuration (hotprof.h) recompute the schedule before the next window.
 * Subpaths (hp_pb_set_subpath, docs/osp.md): windows also carry HP_PB_BIT_SUBPATH; the subpath
 * side is told when such a window opens and closes (it weights its samples then), and with no
 * HPS type enabled the schedule is subpath-only: W = min_window units, the interval the one
 * the subpath side asks for (f blocks of native time), clamped as above.
 * Between windows the thread wakes every PB_TICK_NS to call backend->tick() (sites.c: turn off
 * call sites first seen since the last pass).
 *
 * Invariants: only the control thread calls the backend (except off_now) and writes g_stats, hp_g.pb.epoch and the
 * mask's nonzero values (the hook that takes the last unit may also turn the hooks off at once,
 * backend->off_now); hp_g.pb.left is shared by the hooks (atomic decrement: a unit is taken iff
 * the result is >= 0, so a window records at most W units); hp_g.pb.mask is nonzero only between
 * the control thread's arming and the last unit (or the window's end); g_win is the window opened
 * last, open until the control thread closes it (its W and mask as opened: a run-time change of the
 * schedule applies from the next window). A fork child has no
 * control thread (its hooks stay as they were at fork; it records nothing: hp_g.stopped).
 * hp_pb_info is async-signal-safe (reads only); hp_pb_start runs once from init.
 * State: hp_g.pb (base.h: the words the hooks share); the schedule, statistics and futex word
 * below are this file's own (the control thread's), file-static.
 */
#define _GNU_SOURCE
#include "runtime/ctl/ctl.h"
#include "runtime/thread.h"
#include "core/format/info_keys.h"
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define PB_MIN_INTERVAL_NS 200000ull      /* 0.2 ms */
#define PB_MAX_INTERVAL_NS 200000000ull   /* 0.2 s */
#define PB_FIRST_INTERVAL_NS 1000000ull   /* 1 ms before the first window */
#define PB_WINDOW_TIMEOUT_NS 20000000ull  /* a window ends after 20 ms even if short of W units */
#define PB_TICK_NS 1000000ull             /* backend->tick() period between windows */
#define PB_HOOK_CALL_NS 1.0               /* per hook call: the call itself, not in win.tsc
                                           * (bench/fastpath: an empty block hook ~1-2 ns) */
#define PB_MIN_PROGRAM_SHARE 0.125        /* the program's share of a window, at least (see above) */

static uint32_t g_done; /* futex word: 1 once the window's last unit is taken */
static const hp_pb_backend *g_backend;
static hp_pb_schedule g_sched;
static uint32_t g_min_window, g_types; /* what the schedule is computed from */
static uint64_t g_generation;          /* of hp_g.bcfg when g_sched was computed */
static uint64_t g_first_ns, g_last_ns; /* times of the window's first and last units */
static uint64_t g_off_ns;              /* when the last unit's hook had turned the hooks off */

static hp_pb_window_fn g_subpath;     /* subpaths record in every window (NULL: no subpaths) */
static void (*g_subpath_open)(uint32_t w);
static int g_subpath_only;            /* no HPS type enabled: windows timed by g_subpath alone */
static uint64_t g_mask_off_ns;        /* when the last window stopped recording */

static double g_tsc_per_ns;  /* measured at the control thread's start */
static double g_tsc_floor;   /* mean ticks between two back-to-back rdtsc */

static struct {
    uint64_t windows, sampled, timeouts, patched_ns, start_ns, interval_ns, patched_since;
    uint64_t hook_share_ppm; /* the hooks' share of the last window's time, parts per million */
    uint64_t open_window;    /* W of the window armed now (its units count as sampled), 0 if none */
    uint64_t seq;            /* odd while a window's units move from open_window into sampled */
    uint64_t wakeups;        /* the control thread's returns from a sleep or a futex wait */
    uint64_t control_ns;     /* the control thread's CPU time, as of its last wake-up */
} g_stats;

/* Hook counts and timed TSC ticks summed over threads, and the threads that ran a hook in window
 * w (t->win.epoch == w: set at a thread's first hook of the window). XRay handlers count nothing. */
typedef struct hook_time { uint64_t hooks, heavy, timed, tsc, threads; } hook_time;

/* The window open now (the control thread's): its number, times and hook counts at its start. */
static struct {
    uint64_t w, window, t0, t1; /* window: its W (the schedule may change before it closes) */
    uint64_t on_cpu;            /* the control thread's CPU time for switching the hooks on */
    uint32_t mask;
    hook_time h0;
    int open;
} g_win;

static HP_NOINST hook_time hook_time_now(uint32_t w)
{
    hook_time h = {0, 0, 0, 0, 0};
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        h.hooks += HP_LOAD_RLX(&t->win.hooks);
        h.heavy += HP_LOAD_RLX(&t->win.heavy);
        h.timed += HP_LOAD_RLX(&t->win.timed);
        h.tsc += HP_LOAD_RLX(&t->win.tsc);
        h.threads += HP_LOAD_RLX(&t->win.epoch) == w;
    }
    return h;
}

/* The program's share of a window's time: 1 - hook time / (window time x threads that ran),
 * kept >= PB_MIN_PROGRAM_SHARE = 1/8: the estimate runs high (a timed hook is slower than the
 * others: rdtsc disturbs it), and a window with every hook recording is not more than ~8x slower
 * than the program (exhaustive block hooks cost 7.4x geomean, bench/results/overhead.csv).
 * Hook time = call/block hooks x their mean timed cost (rdtsc's own cost taken out) + every hook
 * call x PB_HOOK_CALL_NS; the mean is over all windows so far (the timed hooks are few). */
static HP_NOINST double program_share(hook_time before, hook_time after, double window_ns)
{
    static uint64_t all_timed, all_tsc;
    all_timed += after.timed - before.timed;
    all_tsc += after.tsc - before.tsc;
    if (g_tsc_per_ns <= 0.0 || window_ns <= 0.0 || after.hooks <= before.hooks || !all_timed) return 1.0;
    double mean_ns = ((double)all_tsc / (double)all_timed - g_tsc_floor) / g_tsc_per_ns;
    if (mean_ns < 0.0) mean_ns = 0.0;
    double hooks_ns = (double)(after.heavy - before.heavy) * mean_ns + (double)(after.hooks - before.hooks) * PB_HOOK_CALL_NS;
    double share = 1.0 - hooks_ns / (window_ns * (double)(after.threads ? after.threads : 1));
    return share < PB_MIN_PROGRAM_SHARE ? PB_MIN_PROGRAM_SHARE : share > 1.0 ? 1.0 : share;
}

/* TSC ticks per ns, measured over ~2 ms (0 if the TSC does not advance), and g_tsc_floor: the
 * mean difference of two back-to-back rdtsc (what a timed hook's interval holds besides it). */
static HP_NOINST double measure_tsc_rate(void)
{
    uint64_t sum = 0; /* the mean, not the minimum: a virtualized TSC can show 1 tick once */
    for (int i = 0; i < 1024; i++) {
        uint64_t a = __rdtsc(), b = __rdtsc();
        sum += b - a;
    }
    g_tsc_floor = (double)sum / 1024.0;
    uint64_t n0 = hp_now_ns(), c0 = __rdtsc();
    struct timespec ts = {0, 2000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
    }
    uint64_t n1 = hp_now_ns(), c1 = __rdtsc();
    return n1 > n0 && c1 > c0 ? (double)(c1 - c0) / (double)(n1 - n0) : 0.0;
}

/* A hook's boundary event inside a window: 1 if it took a unit (record it), else 0. */
HP_NOINST int hp_pb_take(void)
{
    if (HP_LOAD_RLX(&hp_g.pb.left) <= 0) return 0;
    int64_t left = __atomic_sub_fetch(&hp_g.pb.left, 1, __ATOMIC_ACQ_REL);
    if (left < 0) return 0;
    if ((uint64_t)left == g_win.window - 1u) HP_STORE_RLX(&g_first_ns, hp_now_ns()); /* vDSO */
    if (left == 0) {
        HP_STORE_RLX(&g_last_ns, hp_now_ns());
        HP_STORE_REL(&hp_g.pb.mask, 0);
        if (g_backend->off_now) {
            g_backend->off_now(); /* end the window now, in this thread */
            HP_STORE_RLX(&g_off_ns, hp_now_ns());
        }
        HP_STORE_REL(&g_done, 1);
        syscall(SYS_futex, &g_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    return 1;
}

/* Sleeps until deadline (CLOCK_MONOTONIC ns), ticking the backend every PB_TICK_NS; returns early
 * when the sampling configuration changes (a run-time change applies within ~1 ms). A sleep that
 * ends is one wake-up (patch.wakeups; the ticks within it are not counted). */
static HP_NOINST void sleep_until(uint64_t deadline)
{
    for (int slept = 0;; slept = 1) {
        uint64_t now = hp_now_ns();
        if (now >= deadline ||
            (slept && atomic_load_explicit(&hp_g.bcfg.generation, memory_order_acquire) != g_generation)) {
            HP_STORE_RLX(&g_stats.wakeups, g_stats.wakeups + (uint64_t)slept);
            return;
        }
        uint64_t ns = deadline - now < PB_TICK_NS ? deadline - now : PB_TICK_NS;
        struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
        }
        if (g_backend->tick) g_backend->tick();
    }
}

/* Waits until the window's last unit is taken or deadline passes; 1 if it was taken. */
static HP_NOINST int wait_window(uint64_t deadline)
{
    for (;;) {
        if (HP_LOAD_ACQ(&g_done)) return 1;
        uint64_t now = hp_now_ns();
        if (now >= deadline) return 0;
        uint64_t rel = deadline - now;
        struct timespec ts = {(time_t)(rel / 1000000000ull), (long)(rel % 1000000000ull)};
        syscall(SYS_futex, &g_done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        HP_STORE_RLX(&g_stats.wakeups, g_stats.wakeups + 1);
    }
}

static HP_NOINST uint64_t clamp_interval(uint64_t ns)
{
    return ns < PB_MIN_INTERVAL_NS ? PB_MIN_INTERVAL_NS : ns > PB_MAX_INTERVAL_NS ? PB_MAX_INTERVAL_NS : ns;
}

static HP_NOINST uint32_t window_mask(uint64_t w)
{
    return hp_window_plan_mask(&g_sched, w) | (g_subpath ? HP_PB_BIT_SUBPATH : 0u);
}

HP_NOINST void hp_pb_set_subpath(void (*open)(uint32_t w), hp_pb_window_fn end)
{
    g_subpath_open = open;
    g_subpath = end;
}

/* Subpaths after window w (mask: its types): their samples weighted, and the next interval
 * (subpath-only schedules) from the one they want; else the HPS target unchanged. */
static HP_NOINST double subpath_window_end(uint32_t w, uint32_t mask, uint64_t on_at, uint64_t off_at, double share,
                                           double target)
{
    if (!(mask & HP_PB_BIT_SUBPATH)) return target;
    uint64_t prev = g_mask_off_ns ? g_mask_off_ns : g_stats.start_ns;
    uint64_t want = g_subpath(w, on_at > prev ? on_at - prev : 0, off_at > on_at ? off_at - on_at : 0, share,
                               g_tsc_per_ns);
    g_mask_off_ns = off_at;
    if (!g_subpath_only) return target;
    return want ? (double)want : (double)PB_MIN_INTERVAL_NS;
}

/* S' = 0: on once and record every event from then on. */
static HP_NOINST void on_for_good(void)
{
    HP_STORE_REL(&hp_g.pb.left, INT64_MAX);
    HP_STORE_REL(&hp_g.pb.epoch, 1);
    uint64_t t0 = hp_now_ns();
    g_backend->on();
    HP_STORE_REL(&hp_g.pb.mask, window_mask(0));
    HP_STORE_RLX(&g_stats.windows, 1);
    HP_STORE_REL(&g_stats.patched_since, t0);
}

static HP_NOINST uint64_t jittered(uint64_t interval, uint64_t *rng)
{
    if (!g_sched.jitter_pct) return interval;
    *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
    double u = (double)(*rng >> 11) / 9007199254740992.0; /* [0, 1) */
    return (uint64_t)((double)interval * (1.0 + (2.0 * u - 1.0) * g_sched.jitter_pct / 100.0));
}

/* The control thread's CPU time (ns; 0 if unreadable). Patching is timed with it, not the wall
 * clock: a pass the scheduler preempted (a loaded machine) took milliseconds of wall time for
 * microseconds of work, and 20x that as the interval's floor left a short run with 3 windows. */
static HP_NOINST uint64_t control_cpu_ns(void)
{
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) != 0) return 0;
    return (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
}

/* The control thread's CPU time since `start` (0 if a reading failed). */
static HP_NOINST uint64_t cpu_since(uint64_t start)
{
    uint64_t now = control_cpu_ns();
    return start && now > start ? now - start : 0;
}

/* Opens window w: arm, on, then the mask. */
static HP_NOINST void open_window(uint64_t w)
{
    HP_STORE_RLX(&g_done, 0);
    HP_STORE_RLX(&g_first_ns, 0);
    HP_STORE_RLX(&g_off_ns, 0);
    g_win.w = w;
    g_win.window = g_sched.window;
    g_win.mask = window_mask(w);
    HP_STORE_REL(&hp_g.pb.left, (int64_t)g_win.window);
    HP_STORE_REL(&g_stats.open_window, g_win.window); /* after left: a reader sees this window's */
    HP_STORE_RLX(&g_stats.windows, g_stats.windows + 1); /* counted open: its units are counted too */
    HP_STORE_REL(&hp_g.pb.epoch, (uint32_t)w);
    g_win.h0 = hook_time_now((uint32_t)w);
    g_win.t0 = hp_now_ns();
    uint64_t c0 = control_cpu_ns();
    g_backend->on();
    /* Record only once every hook is on: sites switched on early in the pass would otherwise
     * take the window's units before the others (a bias measured on interp's calls). */
    if (g_subpath_open && (g_win.mask & HP_PB_BIT_SUBPATH)) g_subpath_open((uint32_t)w);
    HP_STORE_REL(&hp_g.pb.mask, g_win.mask);
    g_win.t1 = hp_now_ns();
    g_win.on_cpu = cpu_since(c0);
    g_win.open = 1;
}

/* Closes the open window: waits for its last unit (or the timeout), off, statistics. Returns the
 * next interval given the smoothed target; *end: when its hooks went off. */
static HP_NOINST uint64_t close_window(double *smooth, uint64_t *end)
{
    uint64_t w = g_win.w, t0 = g_win.t0, t1 = g_win.t1;
    int full = wait_window(t0 + PB_WINDOW_TIMEOUT_NS);
    HP_STORE_REL(&hp_g.pb.mask, 0);
    uint64_t t2 = hp_now_ns(), mask_off = full && HP_LOAD_RLX(&g_last_ns) > t1 ? HP_LOAD_RLX(&g_last_ns) : t2;
    uint64_t c2 = control_cpu_ns();
    g_backend->off();
    uint64_t pass_cpu = g_win.on_cpu + cpu_since(c2);
    HP_STORE_RLX(&g_stats.seq, g_stats.seq + 1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    int64_t left = __atomic_exchange_n(&hp_g.pb.left, 0, __ATOMIC_ACQ_REL);
    uint64_t t3 = hp_now_ns(), taken = g_win.window - (uint64_t)(left > 0 ? left : 0);
    uint64_t first = HP_LOAD_RLX(&g_first_ns), last = HP_LOAD_RLX(&g_last_ns);
    int timed = full && taken > 1 && first && last > first;
    double span = timed ? (double)(last - first) : (double)(t2 - t0);
    double per = taken > (uint64_t)timed ? span / (double)(taken - (uint64_t)timed) : 0.0;
    double share = program_share(g_win.h0, hook_time_now((uint32_t)w), span);
    per *= share; /* the program's own time per unit: the off phase runs without hooks */
    HP_STORE_RLX(&g_stats.hook_share_ppm, (uint64_t)((1.0 - share) * 1e6));
    double target = per > 0.0 ? per * (double)g_sched.off_units : (double)PB_MAX_INTERVAL_NS;
    target = subpath_window_end((uint32_t)w, g_win.mask, t1, mask_off, share, target);
    *smooth = *smooth > 0.0 ? 0.75 * *smooth + 0.25 * target : target;
    uint64_t floor = 20 * pass_cpu, interval = clamp_interval((uint64_t)*smooth);
    if (interval < floor) interval = floor > PB_MAX_INTERVAL_NS ? PB_MAX_INTERVAL_NS : floor;
    uint64_t off_now = HP_LOAD_RLX(&g_off_ns); /* the hooks went off before the control thread woke */
    *end = full && off_now > t0 ? off_now : t3;
    HP_STORE_RLX(&g_stats.sampled, g_stats.sampled + taken);
    HP_STORE_RLX(&g_stats.open_window, 0);
    HP_STORE_REL(&g_stats.seq, g_stats.seq + 1);
    HP_STORE_RLX(&g_stats.timeouts, g_stats.timeouts + !full);
    HP_STORE_RLX(&g_stats.patched_ns, g_stats.patched_ns + (*end - t0));
    HP_STORE_RLX(&g_stats.interval_ns, interval);
    g_win.open = 0;
    return interval;
}

/* Run-time changes (hotprof_sample_set/enable): a new configuration generation recomputes the
 * schedule before the next window. 0 if no type is enabled now. */
static HP_NOINST int refresh_schedule(double *smooth)
{
    uint64_t gen = atomic_load_explicit(&hp_g.bcfg.generation, memory_order_acquire);
    if (gen == g_generation || (gen & 1)) return g_sched.window != 0;
    hp_pb_schedule s;
    int ok = hp_pb_schedule_from_config(&s, g_min_window, g_types) == 0;
    if (ok && (s.window != g_sched.window || s.off_units != g_sched.off_units)) *smooth = 0.0;
    if (!ok) memset(&s, 0, sizeof s);
    g_sched = s;
    g_generation = gen;
    return ok;
}

/* The window the last unit's hook closed (its hooks are normally off by now): its statistics;
 * if it was still open at this wake-up, a whole off phase after its end. */
static HP_NOINST void close_self_closed(double *smooth, uint64_t *rng, uint64_t *interval, uint64_t *length)
{
    int late = !HP_LOAD_ACQ(&g_done);
    uint64_t end;
    *interval = close_window(smooth, &end);
    *length = end - g_win.t0;
    if (late) sleep_until(end + jittered(*interval, rng));
}

/* Sleep, window, sleep... Where the backend can close a window from the hook that takes its last
 * unit (off_now), the thread wakes once per window: it closes the last window and opens the
 * next at once, the next wake-up one off phase plus the last window's length later (the off
 * phase measured under this schedule: after a change, the window is waited for, as without
 * off_now). A window with subpaths is waited for too: its close reads each thread's CPU clock
 * (subpath_win.c), and the off phase its samples stand for runs from that reading. */
static HP_NOINST void *control_thread(void *arg)
{
    (void)arg;
    if (g_sched.off_units == 0) {
        on_for_good();
        return NULL;
    }
    g_tsc_per_ns = measure_tsc_rate();
    uint64_t rng = hp_thread_seed(~1ull) | 1, interval = PB_FIRST_INTERVAL_NS, length = 0, end = 0;
    uint64_t next = hp_now_ns() + jittered(interval, &rng);
    double smooth = 0.0;
    for (uint64_t w = 1;; w++) {
        sleep_until(next);
        uint64_t cpu = control_cpu_ns();
        if (cpu) HP_STORE_RLX(&g_stats.control_ns, cpu);
        int scheduled = refresh_schedule(&smooth); /* first: the next off phase is the new one's */
        if (g_win.open) close_self_closed(&smooth, &rng, &interval, &length);
        if (HP_LOAD_ACQ(&hp_g.stopped)) break;
        if (!scheduled) { /* every type disabled: no window */
            next = hp_now_ns() + jittered(interval, &rng);
            continue;
        }
        int measured = smooth > 0.0; /* an interval measured under this schedule (0 after a change) */
        open_window(w);
        if (g_backend->off_now && measured && !(g_win.mask & HP_PB_BIT_SUBPATH)) {
            next = g_win.t0 + length + jittered(interval, &rng);
            continue;
        }
        interval = close_window(&smooth, &end);
        length = end - g_win.t0;
        next = hp_now_ns() + jittered(interval, &rng);
    }
    return NULL;
}

/* The schedule of the enabled types among `types` in the shared bursty configuration
 * (core/control/window_plan.h; the configuration read with hp_bursty_config_get, control code only). */
HP_NOINST int hp_pb_schedule_from_config(hp_pb_schedule *s, uint32_t min_window, uint32_t types)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) hp_bursty_config_get(&hp_g.bcfg, (enum hp_bursty_type)t, &p[t]);
    int rc = hp_window_plan_make(p, types, min_window, s);
    g_subpath_only = rc != 0 && g_subpath;
    if (!g_subpath_only) return rc;
    s->window = min_window ? min_window : 1; /* subpaths alone: W units, S' unused but not 0 */
    s->off_units = 1;
    return 0;
}

/* Init, after the output is open: starts the control thread over backend b, scheduling the
 * enabled types among `types` with windows of at least min_window units. */
HP_NOINST int hp_pb_start(const hp_pb_backend *b, uint32_t min_window, uint32_t types)
{
    g_backend = b;
    g_min_window = min_window;
    g_types = types;
    g_generation = atomic_load_explicit(&hp_g.bcfg.generation, memory_order_acquire);
    if (hp_pb_schedule_from_config(&g_sched, min_window, types) != 0) return -1;
    g_stats.start_ns = hp_now_ns();
    int rc = hp_spawn_detached(control_thread, NULL);
    if (rc == 0) return 0;
    const char *parts[] = {"hotprof: ", b->prefix, ": cannot start the control thread: no bursts"};
    hp_say(parts, 3);
    return -1;
}

/* Units recorded so far: the closed windows' and those taken in the window open now (a profile
 * written while a window is open, at exit say, holds that window's events too). Read under
 * g_stats.seq, retried a bounded number of times (async-signal-safe: loads and sched_yield). */
static HP_NOINST uint64_t sampled_so_far(void)
{
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t s0 = HP_LOAD_ACQ(&g_stats.seq);
        uint64_t sampled = HP_LOAD_RLX(&g_stats.sampled), open = HP_LOAD_ACQ(&g_stats.open_window);
        int64_t left = HP_LOAD_RLX(&hp_g.pb.left);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!(s0 & 1) && HP_LOAD_RLX(&g_stats.seq) == s0) {
            uint64_t unused = left <= 0 ? 0 : (uint64_t)left > open ? open : (uint64_t)left;
            return sampled + (open - unused);
        }
        sched_yield();
    }
    return HP_LOAD_RLX(&g_stats.sampled);
}

/* The "<prefix>.*" INFO lines of the exposure observed so far (async-signal-safe). */
HP_NOINST size_t hp_pb_info(char *out, size_t cap)
{
    if (!g_backend) return 0;
    const char *px = g_backend->prefix;
    size_t n = 0;
    uint64_t now = hp_now_ns();
    n = hp_info_u64(out, n, cap, px, "burst", g_sched.burst);
    n = hp_info_u64(out, n, cap, px, "period", g_sched.period);
    n = hp_info_u64(out, n, cap, px, "window", g_sched.window);
    n = hp_info_u64(out, n, cap, px, "bursts", HP_LOAD_RLX(&g_stats.windows));
    uint64_t since = HP_LOAD_ACQ(&g_stats.patched_since), patched = HP_LOAD_RLX(&g_stats.patched_ns);
    uint64_t sampled = sampled_so_far();
    if (since) { /* on for good: every unit recorded */
        patched = now > since ? now - since : 0;
        int64_t left = HP_LOAD_RLX(&hp_g.pb.left);
        sampled = left >= 0 ? (uint64_t)(INT64_MAX - left) : 0;
    }
    n = hp_info_u64(out, n, cap, px, "sampled_entries", sampled);
    n = hp_info_u64(out, n, cap, px, "timeouts", HP_LOAD_RLX(&g_stats.timeouts));
    n = hp_info_u64(out, n, cap, px, "patched_ns", patched);
    n = hp_info_u64(out, n, cap, px, "total_ns", g_stats.start_ns && now > g_stats.start_ns ? now - g_stats.start_ns : 0);
    n = hp_info_u64(out, n, cap, px, "interval_ns", HP_LOAD_RLX(&g_stats.interval_ns));
    n = hp_info_u64(out, n, cap, px, "hook_share_ppm", HP_LOAD_RLX(&g_stats.hook_share_ppm));
    n = hp_info_u64(out, n, cap, px, HP_INFO_PB_WAKEUPS, HP_LOAD_RLX(&g_stats.wakeups));
    n = hp_info_u64(out, n, cap, px, HP_INFO_PB_CONTROL_NS, HP_LOAD_RLX(&g_stats.control_ns));
    if (g_backend->info) n += g_backend->info(out + n, cap - n);
    return n;
}

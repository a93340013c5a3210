/* shadow.c — the monitor of shadow profiling (docs/shadow.md), in the profiled process:
 *   - probe (init): the counters page (MAP_SHARED, before any clone), the filter's cookie and BPF
 *     (shadow_filter.c), the call sites off for good (sites.c: patch mode without windows), the
 *     signal (moved to the next free real-time signal if the program already handles it), the
 *     directory of the shadows' profiles.
 *   - start (init, output open): the handler, a CPU-time timer of the process
 *     (timer_create(CLOCK_PROCESS_CPUTIME_ID), every PARENT_TICK_NS of CPU; the program's own
 *     timers are separate timers), and the monitor thread.
 *   - the tick (signal handler, in whatever program thread the kernel picked: since Linux 6.3 the
 *     one using CPU; never a shadow of a thread that waited in a system call, e.g. main in
 *     pthread_join when the workers block signals: INFO shadow.skipped_idle): the average of the
 *     live shadows over every tick since the start (the shadows alive per unit of the parent's CPU
 *     time: a shadow of 0.5 s at load 0.0625 is followed by the next after ~8 s of the parent's CPU);
 *     below `load` and with fewer than
 *     ceil(load) alive, clone() with exit signal 0 — a process, not a thread, that is NOBODY's
 *     SIGCHLD and that wait(NULL) / waitpid(-1) never see (only __WCLONE / __WALL waits do) — and
 *     the child becomes the shadow (shadow_child.c) of the interrupted thread. No lock, no
 *     malloc, no stdio: a slot claimed with a compare-and-swap, raw system calls.
 *   - the monitor thread (all signals blocked): every 1 ms (10 ms after the first second) turns
 *     newly found call sites off, reaps shadows with waitpid(pid, WNOHANG | __WCLONE), kills a
 *     shadow alive longer than its deadline (10x its expected time, at least 1 s: a shadow that
 *     blocked on a lock another thread held at the clone, or never gets the CPU), and checks the
 *     handler is still ours (a program that took the signal over: the timer stops, one warning,
 *     no more shadows; INFO shadow.signal_lost=1).
 *   - exit (the destructor): no more shadows; live ones get up to EXIT_WAIT_NS to finish, then
 *     are killed; all reaped, so INFO counts them. A shadow that died by a signal (killed) has
 *     its profile file removed: it holds no complete group.
 * State: file-static (configuration, slots, counters, the timer); the counters shadows add are in
 * the shared page (shadow_int.h).
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include "runtime/ctl/ctl.h"
#include "core/base/hash.h"
#include "core/format/info_keys.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SLOTS 16
#define PARENT_TICK_NS 5000000L          /* 5 ms of process CPU time between looks */
#define EXIT_WAIT_NS 2000000000ull       /* at exit, live shadows get 2 s to finish */
#define MIN_DEADLINE_NS 1000000000ull    /* a shadow may live 1 s at least ... */
#define DEADLINE_FACTOR 10u              /* ... or 10x its expected time */
#define DEFAULT_EVENT_NS 50u             /* expected ns per event before a shadow measured it */

static hp_shadow_cfg g_cfg;
static struct { int pid; uint64_t start_ns, n; int deadline_killed; } g_slots[MAX_SLOTS]; /* pid 0: free, -1: claimed */
static char g_dir[4300];        /* the shadows' profiles: <dir>/shadow.<n> */
static uint64_t g_started, g_finished, g_killed, g_killed_deadline, g_fork_failed;
static uint64_t g_skipped_idle; /* due ticks that fell on a thread waiting in a system call: no shadow */
static uint64_t g_ticks, g_live_sum; /* ticks so far, and the live shadows summed over them */
static int64_t g_load;          /* load x 1024 */
static int g_cap;               /* ceil(load): shadows alive at most */
static int g_stop, g_lost, g_quiet;
static uint64_t g_minflt_before;
static timer_t g_timer;
static int g_timer_ok;

const hp_shadow_cfg *hp_shadow_cfg_get(void) { return &g_cfg; }

static HP_NOINST int fail(char *err, size_t errlen, const char *msg)
{
    size_t n = strlen(msg) < errlen ? strlen(msg) : errlen - 1;
    memcpy(err, msg, n), err[n] = 0;
    return -1;
}

static HP_NOINST uint64_t minflt_now(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_minflt : 0;
}

/* ---------------------------------------------------------------- the tick (signal handler) */

static HP_NOINST int live_shadows(void)
{
    int n = 0;
    for (int i = 0; i < MAX_SLOTS; i++) n += HP_LOAD_RLX(&g_slots[i].pid) != 0;
    return n;
}

static HP_NOINST int claim_slot(void)
{
    for (int i = 0; i < MAX_SLOTS; i++) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&g_slots[i].pid, &zero, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return i;
    }
    return -1;
}

static HP_NOINST void fork_shadow(void)
{
    int slot = claim_slot();
    if (slot < 0) return;
    uint64_t n = __atomic_add_fetch(&g_started, 1, __ATOMIC_ACQ_REL);
    if (n == 1) g_minflt_before = minflt_now();
    int parent = (int)hp_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0);
    g_slots[slot].start_ns = hp_now_ns();
    g_slots[slot].n = n;
    g_slots[slot].deadline_killed = 0;
    long r = hp_sys6(SYS_clone, 0, 0, 0, 0, 0, 0); /* flags 0: a process, exit signal 0, this stack copied */
    if (r == 0) {
        hp_shadow_child_begin(n, parent);
        return; /* back to the program, in the shadow */
    }
    if (r < 0) {
        __atomic_fetch_sub(&g_started, 1, __ATOMIC_ACQ_REL);
        __atomic_fetch_add(&g_fork_failed, 1, __ATOMIC_RELAXED);
        HP_STORE_REL(&g_slots[slot].pid, 0);
        return;
    }
    HP_STORE_REL(&g_slots[slot].pid, (int)r);
}

/* 1 if the interrupted thread was waiting in a system call (pthread_join's futex, nanosleep,
 * poll...): with SA_RESTART the kernel rewound RIP to the `syscall` instruction (0f 05); without
 * a restart RIP is just past it and RAX is -EINTR. A shadow of such a thread would record nothing
 * and wait for a wake-up no thread is there to give (the deadline kills it; the parent's exit
 * waits up to EXIT_WAIT_NS for it). A running thread stopped right at a `syscall` is skipped too:
 * harmless, the next tick decides again. */
static HP_NOINST int interrupted_in_syscall(const ucontext_t *uc)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    const uint8_t *ip = (const uint8_t *)(uintptr_t)g[REG_RIP];
    if (ip[0] == 0x0f && ip[1] == 0x05) return 1;
    return ((uintptr_t)ip & 4095) >= 2 && ip[-2] == 0x0f && ip[-1] == 0x05 && g[REG_RAX] == -EINTR;
}

static HP_NOINST void parent_tick(const ucontext_t *uc)
{
    if (HP_LOAD_ACQ(&g_stop)) return;
    int live = live_shadows();
    uint64_t ticks = HP_LOAD_RLX(&g_ticks) + 1, sum = HP_LOAD_RLX(&g_live_sum) + (uint64_t)live;
    HP_STORE_RLX(&g_ticks, ticks);
    HP_STORE_RLX(&g_live_sum, sum);
    int64_t avg = (int64_t)(sum * 1024 / ticks); /* live shadows x 1024, averaged over the run */
    if (avg < g_load && live < g_cap) {
        if (interrupted_in_syscall(uc)) __atomic_fetch_add(&g_skipped_idle, 1, __ATOMIC_RELAXED);
        else fork_shadow();
    }
}

static HP_NOINST void on_tick(int signo, siginfo_t *si, void *uc)
{
    int saved = errno;
    if (si->si_code != SI_TIMER) {
        if (hp_shadow_in_child()) hp_shadow_child_parent_check(); /* PDEATHSIG: a thread of the parent exited */
    } else {
        if (hp_shadow_in_child()) {
            if (si->si_value.sival_int == HP_SHADOW_TICK_CHILD) hp_shadow_child_tick();
        } else if (si->si_value.sival_int == HP_SHADOW_TICK_PARENT) {
            parent_tick(uc);
        }
    }
    errno = saved;
}

/* ---------------------------------------------------------------- the monitor thread */

static HP_NOINST uint64_t deadline_ns(void)
{
    hp_shadow_shared *s = g_cfg.shared;
    uint64_t ev = HP_LOAD_RLX(&s->events), cpu = HP_LOAD_RLX(&s->cpu_ns);
    double per = ev ? (double)cpu / (double)ev : DEFAULT_EVENT_NS;
    double d = per * (double)g_cfg.spec.sample * DEADLINE_FACTOR;
    return d < MIN_DEADLINE_NS ? MIN_DEADLINE_NS : d > 1e13 ? (uint64_t)1e13 : (uint64_t)d;
}

/* A shadow that died by a signal left at most a header and an incomplete group: its file goes. */
static HP_NOINST void remove_profile(uint64_t n)
{
    char path[4400], num[24];
    size_t len = strlen(g_dir);
    memcpy(path, g_dir, len);
    memcpy(path + len, "/shadow.", 8);
    size_t k = hp_fmt_u64(num, n);
    memcpy(path + len + 8, num, k);
    path[len + 8 + k] = 0;
    unlink(path);
}

/* Reaps what has ended; kills what outlived limit_ns (0: no limit). Returns the shadows alive. */
static HP_NOINST int reap(uint64_t limit_ns)
{
    int alive = 0;
    uint64_t now = hp_now_ns();
    for (int i = 0; i < MAX_SLOTS; i++) {
        int pid = HP_LOAD_ACQ(&g_slots[i].pid), st;
        if (pid <= 0) continue;
        if (waitpid(pid, &st, WNOHANG | __WCLONE) == pid) {
            if (WIFEXITED(st)) __atomic_fetch_add(&g_finished, 1, __ATOMIC_RELAXED);
            else __atomic_fetch_add(&g_killed, 1, __ATOMIC_RELAXED);
            if (!WIFEXITED(st) && g_slots[i].deadline_killed) __atomic_fetch_add(&g_killed_deadline, 1, __ATOMIC_RELAXED);
            if (!WIFEXITED(st)) remove_profile(g_slots[i].n);
            HP_STORE_REL(&g_slots[i].pid, 0);
            continue;
        }
        alive++;
        if (limit_ns && now - g_slots[i].start_ns > limit_ns && !g_slots[i].deadline_killed) {
            g_slots[i].deadline_killed = 1;
            kill(pid, SIGKILL);
        }
    }
    return alive;
}

/* The program replaced our handler: stop the timer (its signals would reach the program's
 * handler), say so once. */
static HP_NOINST void check_signal(void)
{
    struct sigaction cur;
    if (g_lost || sigaction(g_cfg.spec.signal, NULL, &cur) != 0 || cur.sa_sigaction == on_tick) return;
    HP_STORE_REL(&g_stop, 1);
    g_lost = 1;
    if (g_timer_ok) timer_delete(g_timer), g_timer_ok = 0;
    if (!g_quiet) {
        const char *parts[] = {"hotprof: shadow: the program installed its own handler for the monitor's signal; "
                               "no more shadows (use --shadow-signal)"};
        hp_say(parts, 1);
    }
}

static HP_NOINST void *monitor_thread(void *arg)
{
    (void)arg;
    for (uint64_t pass = 0; !HP_LOAD_ACQ(&g_stop) || live_shadows(); pass++) {
        struct timespec ts = {0, pass < 1000 ? 1000000L : 10000000L};
        nanosleep(&ts, NULL);
        hp_sites_tick_off();
        reap(deadline_ns());
        check_signal();
    }
    return NULL;
}

/* ---------------------------------------------------------------- init and exit */

/* The signal: spec's, or the next real-time one the program does not handle. -1 if none. */
static HP_NOINST int free_signal(int want)
{
    for (int s = want; s <= SIGRTMAX; s = s == want ? SIGRTMIN : s + 1) {
        struct sigaction cur;
        if (sigaction(s, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL) return s;
        if (s != want && s == SIGRTMAX) break;
    }
    return -1;
}

HP_NOINST int hp_shadow_probe(const hp_shadow_spec *spec, const char *output_dir, const hp_shadow_ops *ops,
                              uint64_t seed, int quiet, char *err, size_t errlen)
{
    g_cfg.spec = *spec;
    g_cfg.ops = *ops;
    if (strlen(output_dir) >= sizeof g_dir) return fail(err, errlen, "shadow mode: the output path is too long");
    memcpy(g_dir, output_dir, strlen(output_dir) + 1);
    g_quiet = quiet;
    g_cfg.cookie = ((hp_splitmix64_mix(seed ^ 0x5ead0b5ull) & 0x00003ffffffff000ull) | 0x100000000000ull);
    g_load = (int64_t)(spec->load * 1024.0);
    g_cap = (int)spec->load + (spec->load > (int)spec->load);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return fail(err, errlen, "shadow mode: cannot map the shadows' counters page");
    g_cfg.shared = page;
    if (hp_shadow_filter_build(g_cfg.cookie, err, errlen)) return -1;
    int sig = free_signal(spec->signal);
    if (sig < 0) return fail(err, errlen, "shadow mode: every real-time signal is taken by the program");
    g_cfg.spec.signal = sig;
    if (mkdir(output_dir, 0755) != 0 && errno != EEXIST)
        return fail(err, errlen, "shadow mode: cannot create the shadows' directory");
    if (!hp_sites_probe_off()) return fail(err, errlen, "shadow mode: cannot map the call-site tables");
    return 0;
}

HP_NOINST void hp_shadow_start(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSYS); /* a shadow's tick ends it, and its trapped calls need SIGSYS open */
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    if (sigaction(g_cfg.spec.signal, &sa, NULL) != 0) return;
    hp_shadow_rate_prepare(); /* count mode's trampolines, for the shadows' calibration */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the monitor thread inherits: it never takes the signal */
    int rc = hp_spawn_detached(monitor_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = g_cfg.spec.signal;
    ev.sigev_value.sival_int = HP_SHADOW_TICK_PARENT;
    if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &g_timer) != 0) return;
    struct itimerspec its = {{0, PARENT_TICK_NS}, {0, PARENT_TICK_NS}};
    g_timer_ok = timer_settime(g_timer, 0, &its, NULL) == 0;
}

HP_NOINST void hp_shadow_exit(void)
{
    if (hp_shadow_in_child()) hp_shadow_child_end(HP_END_EXIT);
    HP_STORE_REL(&g_stop, 1);
    if (g_cfg.shared) HP_STORE_REL(&g_cfg.shared->parent_exiting, 1); /* live shadows write what they have and end */
    if (g_timer_ok) timer_delete(g_timer), g_timer_ok = 0;
    uint64_t until = hp_now_ns() + EXIT_WAIT_NS;
    while (reap(0) && hp_now_ns() < until) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < MAX_SLOTS; i++) {
        int pid = HP_LOAD_ACQ(&g_slots[i].pid);
        if (pid > 0) g_slots[i].deadline_killed = 1, kill(pid, SIGKILL);
    }
    for (int tries = 0; reap(0) && tries < 1000; tries++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* ---------------------------------------------------------------- INFO */

static HP_NOINST uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Estimated share of the run's events the shadows recorded. With calibrated shadows (two-version
 * code, shadow_rate.c): their events over the run's, estimated as the parent's CPU time x the mean
 * event density the shadows measured (events per native ns: shadows start evenly over the
 * parent's CPU time, so their plain mean samples the run's density; weighting each by its native
 * time would over-weight sparse phases, where a shadow's slice covers more native time). Else the
 * native time the shadows stand for over the parent's CPU time. */
static HP_NOINST uint64_t coverage_ppm(const hp_shadow_shared *s, uint64_t parent)
{
    uint64_t dn = HP_LOAD_RLX(&s->density_n), ds = HP_LOAD_RLX(&s->density_sum);
    double ppm;
    if (dn && ds) /* events per ms: parent ns x (ds / dn) / 1e6 events in the run */
        ppm = (double)HP_LOAD_RLX(&s->events) * 1e12 * (double)dn / ((double)parent * (double)ds);
    else
        ppm = parent ? (double)HP_LOAD_RLX(&s->native_ns) / (double)parent * 1e6 : 0;
    return ppm > 1e6 ? 1000000u : (uint64_t)ppm;
}

/* The calibrated shadows' mean density (calls + blocks per native ms); 0 if none. */
static HP_NOINST uint64_t density_mean(const hp_shadow_shared *s)
{
    uint64_t dn = HP_LOAD_RLX(&s->density_n);
    return dn ? HP_LOAD_RLX(&s->density_sum) / dn : 0;
}

HP_NOINST size_t hp_shadow_info(char *out, size_t cap)
{
    static const char *const cats[HP_SYS_NCAT] = {"benign", "output", "input", "unsafe"};
    if (!g_cfg.shared) return 0;
    if (hp_shadow_in_child()) return hp_shadow_child_info(out, cap);
    const hp_shadow_shared *s = g_cfg.shared;
    char spec[128];
    hp_shadow_spec_format(spec, sizeof spec, &g_cfg.spec);
    uint64_t events = HP_LOAD_RLX(&s->events), cpu = HP_LOAD_RLX(&s->cpu_ns), parent = process_cpu_ns();
    uint64_t native = HP_LOAD_RLX(&s->native_ns);
    size_t n = hp_info_str(out, 0, cap, HP_INFO_SHADOW_SPEC, NULL, spec);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_STARTED, NULL, HP_LOAD_RLX(&g_started));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_FINISHED, NULL, HP_LOAD_RLX(&g_finished));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_KILLED, NULL, HP_LOAD_RLX(&g_killed));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_KILLED_DEADLINE, NULL, HP_LOAD_RLX(&g_killed_deadline));
    for (int r = 0; r < HP_END_N; r++) n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_END, hp_shadow_end_name(r), HP_LOAD_RLX(&s->end[r]));
    for (int k = 0; k < HP_SYS_NCAT; k++) n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_SYSCALLS, cats[k], HP_LOAD_RLX(&s->sys[k]));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_EVENTS, NULL, events);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_CPU_NS, NULL, cpu);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_PARENT_CPU_NS, NULL, parent);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_MINFLT, NULL, minflt_now());
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_MINFLT_BEFORE, NULL, g_minflt_before);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_NATIVE_NS, NULL, native);
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_COVERAGE_PPM, NULL, coverage_ppm(s, parent));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_CALIBRATED, NULL, HP_LOAD_RLX(&s->calibrated));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_DENSITY, NULL, density_mean(s));
    n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_SKIPPED_IDLE, NULL, HP_LOAD_RLX(&g_skipped_idle));
    if (g_lost) n = hp_info_u64(out, n, cap, HP_INFO_SHADOW_SIGNAL_LOST, NULL, 1);
    return n;
}

/* rt_init.c — process-level control of the runtime: configuration, one-time init, the exit
 * writer, fatal signals, fork, and the public API (include/hotprof/hotprof.h).
 *
 * Life of a process:
 *   1. Hooks may fire before any constructor. The first thread event (or our constructor, if
 *      guards were already registered or the program has XRay sleds, i.e. the process is
 *      instrumented) runs hp_rt_ensure_init
 *      exactly once: read HOTPROF_* variables (HOTPROF_MODE=bursty: parse HOTPROF_SAMPLE into the
 *      shared controller configuration hp_g_bcfg; a bad spec disables the runtime), open the output, write the file header, INFO and
 *      MODULES, set HOTPROF_CLAIMED=<pid>, install fatal-signal handlers (on a sigaltstack),
 *      pthread_atfork handlers and an on_exit status catcher; in bursty mode with XRay sleds,
 *      start the XRay burst control thread (xray.c, INFO mode=xray). Events recorded by other threads
 *      while init runs are kept (recording needs only per-thread memory, not the file).
 *   2. At normal exit our destructor (priority 101: among the last of its object) writes the
 *      final group (GROUP_END flags FINAL, status = exit status when on_exit saw it, else 0).
 *   3. A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT, SIGHUP,
 *      SIGQUIT, SIGPIPE; only those still at their default action at init) writes the same
 *      group with flags CRASH and status -signo from the handler,
 *      restores the default action and re-raises, so the exit status stays the program's.
 *   4. fork() without exec: the child stops recording and never writes, unless
 *      HOTPROF_FOLLOW_FORK=1, in which case it zeroes its counts and writes <output>.<pid>.
 * After the final group, hp_g_stopped is set and every thread is made inactive.
 *
 * Async-signal-safe: on_fatal_signal, fork_child and everything they call (INFO building uses
 * only read/readlink/getpid/clock_gettime and our own formatting). do_init, the destructor and
 * hotprof_flush are not (getenv, setenv, sigaction setup, dl_iterate_phdr).
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/format/format.h"
#include "core/control/spec.h"
#include "hotprof/hotprof.h"
#include "hotprof/version.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int hp_g_recording;
int hp_g_stopped;
int hp_g_bursty;
hp_bursty_config hp_g_bcfg;

static int g_init_state; /* 0 not started, 1 running, 2 done */
static int g_init_owner; /* tid running init */
static int g_quiet, g_follow_fork, g_exit_known, g_fd = -1;
static int64_t g_exit_status;
static uint64_t g_seed;
static char g_base[4096]; /* HOTPROF_OUTPUT with %p expanded */
static char g_path[4200]; /* the file this process writes */
static char g_info[16384];
/* Signals whose default action ends the process: the profile is written before it does.
 * SIGPIPE is here because `prog | head` would otherwise lose the whole profile. */
static const int g_fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,  SIGABRT,
                                      SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};

/* ---------------------------------------------------------------- small helpers */

static HP_NOINST int my_tid(void) { return (int)syscall(SYS_gettid); }

static HP_NOINST void put_str(hp_wbuf *w, const char *s) { hp_put_bytes(w, s, strlen(s)); }
static HP_NOINST void put_dec(hp_wbuf *w, uint64_t v)
{
    char num[24];
    hp_put_bytes(w, num, hp_fmt_u64(num, v));
}
static HP_NOINST void put_kv_dec(hp_wbuf *w, const char *key, uint64_t v)
{
    put_str(w, key);
    put_str(w, "=");
    put_dec(w, v);
    put_str(w, "\n");
}

/* Appends src to out[len..] (NUL-terminated, truncated to cap); returns the new length. */
static HP_NOINST size_t append(char *out, size_t len, size_t cap, const char *src)
{
    while (*src && len + 1 < cap) out[len++] = *src++;
    out[len] = 0;
    return len;
}

static HP_NOINST void path_with_pid_suffix(char *out, size_t cap, const char *base, uint64_t pid)
{
    char num[24];
    num[hp_fmt_u64(num, pid)] = 0;
    size_t n = append(out, 0, cap, base);
    n = append(out, n, cap, ".");
    append(out, n, cap, num);
}

/* HOTPROF_OUTPUT with "%p" -> pid and "%%" -> "%". */
static HP_NOINST void expand_output(char *out, size_t cap, const char *tmpl, uint64_t pid)
{
    char num[24];
    num[hp_fmt_u64(num, pid)] = 0;
    size_t n = 0;
    out[0] = 0;
    for (const char *p = tmpl; *p && n + 1 < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') n = append(out, n, cap, num), p++;
        else if (p[0] == '%' && p[1] == '%') out[n++] = '%', out[n] = 0, p++;
        else out[n++] = *p, out[n] = 0;
    }
}

/* ---------------------------------------------------------------- INFO */

static HP_NOINST void put_cmdline(hp_wbuf *w)
{
    static char cmd[8192];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd) : 0;
    if (fd >= 0) close(fd);
    uint64_t argc = 0;
    put_str(w, "args=");
    for (ssize_t i = 0; i < n; i++) {
        char c = cmd[i];
        if (c == 0) argc++;
        hp_put_u8(w, (uint8_t)(c == 0 ? (i + 1 < n ? ' ' : '\n') : c == '\n' ? ' ' : c));
    }
    if (n <= 0) put_str(w, "\n");
    put_kv_dec(w, "argc", argc);
}

static HP_NOINST size_t build_info(uint64_t parent_pid)
{
    char exe[4096];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    hp_main_exe_path(exe, sizeof exe);
    hp_wbuf w = hp_wbuf_make(g_info, sizeof g_info - 64);
    put_str(&w, "program="), put_str(&w, exe), put_str(&w, "\n");
    put_cmdline(&w);
    put_kv_dec(&w, "pid", (uint64_t)getpid());
    put_kv_dec(&w, "ppid", (uint64_t)getppid());
    if (parent_pid) put_kv_dec(&w, "forked_from", parent_pid);
    put_str(&w, hp_g_xray ? "mode=xray\n" : hp_g_patch ? "mode=patch\n" : hp_g_bursty ? "mode=bursty\n" : "mode=exhaustive\n");
    put_kv_dec(&w, "seed", g_seed);
    put_str(&w, "version=" HOTPROF_VERSION "\n");
    put_str(&w, "start_time="), put_dec(&w, (uint64_t)now.tv_sec), put_str(&w, ".");
    char ns[10];
    for (long v = now.tv_nsec, i = 8; i >= 0; i--, v /= 10) ns[i] = (char)('0' + v % 10);
    hp_put_bytes(&w, ns, 9), put_str(&w, "\n");
    put_str(&w, "output="), put_str(&w, g_path), put_str(&w, "\n");
    put_kv_dec(&w, "follow_fork", (uint64_t)g_follow_fork);
    put_str(&w, "runtime=libhotprof_rt\n");
    put_str(&w, "records=funcs,callpairs,blocks,edges,backedges,loads,stores,compares\n");
    if (hp_g_bursty) {
        char sample[1024];
        hp_put_bytes(&w, sample, hp_sample_info(sample, sizeof sample));
    }
    return w.len;
}

/* ---------------------------------------------------------------- output */

static HP_NOINST int open_output(uint64_t parent_pid)
{
    g_fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (g_fd < 0) return 0;
    size_t n = build_info(parent_pid);
    return hp_write_start(g_fd, g_info, n, g_seed) == HP_WRITE_OK;
}

static HP_NOINST void report_written(const hp_group_stats *st, int signo)
{
    if (g_quiet) return;
    char threads[24], calls[24], blocks[24], sig[24];
    threads[hp_fmt_u64(threads, st->threads)] = 0;
    calls[hp_fmt_u64(calls, st->calls)] = 0;
    blocks[hp_fmt_u64(blocks, st->blocks)] = 0;
    sig[hp_fmt_u64(sig, (uint64_t)signo)] = 0;
    const char *parts[] = {"hotprof: wrote ", g_path, " (", threads, " threads, ", calls, " calls, ",
                           blocks, " blocks", signo ? "; signal " : "", signo ? sig : "", ")"};
    hp_say(parts, sizeof parts / sizeof parts[0]);
}

/* ---------------------------------------------------------------- fatal signals */

static HP_NOINST void on_fatal_signal(int signo, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    hp_group_stats st;
    if (!HP_LOAD_ACQ(&hp_g_stopped) && hp_write_group(HP_GROUP_CRASH, -(int64_t)signo, 1, &st) == HP_WRITE_OK)
        report_written(&st, signo);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signo, &dfl, NULL);
    raise(signo); /* pending until we return; a fault re-executes and dies the same way */
    errno = saved_errno;
}

static HP_NOINST void install_signal_handlers(void)
{
    for (size_t i = 0; i < sizeof g_fatal_signals / sizeof g_fatal_signals[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(g_fatal_signals[i], NULL, &old) != 0) continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL) continue; /* ignored or owned */
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigfillset(&sa.sa_mask);
        sigaction(g_fatal_signals[i], &sa, NULL);
    }
}

/* ---------------------------------------------------------------- fork */

static HP_NOINST void fork_child(void)
{
    uint64_t parent = (uint64_t)getppid();
    if (g_init_state != 2 || !hp_g_recording) return;
    if (g_fd >= 0) close(g_fd); /* the parent's file: never touched by the child */
    g_fd = -1;
    if (!g_follow_fork || HP_LOAD_ACQ(&hp_g_stopped)) {
        HP_STORE_REL(&hp_g_stopped, 1);
        hp_threads_set_active(0);
        hp_writer_reset_after_fork(-1);
        return;
    }
    hp_locks_reset_after_fork(); /* a parent thread may have held one at fork: it is gone */
    hp_threads_reset_counts();
    if (hp_tls) hp_tls->tid = (uint64_t)my_tid();
    path_with_pid_suffix(g_path, sizeof g_path, g_base, (uint64_t)getpid());
    hp_writer_reset_after_fork(-1);
    if (open_output(parent)) {
        hp_writer_reset_after_fork(g_fd);
        return;
    }
    HP_STORE_REL(&hp_g_stopped, 1); /* cannot write: record nothing */
    hp_threads_set_active(0);
}

static HP_NOINST void note_exit_status(int status, void *arg)
{
    g_exit_status = status;
    g_exit_known = 1;
}

/* ---------------------------------------------------------------- init */

static HP_NOINST uint64_t default_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return hp_splitmix64_mix(((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32));
}

HP_NOINST uint64_t hp_thread_seed(uint64_t index) { return hp_splitmix64_mix(g_seed ^ hp_splitmix64_mix(index + 1)); }

static HP_NOINST int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static HP_NOINST void read_config(uint64_t pid)
{
    const char *seed = getenv("HOTPROF_SEED");
    const char *out = getenv("HOTPROF_OUTPUT");
    const char *claimed = getenv("HOTPROF_CLAIMED");
    g_quiet = env_flag("HOTPROF_QUIET");
    g_follow_fork = env_flag("HOTPROF_FOLLOW_FORK");
    char *end = NULL;
    g_seed = seed && *seed ? strtoull(seed, &end, 0) : 0;
    if (!seed || !*seed || (end && *end)) g_seed = default_seed();
    expand_output(g_base, sizeof g_base, out && *out ? out : "hotprof.data", pid);
    if (claimed && *claimed && strtoull(claimed, NULL, 10) != pid)
        path_with_pid_suffix(g_path, sizeof g_path, g_base, pid);
    else
        append(g_path, 0, sizeof g_path, g_base);
}

enum run_mode { MODE_EXHAUSTIVE, MODE_OFF, MODE_BURSTY };

/* HOTPROF_MODE; unset (or empty) means bursty if HOTPROF_SAMPLE is given, else exhaustive. */
static HP_NOINST int read_mode(void)
{
    const char *mode = getenv("HOTPROF_MODE"), *spec = getenv("HOTPROF_SAMPLE");
    if (!mode || !*mode) return spec && *spec ? MODE_BURSTY : MODE_EXHAUSTIVE;
    if (strcmp(mode, "exhaustive") == 0) return MODE_EXHAUSTIVE;
    if (strcmp(mode, "off") == 0) return MODE_OFF;
    if (strcmp(mode, "bursty") == 0) return MODE_BURSTY;
    if (!env_flag("HOTPROF_QUIET")) {
        const char *parts[] = {"hotprof: unknown HOTPROF_MODE '", mode, "', using exhaustive"};
        hp_say(parts, 3);
    }
    return MODE_EXHAUSTIVE;
}

/* Bursty: the shared controller configuration from HOTPROF_SAMPLE (default: methods and call
 * pairs at period 1000, burst 1). A bad spec is reported (even when quiet) and disables the
 * runtime: 0. */
static HP_NOINST int setup_bursty(void)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    char err[256];
    const char *spec = getenv("HOTPROF_SAMPLE");
    hp_sample_defaults(p);
    if (!spec || !*spec) {
        p[HP_BURSTY_METHODS].enabled = p[HP_BURSTY_CALL_PAIRS].enabled = 1;
    } else if (hp_sample_spec_parse(spec, p, err, sizeof err)) {
        const char *parts[] = {"hotprof: bad HOTPROF_SAMPLE: ", err, " (not profiling)"};
        hp_say(parts, 3);
        return 0;
    }
    hp_bursty_config_init(&hp_g_bcfg);
    if (hp_bursty_config_set_all(&hp_g_bcfg, p)) return 0;
    HP_STORE_REL(&hp_g_bursty, 1);
    return 1;
}

static HP_NOINST void do_init(void)
{
    uint64_t pid = (uint64_t)getpid();
    int mode = read_mode();
    if (mode == MODE_OFF || (mode == MODE_BURSTY && !setup_bursty())) return;
    if (mode == MODE_BURSTY && !hp_xray_probe(env_flag("HOTPROF_QUIET"))) hp_sites_probe(env_flag("HOTPROF_QUIET"));
    else if (hp_xray_present() && !HP_LOAD_ACQ(&hp_g_guards) && !env_flag("HOTPROF_QUIET")) {
        const char *parts[] = {"hotprof: xray: XRay sleds record only in bursty mode (--sample methods:...)"};
        hp_say(parts, 1);
    }
    read_config(pid);
    hp_modules_refresh();
    if (!open_output(0)) {
        const char *parts[] = {"hotprof: cannot write ", g_path, ": ", strerror(errno), " (not profiling)"};
        hp_say(parts, 5);
        HP_STORE_REL(&hp_g_bursty, 0);
        HP_STORE_REL(&hp_g_xray, 0);
        HP_STORE_REL(&hp_g_patch, 0);
        return;
    }
    char num[24];
    num[hp_fmt_u64(num, pid)] = 0;
    setenv("HOTPROF_CLAIMED", num, 1);
    install_signal_handlers();
    pthread_atfork(NULL, NULL, fork_child);
    on_exit(note_exit_status, NULL);
    HP_STORE_REL(&hp_g_recording, 1);
    hp_xray_start();  /* XRay bursts (xray.c): only when hp_xray_probe found sleds */
    hp_sites_start(); /* patched call sites (sites.c): only when hp_sites_probe enabled them */
}

HP_NOINST int hp_rt_ensure_init(void)
{
    if (HP_LIKELY(HP_LOAD_ACQ(&g_init_state) == 2)) return hp_g_recording;
    int expected = 0;
    if (__atomic_compare_exchange_n(&g_init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        g_init_owner = my_tid();
        do_init();
        HP_STORE_REL(&g_init_state, 2);
        return hp_g_recording;
    }
    if (HP_LOAD_RLX(&g_init_owner) == my_tid()) return -1; /* a hook inside our own init */
    while (HP_LOAD_ACQ(&g_init_state) != 2) sched_yield();
    return hp_g_recording;
}

__attribute__((constructor(101))) static HP_NOINST void hp_rt_constructor(void)
{
    /* instrumented (coverage guards or XRay sleds): start before main */
    if (HP_LOAD_ACQ(&hp_g_guards) > 0 || hp_xray_present()) hp_rt_ensure_init();
}

__attribute__((destructor(101))) static HP_NOINST void hp_rt_destructor(void)
{
    if (HP_LOAD_ACQ(&g_init_state) != 2 || !hp_g_recording || HP_LOAD_ACQ(&hp_g_stopped)) return;
    hp_ds_flush_self(); /* patch mode: this thread's last window of references */
    hp_modules_refresh();
    hp_group_stats st;
    if (hp_write_group(HP_GROUP_FINAL, g_exit_known ? g_exit_status : 0, 1, &st) == HP_WRITE_OK)
        report_written(&st, 0);
}

/* ---------------------------------------------------------------- public API */

HP_API int hotprof_flush(void)
{
    if (hp_rt_ensure_init() <= 0 || HP_LOAD_ACQ(&hp_g_stopped)) return -1;
    hp_modules_refresh();
    return hp_write_group(0, 0, 0, NULL) == HP_WRITE_OK ? 0 : -1;
}

HP_API const char *hotprof_version(void) { return HOTPROF_VERSION; }

/* init.c — process-level control of the runtime: one-time init, the exit writer, fatal
 * signals, fork, exec (the exec family, interposed). The public API (include/hotprof/hotprof.h) is in api.c; HOTPROF_* variables
 * are read by config.c.
 *
 * Life of a process:
 *   1. Hooks may fire before any constructor. The first thread event (or our constructor, if
 *      guards were already registered or the program has XRay sleds, i.e. the process is
 *      instrumented) runs hp_rt_ensure_init (init.h)
 *      exactly once: read every HOTPROF_* variable once (config.c; a bad HOTPROF_SAMPLE or
 *      HOTPROF_SEED: one message and the runtime disables itself), in bursty mode publish the
 *      spec into the shared controller configuration hp_g.bcfg, choose the output path (the
 *      base, or <base>.<pid> for a descendant, an exec'd image or another image of the same
 *      `hotprof run`: HOTPROF_RUN_FD's token), open it, lock it (flock; held by another
 *      process: not profiling), truncate it, write the file
 *      header, INFO and MODULES, set HOTPROF_CLAIMED=<pid>, install fatal-signal handlers (on a
 *      sigaltstack), pthread_atfork handlers and an on_exit status catcher; in bursty mode with
 *      XRay sleds start the XRay burst control thread (ctl/xray.c, INFO mode=xray), or with
 *      patchable call sites the sites' one (ctl/sites.c, INFO mode=patch); in exhaustive mode a
 *      program whose only events are XRay sleds gets every sled patched (ctl/xray.c). Events
 *      recorded by other threads while init runs are kept (recording needs only per-thread
 *      memory, not the file).
 *   2. At normal exit our destructor (priority 101: among the last of its object) writes the
 *      final group (GROUP_END flags FINAL, status = exit status when on_exit saw it, else 0).
 *   3. A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT, SIGHUP,
 *      SIGQUIT, SIGPIPE; only those still at their default action at init) writes the same
 *      group with flags CRASH and status -signo from the handler,
 *      restores the default action and re-raises, so the exit status stays the program's.
 *   4. fork() without exec: the child stops recording and never writes, unless
 *      HOTPROF_FOLLOW_FORK=1, in which case it zeroes its counts and writes <output>.<pid>
 *      (and publishes its own live segment).
 * The live segment for `hotprof top` (live.c; off with HOTPROF_LIVE=0) is published once
 * recording starts and unlinked at exit, on a fatal signal and before exec.
 *   5. exec (the exec family is interposed, at the end of this file): before the image is
 *      replaced, a group flagged FINAL|EXEC, not closing the writer; a trace (--record-trace)
 *      gets every thread's buffer and an exec record, and the new image appends to it.
 * After the final group, hp_g.stopped is set and every thread is made inactive.
 * Every outcome is reported: "hotprof: wrote ..." (unless quiet), an open or write error (always,
 * with an async-signal-safe errno text), and the same to `hotprof run` over HOTPROF_RUN_FD.
 *
 * State: the init state machine, the configuration read at init (g_cfg), the output path, fd,
 * lock and claim state, `hotprof run`'s socket, exit status and INFO text below are this file's
 * own (file-static); process-wide flags are in
 * hp_g (base.h). Layering: init is above the writer, ctl/ and thread; below it only thread.c
 * (hp_thread_slow) calls into it, through init.h.
 *
 * Async-signal-safe: on_fatal_signal, fork_child and everything they call (INFO building uses
 * only read/readlink/getpid/clock_gettime and our own formatting). do_init and the destructor
 * are not (getenv, setenv, sigaction setup, dl_iterate_phdr).
 */
#define _GNU_SOURCE
#include "runtime/init.h"
#include "runtime/pt/subpath.h"
#include "runtime/base.h"
#include "runtime/config.h"
#include "runtime/thread.h"
#include "runtime/blockmap.h"
#include "runtime/modules.h"
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/dual.h"
#include "runtime/ctl/shadow.h"
#include "runtime/pt/datastream.h"
#include "runtime/pt/trace.h"
#include "runtime/pt/intervals.h"
#include "runtime/pt/pathval.h"
#include "runtime/writer.h"
#include "runtime/live.h"
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/format/format.h"
#include "core/format/info_keys.h"
#include "core/control/spec.h"
#include "hotprof/version.h"
#include "core/control/timer_spec.h"
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int g_init_state; /* 0 not started, 1 running, 2 done */
static int g_init_owner; /* tid running init */
static hp_rt_config g_cfg; /* every HOTPROF_* setting, read once by do_init (config.c) */
static int g_exit_known, g_fd = -1;
static int64_t g_exit_status;
static char g_base[4096]; /* HOTPROF_OUTPUT with %p expanded */
static char g_path[4200]; /* the file this process writes */
static char g_info[16384];
static uint64_t g_pid;       /* the process whose profile g_path is (a vfork child is another) */
static int g_run_fd = -1;    /* `hotprof run`'s socket (HOTPROF_RUN_FD), a private dup; -1: none */
static int g_count;          /* --bursts count with its trampolines ready (count_probe) */
static int g_output_special; /* the output exists and is no regular file (/dev/null, a directory) */
static int g_output_exec;    /* an exec'd image of a process that had claimed the output */
static int g_open_errno;     /* why open_output failed (EWOULDBLOCK: another process holds the lock) */
/* Signals whose default action ends the process: the profile is written before it does.
 * SIGPIPE is here because `prog | head` would otherwise lose the whole profile. */
/* Timer mode (ctl/timer.h) lives only in libhotprof_rt.so, which `hotprof run --mode timer`
 * preloads: the static runtime (libhotprof_rt.a, linked into `hotprof cc` programs) must not pull
 * in its unwinder and interpreter, so init reaches it through weak references, NULL there. A
 * `hotprof cc` program run with --mode timer has both: its static runtime stays off (do_init) and
 * the preloaded one profiles it as any other program. */
extern int hp_timer_start(const hp_timer_spec *s, uint64_t seed, char *err, size_t errlen) __attribute__((weak));
extern void hp_timer_thread_begin(void) __attribute__((weak));
extern void hp_timer_after_fork(int follow) __attribute__((weak));
#define HP_TIMER_FD_FLOOR 900 /* timer mode keeps its descriptors at or above this (docs/timer.md) */

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

#define HP_ARGS_MAX 8192u /* bytes of the command line kept in INFO args */

/* INFO args (the command line joined by spaces, its first HP_ARGS_MAX bytes), argc (every
 * argument, however long the line) and args_truncated=1 when args was cut. /proc/self/cmdline
 * is read to its end in chunks. */
static HP_NOINST void put_cmdline(hp_wbuf *w)
{
    static char cmd[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    uint64_t argc = 0, kept = 0;
    int cut = 0;
    char last = 0;
    put_str(w, HP_INFO_ARGS "=");
    for (ssize_t n; fd >= 0 && ((n = read(fd, cmd, sizeof cmd)) > 0 || (n < 0 && errno == EINTR));) {
        for (ssize_t i = 0; i < n; i++) {
            char c = last = cmd[i];
            argc += c == 0;
            if (kept == HP_ARGS_MAX) {
                cut |= c != 0; /* only the last NUL left out is no cut */
                continue;
            }
            kept++;
            hp_put_u8(w, (uint8_t)(c == 0 || c == '\n' ? ' ' : c));
        }
    }
    if (fd >= 0) close(fd);
    if (last != 0) argc++; /* a last argument without its NUL */
    if (!cut && last == 0 && kept && w->ok) w->len--; /* the space that stands for the last NUL */
    put_str(w, "\n");
    put_kv_dec(w, HP_INFO_ARGC, argc);
    if (cut) put_kv_dec(w, HP_INFO_ARGS_CUT, 1);
}

static HP_NOINST size_t build_info(uint64_t parent_pid)
{
    char exe[4096];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    hp_main_exe_path(exe, sizeof exe);
    hp_wbuf w = hp_wbuf_make(g_info, sizeof g_info - 64);
    put_str(&w, HP_INFO_PROGRAM "="), put_str(&w, exe), put_str(&w, "\n");
    put_cmdline(&w);
    put_kv_dec(&w, HP_INFO_PID, (uint64_t)getpid());
    put_kv_dec(&w, HP_INFO_PPID, (uint64_t)getppid());
    if (parent_pid) put_kv_dec(&w, HP_INFO_FORKED_FROM, parent_pid);
    put_str(&w, HP_INFO_MODE "=");
    put_str(&w, g_cfg.mode == HP_RUN_SHADOW ? HP_MODE_SHADOW "\n" : g_cfg.mode == HP_RUN_TIMER ? HP_MODE_TIMER "\n" : hp_g.xray == HP_XRAY_BURSTS ? HP_MODE_XRAY "\n" : hp_g.patch ? HP_MODE_PATCH "\n" : hp_g.bursty ? HP_MODE_BURSTY "\n" : HP_MODE_EXHAUSTIVE "\n");
    put_kv_dec(&w, HP_INFO_SEED, hp_g.seed);
    for (int s = 0; s < HP_IV_NSTREAMS; s++)
        if (*hp_rt_iv_info(s)) { /* intervals.value=summary=multihash,... */
            const char *spec = hp_rt_iv_info(s), *params = strchr(spec, ':');
            put_str(&w, HP_INFO_INTERVALS "."), put_str(&w, hp_iv_stream_name(s)), put_str(&w, "=");
            put_str(&w, params ? params + 1 : spec), put_str(&w, "\n");
        }
    put_str(&w, HP_INFO_VERSION "=" HOTPROF_VERSION "\n");
    put_str(&w, HP_INFO_START_TIME "="), put_dec(&w, (uint64_t)now.tv_sec), put_str(&w, ".");
    char ns[10];
    for (long v = now.tv_nsec, i = 8; i >= 0; i--, v /= 10) ns[i] = (char)('0' + v % 10);
    hp_put_bytes(&w, ns, 9), put_str(&w, "\n");
    put_str(&w, HP_INFO_OUTPUT "="), put_str(&w, g_path), put_str(&w, "\n");
    put_kv_dec(&w, HP_INFO_FOLLOW_FORK, (uint64_t)g_cfg.follow_fork);
    put_str(&w, HP_INFO_RUNTIME "=libhotprof_rt\n");
    put_str(&w, g_cfg.mode == HP_RUN_TIMER ? HP_INFO_RECORDS "=stacks,values\n"
                                           : HP_INFO_RECORDS "=funcs,callpairs,blocks,edges,backedges,loads,stores,compares\n");
    if (hp_g.bursty && g_cfg.mode != HP_RUN_SHADOW) {
        char sample[1024];
        hp_put_bytes(&w, sample, hp_sample_info(sample, sizeof sample));
    }
    return w.len;
}

/* ---------------------------------------------------------------- hotprof run's channel */

/* HOTPROF_RUN_FD="<fd>:<inode>": a datagram socket that `hotprof run` shares with every image it
 * runs (checked by inode, so a program that reused the descriptor number is never written to).
 * Its receive queue holds one token: the first image of the run to take it owns the output path;
 * the others write <output>.<pid>. Images send "wrote|error <pid> <path>" back, so `run` knows
 * what was written and what failed. Kept in a private close-on-exec dup. */
static HP_NOINST void run_channel_open(const hp_rt_config *c)
{
    struct stat st;
    if (c->run_fd < 0 || fstat(c->run_fd, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_ino != c->run_ino) return;
    g_run_fd = fcntl(c->run_fd, F_DUPFD_CLOEXEC, c->mode == HP_RUN_TIMER ? HP_TIMER_FD_FLOOR : 3);
}

/* 1 if this image takes the run's token (it is the first to claim the output path). */
static HP_NOINST int run_claim(void)
{
    char b[16];
    return g_run_fd >= 0 && recv(g_run_fd, b, sizeof b, MSG_DONTWAIT) > 0;
}

/* Tells `hotprof run` "<kind> <pid> <path>" (async-signal-safe; lost if nobody listens). */
static HP_NOINST void run_tell(const char *kind)
{
    if (g_run_fd < 0) return;
    char line[4400], num[24];
    num[hp_fmt_u64(num, g_pid)] = 0;
    size_t n = append(line, 0, sizeof line, kind);
    n = append(line, n, sizeof line, " ");
    n = append(line, n, sizeof line, num);
    n = append(line, n, sizeof line, " ");
    n = append(line, n, sizeof line, g_path);
    ssize_t r = send(g_run_fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)r;
}

/* ---------------------------------------------------------------- output */

/* Opens g_path and writes the header, INFO and MODULES. A regular file is locked (flock,
 * exclusive, not waiting) before it is truncated, so a second process never cuts a profile
 * being written: it fails with EWOULDBLOCK. exclusive: create a new file only (EEXIST). 1 on
 * success; else 0 with g_open_errno set and nothing open. Async-signal-safe. */
static HP_NOINST int open_output(uint64_t parent_pid, int exclusive)
{
    struct stat st;
    g_fd = open(g_path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0), 0644);
    if (g_fd < 0) {
        g_open_errno = errno;
        return 0;
    }
    if (g_cfg.mode == HP_RUN_TIMER) { /* out of the program's way: a high, close-on-exec descriptor */
        int high = fcntl(g_fd, F_DUPFD_CLOEXEC, HP_TIMER_FD_FLOOR);
        if (high >= 0) close(g_fd), g_fd = high;
    }
    if (fstat(g_fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (flock(g_fd, LOCK_EX | LOCK_NB) != 0 || ftruncate(g_fd, 0) != 0)) {
        g_open_errno = errno == EAGAIN ? EWOULDBLOCK : errno;
        close(g_fd);
        g_fd = -1;
        return 0;
    }
    size_t n = build_info(parent_pid);
    if (hp_write_start(g_fd, g_info, n, hp_g.seed) == HP_WRITE_OK) return 1;
    g_open_errno = hp_write_errno();
    close(g_fd);
    g_fd = -1;
    return 0;
}

/* An exec'd image of a process that had claimed the output: <base>.<pid>, or <base>.<pid>.<n>
 * if an earlier image of this pid took that name; created, never replaced. */
static HP_NOINST int open_output_exec(void)
{
    char num[24];
    size_t len = strlen(g_path);
    for (uint64_t n = 2; n < 100; n++) {
        if (open_output(0, 1)) return 1;
        if (g_open_errno != EEXIST) return 0;
        num[hp_fmt_u64(num, n)] = 0;
        g_path[len] = 0;
        append(g_path, append(g_path, len, sizeof g_path, "."), sizeof g_path, num);
    }
    return 0;
}

/* Why the output cannot be written, on stderr (even when quiet) and to `hotprof run`. */
static HP_NOINST void say_cannot_write(void)
{
    if (g_open_errno == EWOULDBLOCK) {
        const char *parts[] = {"hotprof: ", g_path, " is in use: another process is writing it (not profiling)"};
        hp_say(parts, 3);
    } else {
        const char *parts[] = {"hotprof: cannot write ", g_path, ": ", hp_errno_text(g_open_errno), " (not profiling)"};
        hp_say(parts, 5);
    }
    run_tell("error");
}

/* A group could not be written whole (ENOSPC, EFBIG, ...): stderr (even when quiet) and `run`. */
static HP_NOINST void say_write_failed(void)
{
    const char *parts[] = {"hotprof: error writing ", g_path, ": ", hp_errno_text(hp_write_errno()),
                           "; the profile is incomplete"};
    hp_say(parts, 5);
    run_tell("error");
}

static HP_NOINST void report_written(const hp_group_stats *st, int signo, const char *why)
{
    run_tell("wrote");
    if (g_cfg.quiet) return;
    hp_rt_iv_warn_sparse(); /* bursty interval profiles with too few intervals (pt/intervals.h) */
    char threads[24], calls[24], blocks[24], sig[24];
    threads[hp_fmt_u64(threads, st->threads)] = 0;
    calls[hp_fmt_u64(calls, st->calls)] = 0;
    blocks[hp_fmt_u64(blocks, st->blocks)] = 0;
    sig[hp_fmt_u64(sig, (uint64_t)signo)] = 0;
    const char *parts[] = {"hotprof: wrote ", g_path, " (", threads, " threads, ", calls, " calls, ",
                           blocks, " blocks", signo ? "; signal " : "", signo ? sig : "", why, ")"};
    hp_say(parts, sizeof parts / sizeof parts[0]);
}

/* A group's outcome reported: "wrote" or the write error. */
static HP_NOINST void report_group(int rc, const hp_group_stats *st, int signo, const char *why)
{
    if (rc == HP_WRITE_OK) report_written(st, signo, why);
    else if (rc == HP_WRITE_IOERR) say_write_failed();
}

/* ---------------------------------------------------------------- fatal signals */

static HP_NOINST void on_fatal_signal(int signo, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    hp_group_stats st;
    hp_live_stop();
    if (!HP_LOAD_ACQ(&hp_g.stopped)) report_group(hp_write_group(HP_GROUP_CRASH, -(int64_t)signo, 1, &st), &st, signo, "");
    hp_rt_trace_finish(); /* --record-trace: the buffers up to the signal, and the end record */
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
    if (g_init_state != 2 || !hp_g.recording) return;
    if (g_fd >= 0) close(g_fd); /* the parent's file: never touched by the child */
    g_fd = -1;
    if (hp_timer_after_fork && g_cfg.mode == HP_RUN_TIMER)
        hp_timer_after_fork(g_cfg.follow_fork && !HP_LOAD_ACQ(&hp_g.stopped)); /* timers are not inherited */
    if (!g_cfg.follow_fork || HP_LOAD_ACQ(&hp_g.stopped)) {
        HP_STORE_REL(&hp_g.stopped, 1);
        hp_threads_set_active(0);
        hp_writer_reset_after_fork(-1);
        hp_live_after_fork(0);
        return;
    }
    hp_blockmap_lock_reset(); /* a parent thread may have held one at fork: it is gone */
    hp_modules_lock_reset();
    hp_threads_reset_counts();
    if (hp_tls) hp_tls->tid = (uint64_t)my_tid();
    g_pid = (uint64_t)getpid();
    if (g_output_special) append(g_path, 0, sizeof g_path, g_base);
    else path_with_pid_suffix(g_path, sizeof g_path, g_base, g_pid);
    hp_writer_reset_after_fork(-1);
    if (open_output(parent, 0)) {
        hp_writer_reset_after_fork(g_fd);
        hp_live_after_fork(g_cfg.live);
        return;
    }
    hp_live_after_fork(0);
    say_cannot_write();
    HP_STORE_REL(&hp_g.stopped, 1); /* cannot write: record nothing */
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

/* Bursty: the shared controller configuration from the parsed HOTPROF_SAMPLE (config.c; default:
 * methods and call pairs at period 1000, burst 1). 0 if it cannot be set. */
static HP_NOINST int setup_bursty(const hp_rt_config *c)
{
    hp_bursty_config_init(&hp_g.bcfg);
    if (hp_bursty_config_set_all(&hp_g.bcfg, c->sample)) return 0;
    HP_STORE_REL(&hp_g.bursty, 1);
    return 1;
}

/* Where this process writes: HOTPROF_OUTPUT expanded (the base), as it is if it exists and is no
 * regular file (every image writes to it); else the base for the first claimer, and
 * <base>.<pid> for a descendant of the image that claimed it (HOTPROF_CLAIMED is another pid),
 * an exec'd image of that process (HOTPROF_CLAIMED is this pid: g_output_exec, the name is then
 * created anew, open_output_exec) or another image of the same `hotprof run` (one that does not
 * get the run's token). */
static HP_NOINST void output_path(const hp_rt_config *c, uint64_t pid)
{
    struct stat st;
    expand_output(g_base, sizeof g_base, c->output, pid);
    g_output_special = stat(g_base, &st) == 0 && !S_ISREG(st.st_mode);
    g_output_exec = c->claimed_given && c->claimed == pid && !g_output_special;
    if (g_output_special || (!c->claimed_given && (g_run_fd < 0 || run_claim())))
        append(g_path, 0, sizeof g_path, g_base);
    else
        path_with_pid_suffix(g_path, sizeof g_path, g_base, pid);
}

/* ---------------------------------------------------------------- shadow mode (ctl/shadow.h) */

static char g_shadow_dir[4300]; /* <output>.shadows: every shadow's profile, shadow.<n> */

/* In a shadow (ctl/shadow_child.c, before its filter): <output>.shadows/shadow.<n>, opened as any
 * profile (header, INFO with forked_from, MODULES), then moved to descriptor fd. 0 or -1. */
static HP_NOINST int shadow_open_output(uint64_t n, int fd)
{
    char num[24];
    num[hp_fmt_u64(num, n)] = 0;
    append(g_path, append(g_path, append(g_path, 0, sizeof g_path, g_shadow_dir), sizeof g_path, "/shadow."), sizeof g_path, num);
    if (g_fd >= 0) close(g_fd); /* the parent's profile (its lock stays the parent's) */
    g_fd = -1;
    g_pid = (uint64_t)getpid();
    hp_writer_reset_after_fork(-1);
    if (!open_output((uint64_t)getppid(), 0)) return -1;
    if (dup3(g_fd, fd, O_CLOEXEC) < 0) return -1;
    close(g_fd);
    g_fd = fd;
    hp_writer_reset_after_fork(fd);
    return 0;
}

/* In a shadow: its final group (no module refresh: the loader's lock may be held by a thread
 * that does not exist here). */
static HP_NOINST void shadow_write_final(void) { hp_write_group(HP_GROUP_FINAL, 0, 1, NULL); }

/* Shadow mode: the monitor's probe (the parent runs patched off, as bursty mode over call sites
 * with no windows: hp_g.bursty and hp_g.patch). 0 (after one message) if shadows cannot run. */
static HP_NOINST int setup_shadow(const hp_rt_config *c)
{
    static const hp_shadow_ops ops = {shadow_open_output, shadow_write_final};
    char err[384];
    append(g_shadow_dir, append(g_shadow_dir, 0, sizeof g_shadow_dir, g_path), sizeof g_shadow_dir, ".shadows");
    if (hp_shadow_probe(&c->shadow, g_shadow_dir, &ops, hp_g.seed, c->quiet, err, sizeof err)) {
        const char *parts[] = {"hotprof: ", err, " (not profiling)"};
        hp_say(parts, 3);
        return 0;
    }
    hp_bursty_config_init(&hp_g.bcfg);
    HP_STORE_REL(&hp_g.bursty, 1);
    return 1;
}

/* --bursts count (ctl/dual.h): HP_BURSTS_COUNT if the trampolines are ready (subpaths then ride on
 * their countdown: pt/subpath_cnt.c); HP_BURSTS_PATCH when they cannot be made (one message;
 * HP_BURSTS_LIVE for subpaths by default, osp_auto); -1
 * when the program has no two-version
 * code (one message even when quiet, unless under `hotprof run`, which says it: the runtime
 * disables itself, as for a bad HOTPROF_SAMPLE). */
static HP_NOINST int count_probe(const hp_rt_config *c, int osp_auto)
{
    const char *why = "no trampolines";
    if (!hp_dual_present()) { /* (`hotprof run` says it itself, for programs without hooks too) */
        const char *parts[] = {"hotprof: HOTPROF_BURSTS=count needs a program built with "
                               "`hotprof cc --hooks=dual-functions|dual-blocks|dual-memory` (not profiling)"};
        if (c->run_fd < 0) hp_say(parts, 1);
        return -1;
    }
    if (hp_dual_count_probe(&why) == 0) return HP_BURSTS_COUNT;
    if (!c->quiet) {
        const char *parts[] = {"hotprof: count: ", why, osp_auto ? "; live hooks instead" : "; patched bursts instead"};
        hp_say(parts, 3);
    }
    return osp_auto ? HP_BURSTS_LIVE : HP_BURSTS_PATCH;
}

/* Subpaths by default on a build without two-version code: live hooks (every block counts its
 * skip), the slow but unbiased way; one line (unless quiet) that says so and names the fast one. */
static HP_NOINST int live_subpaths(const hp_rt_config *c)
{
    if (!c->quiet) {
        const char *parts[] = {"hotprof: subpaths: live hooks count every block (several times slower); "
                               "a `hotprof cc --hooks=dual-blocks` build samples them by count (docs/osp.md)"};
        hp_say(parts, 1);
    }
    return HP_BURSTS_LIVE;
}

/* A program with inline count sites (-hotprof-dual-site=count, ctl/dual.h): patched bursts cannot
 * switch them, so count-triggered bursts; one message if patch was asked. */
static HP_NOINST int inline_count_sites(const hp_rt_config *c, int bursts)
{
    if (bursts == HP_BURSTS_PATCH && !c->quiet) {
        const char *parts[] = {"hotprof: the program was built with inline count sites (-hotprof-dual-site=count): "
                               "count-triggered bursts instead of patched ones"};
        hp_say(parts, 1);
    }
    return HP_BURSTS_COUNT;
}

static HP_NOINST void do_init(void)
{
    uint64_t pid = (uint64_t)getpid();
    hp_rt_config *c = &g_cfg;
    int bad = hp_rt_config_read(c);
    if (c->mode_unknown && !c->quiet) {
        const char *parts[] = {"hotprof: unknown HOTPROF_MODE '", c->mode_unknown, "', using exhaustive"};
        hp_say(parts, 3);
    }
    if (c->mode == HP_RUN_OFF) return;
    if (bad) { /* a bad HOTPROF_SAMPLE or HOTPROF_SEED: said even when quiet, and no profile */
        const char *parts[] = {c->error};
        hp_say(parts, 1);
        return;
    }
    if (c->mode == HP_RUN_TIMER && !hp_timer_start) return; /* the static runtime: see hp_timer_start */
    if (c->mode == HP_RUN_TIMER) {
        c->quiet = 1; /* the program's stderr is its own: `hotprof run` reports (HOTPROF_RUN_FD) */
        c->live = 0;  /* no publisher thread, no /dev/shm segment the program could see */
    }
    if (c->mode == HP_RUN_BURSTY) {
        if (!setup_bursty(c)) return;
        /* subpaths: by default count-triggered segments on a dual build (unbiased, 2-3x cheaper than
         * live skips: docs/osp.md), else live skips; patched windows (pt/subpath_win.c) only with an
         * explicit --bursts patch, since their block weights are not calibrated yet. Every other
         * type: count-triggered bursts by default on a dual build too (the configured rate, placed by
         * count: patched windows, placed in time, recorded 0.01-0.06x the rate on the real programs,
         * with equal call sites 27:1; docs/dual.md *Modes*), else patched bursts */
        int bursts = c->bursts, osp_auto = c->osp.enabled && bursts == HP_BURSTS_AUTO;
        if (osp_auto) bursts = hp_dual_present() ? HP_BURSTS_COUNT : live_subpaths(c);
        else if (bursts == HP_BURSTS_AUTO && hp_dual_present()) bursts = HP_BURSTS_COUNT;
        if (bursts != HP_BURSTS_LIVE && hp_dual_count_sites()) bursts = inline_count_sites(c, bursts);
        if (bursts == HP_BURSTS_COUNT && (bursts = count_probe(c, osp_auto)) < 0) return; /* not a dual build */
        g_count = bursts == HP_BURSTS_COUNT;
        if (c->osp.enabled && bursts == HP_BURSTS_PATCH) hp_pb_set_subpath(hp_rt_osp_window_open, hp_rt_osp_window_end);
        if (bursts != HP_BURSTS_COUNT && !hp_xray_probe(c->quiet, c->xray))
            hp_sites_probe(c->quiet, bursts, c->bursts_unknown, c->window);
    } else {
        hp_xray_probe_all(c->xray); /* an XRay build: every sled patched, every call recorded */
    }
    hp_g.seed = c->seed_given ? c->seed : default_seed();
    int osp_mode = c->mode != HP_RUN_BURSTY ? HP_OSP_RT_EXACT : HP_LOAD_ACQ(&hp_g.patch) ? HP_OSP_RT_PATCH
                   : g_count ? HP_OSP_RT_COUNT : HP_OSP_RT_LIVE;
    if (c->osp.enabled && !hp_rt_osp_setup(&c->osp, osp_mode, hp_g.seed)) {
        const char *parts[] = {"hotprof: cannot map the subpath hot-list; subpaths are not recorded"};
        hp_say(parts, 1);
    }
    if (c->mode == HP_RUN_EXHAUSTIVE || c->mode == HP_RUN_BURSTY) /* interval profiles (pt/intervals.h) */
        hp_rt_iv_start(c->iv, hp_g.seed, c->mode != HP_RUN_BURSTY ? HP_RT_IV_EXHAUSTIVE : HP_LOAD_ACQ(&hp_g.patch) ? HP_RT_IV_PATCH : HP_RT_IV_LIVE);
    if (c->mode == HP_RUN_EXHAUSTIVE) /* path and value profiles (pt/pathval.h): before any thread is created */
        HP_STORE_REL(&hp_g.pathval, hp_rt_pathval_start(&c->pv));
    if (c->mode == HP_RUN_SHADOW) /* ... in shadows only (ctl/shadow_child.c sets them in the shadow) */
        HP_STORE_REL(&hp_g.shadow_pathval, hp_rt_pathval_start(&c->pv));
    if (c->mode == HP_RUN_TIMER) {
        char err[384];
        if (hp_timer_start(&c->timer, hp_g.seed, err, sizeof err)) {
            const char *parts[] = {err};
            hp_say(parts, 1);
            return;
        }
    }
    g_pid = pid;
    run_channel_open(c);
    output_path(c, pid);
    if (c->mode == HP_RUN_SHADOW && !setup_shadow(c)) return;
    hp_modules_refresh();
    if (!(g_output_exec ? open_output_exec() : open_output(0, 0))) {
        say_cannot_write();
        HP_STORE_REL(&hp_g.bursty, 0);
        HP_STORE_REL(&hp_g.xray, HP_XRAY_NONE);
        HP_STORE_REL(&hp_g.patch, 0);
        return;
    }
    char num[24];
    num[hp_fmt_u64(num, pid)] = 0;
    setenv("HOTPROF_CLAIMED", num, 1);
    install_signal_handlers();
    pthread_atfork(NULL, NULL, fork_child);
    on_exit(note_exit_status, NULL);
    /* --record-trace: this process's images (the first, and those it execs: HOTPROF_TRACE_PID is
     * this pid), not its children; each exec'd image appends to the same raw trace, same kind */
    if (c->trace && c->mode == HP_RUN_EXHAUSTIVE && (!c->trace_pid_given || c->trace_pid == pid)) {
        if (hp_rt_trace_start(c->trace, c->trace_kind, c->trace_limit) == 0)
            setenv("HOTPROF_TRACE_PID", num, 1), setenv("HOTPROF_TRACE_KIND", hp_rt_trace_kind_name(), 1);
        else
            unsetenv("HOTPROF_TRACE");
    }
    HP_STORE_REL(&hp_g.recording, 1);
    hp_xray_start();  /* XRay (ctl/xray.c): only when a probe found sleds */
    if (c->mode == HP_RUN_SHADOW) { /* the parent's sites off for good; the monitor (ctl/shadow.c) */
        hp_sites_start();
        hp_shadow_start();
    } else {
        /* patched call sites (ctl/sites.c): only when hp_sites_probe enabled them; with two-version
         * code, the dual sites and the call sites switch together (ctl/dual.c) */
        if (g_count) /* --bursts count: every site to its trampoline (return sites: with subpaths) */
            hp_dual_count_start(HP_LOAD_ACQ(&hp_g.osp) == HP_OSP_RT_COUNT);
        else if (hp_dual_start(c->window) != 0) hp_sites_start();
        if (c->mode == HP_RUN_EXHAUSTIVE || (c->mode == HP_RUN_BURSTY && !HP_LOAD_ACQ(&hp_g.patch) && !hp_g.xray && !g_count)) {
            /* two-version code (ctl/dual.c) with exhaustive or live hooks: every instrumented copy, always */
            HP_STORE_REL(&hp_g.dual, HP_DUAL_ALL);
            hp_dual_all_on();
        }
    }
    if (g_cfg.live) hp_live_start(); /* the live segment for `hotprof top` (live.c) */
}

HP_NOINST int hp_rt_ensure_init(void)
{
    if (HP_LIKELY(HP_LOAD_ACQ(&g_init_state) == 2)) return hp_g.recording;
    int expected = 0;
    if (__atomic_compare_exchange_n(&g_init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        g_init_owner = my_tid();
        do_init();
        HP_STORE_REL(&g_init_state, 2);
        return hp_g.recording;
    }
    if (HP_LOAD_RLX(&g_init_owner) == my_tid()) return -1; /* a hook inside our own init */
    while (HP_LOAD_ACQ(&g_init_state) != 2) sched_yield();
    return hp_g.recording;
}

static HP_NOINST void exec_resolve(void);

/* HOTPROF_MODE=timer (read with config.c's one parser; init reads it again, for good). */
static HP_NOINST int timer_mode_wanted(void)
{
    static hp_rt_config c; /* large: not on the stack */
    hp_rt_config_read(&c);
    return c.mode == HP_RUN_TIMER;
}

__attribute__((constructor(101))) static HP_NOINST void hp_rt_constructor(void)
{
    exec_resolve(); /* libc's exec functions, while no fork child can be calling them yet */
    /* instrumented (coverage guards or XRay sleds): start before main */
    if (HP_LOAD_ACQ(&hp_g.guards) > 0 || hp_xray_present() || hp_dual_present()) {
        int recording = hp_rt_ensure_init();
        /* not recording (--mode off, a failed init): the main thread's inline count sites never
         * run out, from its first event on. Else that event entered an instrumented copy, and a
         * function with a rejoin copy (docs/dual.md) ran the rest of its frame there: main, for
         * the whole run. */
        if (recording == 0 && hp_dual_count_sites()) hp_dual_countdown = DUAL_COUNT_NEVER;
    }
    if (hp_timer_thread_begin && timer_mode_wanted()) { /* preloaded, --mode timer: init, then the main thread's timer */
        hp_rt_ensure_init();
        hp_timer_thread_begin();
    }
}

__attribute__((destructor(101))) static HP_NOINST void hp_rt_destructor(void)
{
    if (HP_LOAD_ACQ(&g_init_state) != 2 || !hp_g.recording || HP_LOAD_ACQ(&hp_g.stopped)) return;
    if (g_cfg.mode == HP_RUN_SHADOW) hp_shadow_exit(); /* a shadow ends here; the parent reaps its shadows */
    hp_in_runtime++; /* this thread runs only the runtime from here (thread.h); never lowered: the process exits */
    hp_live_stop();
    hp_rt_ds_flush_self(); /* patch mode: this thread's last window of references */
    hp_modules_refresh();
    hp_group_stats st;
    report_group(hp_write_group(HP_GROUP_FINAL, g_exit_known ? g_exit_status : 0, 1, &st), &st, 0, "");
    hp_rt_trace_finish(); /* --record-trace: every buffer and the end record */
}

/* Before the process image is replaced (the exec wrappers below): its counts so far as a group flagged FINAL|EXEC
 * (the new image writes its own file, see output_path), but not the last one: if the exec
 * fails, recording goes on and the exit writes the real final group. Not in a vfork child
 * (another pid sharing our memory) nor after the final group. */
static HP_NOINST void hp_before_exec(void)
{
    if (HP_LOAD_ACQ(&g_init_state) != 2 || !hp_g.recording || HP_LOAD_ACQ(&hp_g.stopped)) return;
    if ((uint64_t)getpid() != g_pid) return;
    hp_live_stop(); /* the new image publishes its own */
    hp_rt_ds_flush_self();
    hp_rt_trace_exec(); /* the trace so far; the new image appends to it (HOTPROF_TRACE_PID) */
    hp_modules_refresh();
    hp_group_stats st;
    report_group(hp_write_group(HP_GROUP_FINAL | HP_GROUP_EXEC, 0, 0, &st), &st, 0, "; before exec");
}

/* ---------------------------------------------------------------- exec */

/* The exec family, interposed: before a process image is replaced, its profile gets the counts
 * recorded so far (hp_before_exec: a group flagged FINAL|EXEC), then libc's function runs. The
 * new image, if instrumented, sees HOTPROF_CLAIMED equal to its own pid and writes
 * <output>.<pid> (output_path), so neither image loses its counts. Here, in init, because exec
 * is a process life-cycle event like exit, a fatal signal and fork.
 *
 * Interposed: execve, execv, execvp, execvpe, execl, execle, execlp, fexecve (the calls a program
 * makes itself; exec calls inside libc — posix_spawn, system, popen — happen in a new process and
 * need nothing). execv/execvp/execl* are expressed with libc's execve/execvpe, found with
 * dlsym(RTLD_NEXT) once at startup by our constructor (exec_resolve), because a child of fork()
 * in a multithreaded program — the usual caller of exec — must not call dlsym (it may allocate).
 * If dlsym finds nothing (a static program), execve is the system call and execvpe searches
 * PATH itself; fexecve fails with ENOSYS. Async-signal-safe once resolved (exec may be called
 * from a signal handler or a fork child): the stack and system calls only, besides
 * hp_before_exec, which does nothing in a vfork child or a fork child that does not record.
 */
extern char **environ;

typedef int (*exec3_fn)(const char *, char *const[], char *const[]);
typedef int (*fexec_fn)(int, char *const[], char *const[]);

static exec3_fn g_execve, g_execvpe;
static fexec_fn g_fexecve;
static int g_resolved;


static HP_NOINST void exec_resolve(void)
{
    if (HP_LOAD_ACQ(&g_resolved)) return;
    g_execve = (exec3_fn)dlsym(RTLD_NEXT, "execve");
    g_execvpe = (exec3_fn)dlsym(RTLD_NEXT, "execvpe");
    g_fexecve = (fexec_fn)dlsym(RTLD_NEXT, "fexecve");
    HP_STORE_REL(&g_resolved, 1);
}

static HP_NOINST int sys_execve(const char *path, char *const argv[], char *const envp[])
{
    if (g_execve) return g_execve(path, argv, envp);
    return (int)syscall(SYS_execve, path, argv, envp);
}

/* execvpe without libc's: each PATH directory in turn (static programs only). */
static HP_NOINST int search_execvpe(const char *file, char *const argv[], char *const envp[])
{
    if (strchr(file, '/')) return sys_execve(file, argv, envp);
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin";
    char buf[4096];
    int err = ENOENT;
    size_t flen = strlen(file);
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        if (dlen + flen + 2 <= sizeof buf) {
            memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
            size_t n = dlen ? dlen : 1;
            buf[n++] = '/';
            memcpy(buf + n, file, flen + 1);
            sys_execve(buf, argv, envp);
            if (errno != ENOENT && errno != ENOTDIR) err = errno;
        }
        if (!colon) break;
        p = colon;
    }
    errno = err;
    return -1;
}

HP_API int execve(const char *path, char *const argv[], char *const envp[])
{
    exec_resolve();
    hp_before_exec();
    return sys_execve(path, argv, envp);
}

HP_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
    exec_resolve();
    hp_before_exec();
    return g_execvpe ? g_execvpe(file, argv, envp) : search_execvpe(file, argv, envp);
}

HP_API int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
HP_API int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

HP_API int fexecve(int fd, char *const argv[], char *const envp[])
{
    exec_resolve();
    if (!g_fexecve) {
        errno = ENOSYS;
        return -1;
    }
    hp_before_exec();
    return g_fexecve(fd, argv, envp);
}

/* execl/execlp/execle: arg (never NULL: glibc declares it nonnull) and the variadic arguments up
 * to their NULL, into argv on the caller's stack (a VLA; no allocation). */
static HP_NOINST size_t count_args(va_list ap)
{
    size_t n = 1;
    while (va_arg(ap, const char *)) n++;
    return n;
}

static HP_NOINST void fill_args(char **argv, size_t n, const char *arg, va_list ap)
{
    argv[0] = (char *)arg;
    for (size_t i = 1; i < n; i++) argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

/* Declares char *argv[] holding arg and the variadic arguments up to their NULL, and leaves ap
 * started just past them (the caller ends it). */
#define COLLECT_ARGV(argv, ap, arg)                                                                \
    va_list ap;                                                                                    \
    va_start(ap, arg);                                                                             \
    size_t argc_ = count_args(ap);                                                                 \
    va_end(ap);                                                                                    \
    char *argv[argc_ + 1];                                                                         \
    va_start(ap, arg);                                                                             \
    fill_args(argv, argc_, arg, ap)

HP_API int execl(const char *path, const char *arg, ...)
{
    COLLECT_ARGV(argv, ap, arg);
    va_end(ap);
    return execve(path, argv, environ);
}

HP_API int execlp(const char *file, const char *arg, ...)
{
    COLLECT_ARGV(argv, ap, arg);
    va_end(ap);
    return execvpe(file, argv, environ);
}

HP_API int execle(const char *path, const char *arg, ...)
{
    COLLECT_ARGV(argv, ap, arg);
    (void)va_arg(ap, char *); /* the NULL after the arguments */
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}

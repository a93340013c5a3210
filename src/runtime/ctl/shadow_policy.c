/* shadow_policy.c — the system-call policy of a shadow (docs/shadow.md, the policy table): which
 * category each call is in and what the SIGSYS handler (shadow_sys.c) does with it. Pure: a
 * table and a few argument tests, no system call, no writable data (unit-tested alone:
 * tests/unit/test_shadow_policy.c).
 *
 * Categories (the paper's §3.2): benign calls run (they change only the shadow's own process:
 * memory, its descriptor table, its signal state, clocks, read-only file access); output calls
 * report success and change nothing; input calls read the world (a regular file is read at the
 * shadow's own offset and runs; a pipe, socket or tty ends the shadow, since the parent would
 * miss the bytes); unsafe calls (processes, signals to others, network connections, file
 * mappings, unknown calls) end the shadow. Every call not in the table is unsafe.
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>

#define B HP_SYS_BENIGN
#define O HP_SYS_OUTPUT
#define I HP_SYS_INPUT
#define U HP_SYS_UNSAFE

static const hp_sys_rule g_rules[] = {
    /* benign: the shadow's own memory, descriptors, signals, clocks, identity */
    {SYS_brk, B, HP_ACT_RUN}, {SYS_munmap, B, HP_ACT_RUN}, {SYS_mprotect, B, HP_ACT_MPROTECT},
    {SYS_madvise, B, HP_ACT_RUN}, {SYS_mincore, B, HP_ACT_RUN}, {SYS_mlock, B, HP_ACT_RUN}, {SYS_munlock, B, HP_ACT_RUN},
    {SYS_rt_sigaction, B, HP_ACT_RUN}, {SYS_rt_sigprocmask, B, HP_ACT_RUN}, {SYS_sigaltstack, B, HP_ACT_RUN},
    {SYS_rt_sigpending, B, HP_ACT_RUN},
    {SYS_getpid, B, HP_ACT_RUN}, {SYS_getppid, B, HP_ACT_RUN}, {SYS_getuid, B, HP_ACT_RUN}, {SYS_geteuid, B, HP_ACT_RUN},
    {SYS_getgid, B, HP_ACT_RUN}, {SYS_getegid, B, HP_ACT_RUN}, {SYS_getpgrp, B, HP_ACT_RUN}, {SYS_getpgid, B, HP_ACT_RUN},
    {SYS_getsid, B, HP_ACT_RUN}, {SYS_getgroups, B, HP_ACT_RUN}, {SYS_getresuid, B, HP_ACT_RUN}, {SYS_getresgid, B, HP_ACT_RUN},
    {SYS_uname, B, HP_ACT_RUN}, {SYS_sysinfo, B, HP_ACT_RUN}, {SYS_getrlimit, B, HP_ACT_RUN}, {SYS_prlimit64, B, HP_ACT_RUN},
    {SYS_getrusage, B, HP_ACT_RUN}, {SYS_times, B, HP_ACT_RUN}, {SYS_getcwd, B, HP_ACT_RUN}, {SYS_umask, B, HP_ACT_RUN},
    {SYS_clock_gettime, B, HP_ACT_RUN}, {SYS_clock_getres, B, HP_ACT_RUN}, {SYS_gettimeofday, B, HP_ACT_RUN},
    {SYS_time, B, HP_ACT_RUN}, {SYS_nanosleep, B, HP_ACT_RUN}, {SYS_clock_nanosleep, B, HP_ACT_RUN},
    {SYS_sched_yield, B, HP_ACT_RUN}, {SYS_sched_getaffinity, B, HP_ACT_RUN}, {SYS_getrandom, B, HP_ACT_RUN},
    {SYS_set_robust_list, B, HP_ACT_RUN}, {SYS_get_robust_list, B, HP_ACT_RUN}, {SYS_set_tid_address, B, HP_ACT_RUN},
    {SYS_arch_prctl, B, HP_ACT_RUN}, {SYS_rseq, B, HP_ACT_RUN},
    {SYS_fstat, B, HP_ACT_RUN}, {SYS_stat, B, HP_ACT_RUN}, {SYS_lstat, B, HP_ACT_RUN}, {SYS_newfstatat, B, HP_ACT_RUN},
    {SYS_statx, B, HP_ACT_RUN}, {SYS_statfs, B, HP_ACT_RUN}, {SYS_fstatfs, B, HP_ACT_RUN}, {SYS_access, B, HP_ACT_RUN},
    {SYS_faccessat, B, HP_ACT_RUN}, {SYS_faccessat2, B, HP_ACT_RUN}, {SYS_readlink, B, HP_ACT_RUN},
    {SYS_readlinkat, B, HP_ACT_RUN}, {SYS_getdents64, B, HP_ACT_RUN}, {SYS_pread64, B, HP_ACT_RUN},
    {SYS_preadv, B, HP_ACT_RUN}, {SYS_close, B, HP_ACT_CLOSE}, {SYS_dup, B, HP_ACT_RUN}, {SYS_dup2, B, HP_ACT_RUN},
    {SYS_dup3, B, HP_ACT_RUN}, {SYS_pipe, B, HP_ACT_RUN}, {SYS_pipe2, B, HP_ACT_RUN}, {SYS_poll, B, HP_ACT_RUN},
    {SYS_ppoll, B, HP_ACT_RUN}, {SYS_fcntl, B, HP_ACT_RUN}, {SYS_ioctl, B, HP_ACT_RUN},
    {SYS_gettid, B, HP_ACT_RUN}, {SYS_futex, B, HP_ACT_RUN}, {SYS_mmap, B, HP_ACT_RUN}, /* both pass the filter when anonymous / always */
    /* open: read-only runs; a write or create gets a /dev/null descriptor (output) */
    {SYS_open, B, HP_ACT_OPEN}, {SYS_openat, B, HP_ACT_OPEN}, {SYS_creat, O, HP_ACT_OPEN},
    /* input: the shadow's own offset; pipes, sockets and ttys end it */
    {SYS_read, I, HP_ACT_READ}, {SYS_readv, I, HP_ACT_READ}, {SYS_lseek, I, HP_ACT_LSEEK},
    {SYS_recvfrom, I, HP_ACT_END}, {SYS_recvmsg, I, HP_ACT_END}, {SYS_recvmmsg, I, HP_ACT_END},
    /* output: success, nothing done */
    {SYS_write, O, HP_ACT_RETURN_N}, {SYS_writev, O, HP_ACT_RETURN_N}, {SYS_pwrite64, O, HP_ACT_RETURN_N},
    {SYS_pwritev, O, HP_ACT_RETURN_N}, {SYS_sendto, O, HP_ACT_RETURN_N}, {SYS_sendmsg, O, HP_ACT_RETURN_N},
    {SYS_ftruncate, O, HP_ACT_RETURN_0}, {SYS_truncate, O, HP_ACT_RETURN_0}, {SYS_rename, O, HP_ACT_RETURN_0},
    {SYS_renameat, O, HP_ACT_RETURN_0}, {SYS_renameat2, O, HP_ACT_RETURN_0}, {SYS_unlink, O, HP_ACT_RETURN_0},
    {SYS_unlinkat, O, HP_ACT_RETURN_0}, {SYS_mkdir, O, HP_ACT_RETURN_0}, {SYS_mkdirat, O, HP_ACT_RETURN_0},
    {SYS_rmdir, O, HP_ACT_RETURN_0}, {SYS_chmod, O, HP_ACT_RETURN_0}, {SYS_fchmod, O, HP_ACT_RETURN_0},
    {SYS_fchmodat, O, HP_ACT_RETURN_0}, {SYS_chown, O, HP_ACT_RETURN_0}, {SYS_fchown, O, HP_ACT_RETURN_0},
    {SYS_lchown, O, HP_ACT_RETURN_0}, {SYS_fchownat, O, HP_ACT_RETURN_0}, {SYS_link, O, HP_ACT_RETURN_0},
    {SYS_linkat, O, HP_ACT_RETURN_0}, {SYS_symlink, O, HP_ACT_RETURN_0}, {SYS_symlinkat, O, HP_ACT_RETURN_0},
    {SYS_utimensat, O, HP_ACT_RETURN_0}, {SYS_utimes, O, HP_ACT_RETURN_0}, {SYS_utime, O, HP_ACT_RETURN_0},
    {SYS_fsync, O, HP_ACT_RETURN_0}, {SYS_fdatasync, O, HP_ACT_RETURN_0}, {SYS_sync, O, HP_ACT_RETURN_0},
    {SYS_syncfs, O, HP_ACT_RETURN_0}, {SYS_sync_file_range, O, HP_ACT_RETURN_0}, {SYS_fallocate, O, HP_ACT_RETURN_0},
    {SYS_flock, O, HP_ACT_RETURN_0}, {SYS_shutdown, O, HP_ACT_RETURN_0}, {SYS_msync, O, HP_ACT_RETURN_0},
    /* the program ends in the shadow */
    {SYS_exit_group, B, HP_ACT_EXIT}, {SYS_exit, B, HP_ACT_EXIT},
};

#undef B
#undef O
#undef I
#undef U

/* Benign calls whose arguments can make them output or unsafe. */
static hp_sys_rule refine(hp_sys_rule r, const uint64_t a[6], int sig)
{
    static const hp_sys_rule output0 = {0, HP_SYS_OUTPUT, HP_ACT_RETURN_0}, unsafe = {0, HP_SYS_UNSAFE, HP_ACT_END};
    int nr = r.nr;
    if (nr == SYS_fcntl) { /* the open file description (shared with the parent) and locks: output */
        int cmd = (int)a[1];
        if (cmd == F_SETFL || cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW ||
            cmd == F_SETOWN || cmd == F_SETSIG || cmd == F_SETLEASE || cmd == F_NOTIFY || cmd == F_SETPIPE_SZ)
            return (hp_sys_rule){nr, output0.cat, output0.act};
    }
    if (nr == SYS_ioctl) { /* only queries that change nothing */
        unsigned long req = (unsigned long)a[1];
        if (req != TCGETS && req != TIOCGWINSZ && req != FIONREAD && req != TIOCGPGRP) return (hp_sys_rule){nr, unsafe.cat, unsafe.act};
    }
    if (nr == SYS_mmap && (int)a[4] != -1 && !(a[3] & MAP_ANONYMOUS)) return (hp_sys_rule){nr, unsafe.cat, unsafe.act};
    if (nr == SYS_rt_sigaction) { /* the shadow's own handlers must stay */
        int s = (int)a[0];
        if (a[1] && (s == SIGSYS || s == SIGSEGV || s == SIGBUS || s == sig)) return (hp_sys_rule){nr, unsafe.cat, unsafe.act};
    }
    return r;
}

hp_sys_rule hp_shadow_rule(long nr, const uint64_t a[6], int sig)
{
    for (size_t i = 0; i < sizeof g_rules / sizeof g_rules[0]; i++)
        if (g_rules[i].nr == nr) return refine(g_rules[i], a, sig);
    return (hp_sys_rule){(int)nr, HP_SYS_UNSAFE, HP_ACT_END};
}

/* Every call the handler may execute itself: the RUN, OPEN, CLOSE, MPROTECT rules, and what
 * READ, LSEEK and EXIT use (fstat, lseek, pread64, preadv, dup, exit_group). */
static const int g_run_calls[] = {
    SYS_brk, SYS_munmap, SYS_mprotect, SYS_madvise, SYS_mincore, SYS_mlock, SYS_munlock, SYS_rt_sigaction,
    SYS_rt_sigprocmask, SYS_sigaltstack, SYS_rt_sigpending, SYS_getpid, SYS_getppid, SYS_getuid, SYS_geteuid,
    SYS_getgid, SYS_getegid, SYS_getpgrp, SYS_getpgid, SYS_getsid, SYS_getgroups, SYS_getresuid, SYS_getresgid,
    SYS_uname, SYS_sysinfo, SYS_getrlimit, SYS_prlimit64, SYS_getrusage, SYS_times, SYS_getcwd, SYS_umask,
    SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_time, SYS_nanosleep, SYS_clock_nanosleep,
    SYS_sched_yield, SYS_sched_getaffinity, SYS_getrandom, SYS_set_robust_list, SYS_get_robust_list,
    SYS_set_tid_address, SYS_arch_prctl, SYS_rseq, SYS_fstat, SYS_stat, SYS_lstat, SYS_newfstatat, SYS_statx,
    SYS_statfs, SYS_fstatfs, SYS_access, SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat,
    SYS_getdents64, SYS_pread64, SYS_preadv, SYS_close, SYS_dup, SYS_dup2, SYS_dup3, SYS_pipe, SYS_pipe2, SYS_poll,
    SYS_ppoll, SYS_fcntl, SYS_ioctl, SYS_gettid, SYS_open, SYS_openat, SYS_read, SYS_readv, SYS_lseek, SYS_exit_group,
};

const int *hp_shadow_run_calls(size_t *n)
{
    *n = sizeof g_run_calls / sizeof g_run_calls[0];
    return g_run_calls;
}

const char *hp_shadow_end_name(int reason)
{
    static const char *const names[HP_END_N] = {"sample", "input", "unsafe", "shared_write", "fault", "exit", "setup",
                                                "parent_exit", "slice"};
    return reason >= 0 && reason < HP_END_N ? names[reason] : "?";
}

/* shadow_sys.c — a shadow's SIGSYS handler: every call the filter traps (shadow_filter.c) comes
 * here, is classified by the policy (shadow_policy.c) and counted by category, then run, emulated
 * or made the end of the shadow.
 *
 * Reads: a descriptor's file offset lives in the open file description, which the shadow shares
 * with the parent, so a shadow never moves it: read/readv of a regular file become pread64/preadv
 * at the shadow's OWN offset for that descriptor, initialised from lseek(fd, 0, SEEK_CUR) (which
 * moves nothing) at its first use; lseek is answered from that offset. close forgets it.
 * Descriptors opened for writing are dups of /dev/null (HP_SHADOW_NULL_FD): their reads return 0.
 * Descriptors at or above HP_SHADOW_TRACK_FDS cannot be tracked: a read on one ends the shadow.
 *
 * State: the per-descriptor table and the category counts, file-static (a shadow has one thread).
 * The monitor's signal stays open in this handler and is taken out of every set the program
 * blocks (rt_sigprocmask): it carries the shadow's ticks and PDEATHSIG (shadow_child.c), so a
 * shadow blocked in a call run from here, or in one that blocked the signal, still ends when
 * the profiled process dies.
 * Async-signal-safe: raw system calls (hp_sys6, with the cookie) and memory only.
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

static uint64_t g_counts[HP_SYS_NCAT]; /* this shadow's trapped calls by category */

uint64_t hp_shadow_sys_count(int cat) { return cat >= 0 && cat < HP_SYS_NCAT ? g_counts[cat] : 0; }

enum { FD_UNKNOWN = 0, FD_TRACKED = 1, FD_SINK = 2 };
static struct { uint8_t state; int64_t off; } g_fds[HP_SHADOW_TRACK_FDS];

static HP_NOINST long run(long nr, const uint64_t a[6])
{
    return hp_sys6(nr, a[0], a[1], a[2], a[3], a[4], hp_shadow_cfg_get()->cookie);
}
static HP_NOINST long call3(long nr, uint64_t a1, uint64_t a2, uint64_t a3)
{
    return hp_sys6(nr, a1, a2, a3, 0, 0, hp_shadow_cfg_get()->cookie);
}

static HP_NOINST uint64_t iov_bytes(const struct iovec *iov, uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t i = 0; iov && i < n && i < 1024; i++) s += iov[i].iov_len;
    return s;
}

/* What an emulated output call returns: the bytes it would have written. */
static HP_NOINST long output_count(long nr, const uint64_t a[6])
{
    if (nr == SYS_writev || nr == SYS_pwritev) return (long)iov_bytes((const struct iovec *)(uintptr_t)a[1], a[2]);
    if (nr == SYS_sendmsg) {
        const struct msghdr *m = (const struct msghdr *)(uintptr_t)a[1];
        return m ? (long)iov_bytes(m->msg_iov, m->msg_iovlen) : 0;
    }
    return (long)a[2]; /* write, pwrite64, sendto */
}

/* open/openat/creat: read-only runs; anything that may write gets a /dev/null descriptor. */
static HP_NOINST long do_open(long nr, const uint64_t a[6], hp_sys_rule *r)
{
    int flags = nr == SYS_openat ? (int)a[2] : nr == SYS_open ? (int)a[1] : O_WRONLY | O_CREAT;
    long fd;
    if ((flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE))) {
        fd = run(nr, a);
    } else {
        r->cat = HP_SYS_OUTPUT;
        fd = hp_sys6(SYS_fcntl, HP_SHADOW_NULL_FD, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0, 0, 0,
                     hp_shadow_cfg_get()->cookie);
    }
    if (fd >= 0 && fd < HP_SHADOW_TRACK_FDS) g_fds[fd].state = r->cat == HP_SYS_OUTPUT ? FD_SINK : FD_UNKNOWN;
    return fd;
}

/* 1 if fd may be read as it is (a device whose reads change nothing for anyone else). */
static HP_NOINST int harmless_device(const struct stat *st)
{
    unsigned ma = major(st->st_rdev), mi = minor(st->st_rdev);
    return S_ISCHR(st->st_mode) && ma == 1 && (mi == 3 || mi == 5 || mi == 8 || mi == 9); /* null zero random urandom */
}

/* The fd's tracked state: FD_TRACKED (regular file, offset known), FD_SINK, or -1 (end the shadow) or
 * 0 (run the call as it is: a harmless device). */
static HP_NOINST int fd_kind(int fd)
{
    if (fd < 0 || fd >= HP_SHADOW_TRACK_FDS) return -1;
    if (g_fds[fd].state != FD_UNKNOWN) return g_fds[fd].state;
    struct stat st;
    if (call3(SYS_fstat, (uint64_t)fd, (uint64_t)(uintptr_t)&st, 0) != 0) return 0; /* EBADF etc.: let it fail */
    if (harmless_device(&st)) return 0;
    if (!S_ISREG(st.st_mode)) return -1;
    long off = call3(SYS_lseek, (uint64_t)fd, 0, SEEK_CUR);
    if (off < 0) return -1;
    g_fds[fd].state = FD_TRACKED, g_fds[fd].off = off;
    return FD_TRACKED;
}

/* read/readv. *end set when the shadow must end (input from the world). */
static HP_NOINST long do_read(long nr, const uint64_t a[6], int *end)
{
    int fd = (int)a[0], kind = fd_kind(fd);
    if (kind < 0) return *end = 1, 0;
    if (kind == 0) return run(nr, a);
    if (kind == FD_SINK) return 0;
    long got = nr == SYS_read ? hp_sys6(SYS_pread64, a[0], a[1], a[2], (uint64_t)g_fds[fd].off, 0, hp_shadow_cfg_get()->cookie)
                              : hp_sys6(SYS_preadv, a[0], a[1], a[2], (uint64_t)g_fds[fd].off, 0, hp_shadow_cfg_get()->cookie);
    if (got > 0) g_fds[fd].off += got;
    return got;
}

static HP_NOINST long do_lseek(const uint64_t a[6])
{
    int fd = (int)a[0], kind = fd_kind(fd);
    if (kind != FD_TRACKED) return kind == FD_SINK ? 0 : run(SYS_lseek, a); /* pipes: ESPIPE, devices: 0 */
    int64_t base = 0, want;
    if ((int)a[2] == SEEK_CUR) base = g_fds[fd].off;
    else if ((int)a[2] == SEEK_END) {
        struct stat st;
        if (call3(SYS_fstat, (uint64_t)fd, (uint64_t)(uintptr_t)&st, 0) != 0) return -EBADF;
        base = st.st_size;
    } else if ((int)a[2] != SEEK_SET) return -EINVAL;
    want = base + (int64_t)a[1];
    if (want < 0) return -EINVAL;
    return g_fds[fd].off = want;
}

static HP_NOINST long do_mmap(const uint64_t a[6])
{   /* anonymous (the filter traps only an fd that is not -1): issued again with fd -1, which passes */
    return hp_sys6(SYS_mmap, a[0], a[1], a[2], a[3], (uint64_t)-1, 0);
}

/* rt_sigprocmask: the monitor's signal is never blocked by the program in a shadow (it carries the
 * shadow's CPU ticks and PDEATHSIG: a shadow blocking it could outlive a killed parent). */
static HP_NOINST long do_sigprocmask(const uint64_t a[6])
{
    int sig = hp_shadow_cfg_get()->spec.signal;
    if ((int)a[0] == SIG_UNBLOCK || !a[1] || a[3] != sizeof(uint64_t)) return run(SYS_rt_sigprocmask, a);
    uint64_t set = *(const uint64_t *)(uintptr_t)a[1] & ~(1ull << (sig - 1));
    const uint64_t b[6] = {a[0], (uint64_t)(uintptr_t)&set, a[2], a[3], a[4], a[5]};
    return run(SYS_rt_sigprocmask, b);
}

/* The result of the call, or sets *end (the shadow's reason). */
static HP_NOINST long handle(long nr, const uint64_t a[6], int *end)
{
    hp_sys_rule r = hp_shadow_rule(nr, a, hp_shadow_cfg_get()->spec.signal);
    long res = 0;
    switch (r.act) {
    case HP_ACT_RUN: res = nr == SYS_mmap ? do_mmap(a) : nr == SYS_rt_sigprocmask ? do_sigprocmask(a) : run(nr, a); break;
    case HP_ACT_RETURN_N: res = output_count(nr, a); break;
    case HP_ACT_RETURN_0: res = 0; break;
    case HP_ACT_OPEN: res = do_open(nr, a, &r); break;
    case HP_ACT_READ: res = do_read(nr, a, end); if (*end) *end = HP_END_INPUT + 1; break;
    case HP_ACT_LSEEK: res = do_lseek(a); break;
    case HP_ACT_CLOSE:
        if ((int)a[0] == HP_SHADOW_PROFILE_FD || (int)a[0] == HP_SHADOW_NULL_FD) break; /* ours: pretend */
        res = run(nr, a);
        if ((int)a[0] >= 0 && (int)a[0] < HP_SHADOW_TRACK_FDS) g_fds[a[0]].state = FD_UNKNOWN;
        break;
    case HP_ACT_MPROTECT:
        if ((a[2] & PROT_WRITE) && hp_shadow_protected(a[0], a[1])) *end = HP_END_UNSAFE + 1, r.cat = HP_SYS_UNSAFE;
        else res = run(nr, a);
        break;
    case HP_ACT_EXIT: *end = HP_END_EXIT + 1; break;
    default: *end = (r.cat == HP_SYS_INPUT ? HP_END_INPUT : HP_END_UNSAFE) + 1; break;
    }
    g_counts[r.cat]++;
    return res;
}

static HP_NOINST void on_sigsys(int signo, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    const uint64_t a[6] = {(uint64_t)g[REG_RDI], (uint64_t)g[REG_RSI], (uint64_t)g[REG_RDX],
                           (uint64_t)g[REG_R10], (uint64_t)g[REG_R8],  (uint64_t)g[REG_R9]};
    int end = 0;
    long res = handle(si->si_syscall, a, &end);
    if (end) hp_shadow_child_end(end - 1); /* never returns */
    g[REG_RAX] = res;
}

HP_NOINST void hp_shadow_sys_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSYS); /* blocked, a trap would kill the process */
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    sigdelset(&sa.sa_mask, hp_shadow_cfg_get()->spec.signal); /* a call run here may block (nanosleep,
                                                                  poll): PDEATHSIG must still arrive */
    sigaction(SIGSYS, &sa, NULL);
}

/* test_shadow_policy.c — runtime/ctl/shadow_policy.c, a shadow's system-call policy table:
 *   - each documented call is in its category with its action (benign runs, output is emulated,
 *     file reads go through the shadow's own offset, pipes/sockets/processes end the shadow);
 *   - calls whose arguments decide: fcntl (F_SETFL and locks are output, F_GETFL runs), ioctl (only
 *     terminal and FIONREAD queries run), mmap (a file mapping is unsafe, anonymous runs),
 *     rt_sigaction (taking SIGSYS, SIGSEGV, SIGBUS or the monitor's signal is unsafe);
 *   - an unknown call number is unsafe;
 *   - every call the policy may run is in the filter's cookie list (hp_shadow_run_calls), and no
 *     output or ending call is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include "runtime/ctl/shadow_int.h"
#include "test.h"

static hp_sys_rule rule(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
    const uint64_t a[6] = {a0, a1, a2, a3, a4, 0};
    return hp_shadow_rule(nr, a, 40);
}

static int in_run_list(int nr)
{
    size_t n;
    const int *run = hp_shadow_run_calls(&n);
    for (size_t i = 0; i < n; i++)
        if (run[i] == nr) return 1;
    return 0;
}

TEST(categories)
{
    static const struct { long nr; int cat, act; } want[] = {
        {SYS_getpid, HP_SYS_BENIGN, HP_ACT_RUN},         {SYS_clock_gettime, HP_SYS_BENIGN, HP_ACT_RUN},
        {SYS_brk, HP_SYS_BENIGN, HP_ACT_RUN},            {SYS_munmap, HP_SYS_BENIGN, HP_ACT_RUN},
        {SYS_mprotect, HP_SYS_BENIGN, HP_ACT_MPROTECT},  {SYS_rt_sigprocmask, HP_SYS_BENIGN, HP_ACT_RUN},
        {SYS_fstat, HP_SYS_BENIGN, HP_ACT_RUN},          {SYS_newfstatat, HP_SYS_BENIGN, HP_ACT_RUN},
        {SYS_pread64, HP_SYS_BENIGN, HP_ACT_RUN},        {SYS_close, HP_SYS_BENIGN, HP_ACT_CLOSE},
        {SYS_openat, HP_SYS_BENIGN, HP_ACT_OPEN},        {SYS_exit_group, HP_SYS_BENIGN, HP_ACT_EXIT},
        {SYS_write, HP_SYS_OUTPUT, HP_ACT_RETURN_N},     {SYS_writev, HP_SYS_OUTPUT, HP_ACT_RETURN_N},
        {SYS_pwrite64, HP_SYS_OUTPUT, HP_ACT_RETURN_N},  {SYS_pwritev, HP_SYS_OUTPUT, HP_ACT_RETURN_N},
        {SYS_sendto, HP_SYS_OUTPUT, HP_ACT_RETURN_N},    {SYS_sendmsg, HP_SYS_OUTPUT, HP_ACT_RETURN_N},
        {SYS_ftruncate, HP_SYS_OUTPUT, HP_ACT_RETURN_0}, {SYS_rename, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_renameat2, HP_SYS_OUTPUT, HP_ACT_RETURN_0}, {SYS_unlinkat, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_mkdir, HP_SYS_OUTPUT, HP_ACT_RETURN_0},     {SYS_rmdir, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_fchmodat, HP_SYS_OUTPUT, HP_ACT_RETURN_0},  {SYS_chown, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_link, HP_SYS_OUTPUT, HP_ACT_RETURN_0},      {SYS_symlink, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_utimensat, HP_SYS_OUTPUT, HP_ACT_RETURN_0}, {SYS_fsync, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_fallocate, HP_SYS_OUTPUT, HP_ACT_RETURN_0}, {SYS_truncate, HP_SYS_OUTPUT, HP_ACT_RETURN_0},
        {SYS_creat, HP_SYS_OUTPUT, HP_ACT_OPEN},         {SYS_read, HP_SYS_INPUT, HP_ACT_READ},
        {SYS_readv, HP_SYS_INPUT, HP_ACT_READ},          {SYS_lseek, HP_SYS_INPUT, HP_ACT_LSEEK},
        {SYS_recvfrom, HP_SYS_INPUT, HP_ACT_END},        {SYS_recvmsg, HP_SYS_INPUT, HP_ACT_END},
        {SYS_fork, HP_SYS_UNSAFE, HP_ACT_END},           {SYS_vfork, HP_SYS_UNSAFE, HP_ACT_END},
        {SYS_clone, HP_SYS_UNSAFE, HP_ACT_END},          {SYS_clone3, HP_SYS_UNSAFE, HP_ACT_END},
        {SYS_execve, HP_SYS_UNSAFE, HP_ACT_END},         {SYS_kill, HP_SYS_UNSAFE, HP_ACT_END},
        {SYS_tgkill, HP_SYS_UNSAFE, HP_ACT_END},         {SYS_connect, HP_SYS_UNSAFE, HP_ACT_END},
        {SYS_ptrace, HP_SYS_UNSAFE, HP_ACT_END},         {SYS_wait4, HP_SYS_UNSAFE, HP_ACT_END},
        {SYS_sendfile, HP_SYS_UNSAFE, HP_ACT_END},       {SYS_mremap, HP_SYS_UNSAFE, HP_ACT_END},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        hp_sys_rule r = rule(want[i].nr, 3, 0, 0, 0, 0);
        CHECK(r.cat == want[i].cat);
        CHECK(r.act == want[i].act);
        if (r.cat != want[i].cat || r.act != want[i].act)
            fprintf(stderr, "  syscall %ld: category %d action %d\n", want[i].nr, r.cat, r.act);
    }
    hp_sys_rule u = rule(100000, 0, 0, 0, 0, 0);
    CHECK(u.cat == HP_SYS_UNSAFE && u.act == HP_ACT_END);
}

TEST(arguments_decide)
{
    CHECK(rule(SYS_fcntl, 3, F_GETFL, 0, 0, 0).act == HP_ACT_RUN);
    CHECK(rule(SYS_fcntl, 3, F_DUPFD_CLOEXEC, 0, 0, 0).act == HP_ACT_RUN);
    CHECK(rule(SYS_fcntl, 3, F_SETFL, O_NONBLOCK, 0, 0).cat == HP_SYS_OUTPUT); /* the parent's description */
    CHECK(rule(SYS_fcntl, 3, F_SETLK, 0, 0, 0).act == HP_ACT_RETURN_0);
    CHECK(rule(SYS_ioctl, 1, TCGETS, 0, 0, 0).act == HP_ACT_RUN);
    CHECK(rule(SYS_ioctl, 1, TIOCGWINSZ, 0, 0, 0).act == HP_ACT_RUN);
    CHECK(rule(SYS_ioctl, 1, TCSETS, 0, 0, 0).cat == HP_SYS_UNSAFE);
    CHECK(rule(SYS_ioctl, 1, FIONBIO, 0, 0, 0).act == HP_ACT_END);
    CHECK(rule(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, 5).cat == HP_SYS_UNSAFE); /* a file mapping */
    CHECK(rule(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, 5).act == HP_ACT_RUN);
    CHECK(rule(SYS_rt_sigaction, SIGSYS, 0x1000, 0, 8, 0).cat == HP_SYS_UNSAFE);
    CHECK(rule(SYS_rt_sigaction, 40, 0x1000, 0, 8, 0).cat == HP_SYS_UNSAFE);  /* the monitor's signal */
    CHECK(rule(SYS_rt_sigaction, 40, 0, 0x1000, 8, 0).act == HP_ACT_RUN);     /* only asking */
    CHECK(rule(SYS_rt_sigaction, SIGUSR1, 0x1000, 0, 8, 0).act == HP_ACT_RUN);
}

TEST(run_list_matches_the_table)
{
    for (long nr = 0; nr < 460; nr++) {
        hp_sys_rule r = rule(nr, 3, F_GETFL, 0, MAP_ANONYMOUS, (uint64_t)-1);
        int runs = r.act == HP_ACT_RUN || r.act == HP_ACT_CLOSE || r.act == HP_ACT_MPROTECT || r.act == HP_ACT_OPEN;
        if (nr == SYS_mmap || nr == SYS_futex || nr == SYS_gettid) continue; /* pass the filter without the cookie */
        if (nr == SYS_creat) runs = 0;                                       /* always a /dev/null dup */
        if (nr == SYS_ioctl || nr == SYS_fcntl || nr == SYS_rt_sigaction) continue; /* run or not by argument: above */
        if (runs) CHECK(in_run_list((int)nr));
        if (runs && !in_run_list((int)nr)) fprintf(stderr, "  syscall %ld runs but is not in the cookie list\n", nr);
        if (r.act == HP_ACT_RETURN_N || r.act == HP_ACT_RETURN_0 || r.act == HP_ACT_END) CHECK(!in_run_list((int)nr));
        if ((r.act == HP_ACT_RETURN_N || r.act == HP_ACT_RETURN_0 || r.act == HP_ACT_END) && in_run_list((int)nr))
            fprintf(stderr, "  syscall %ld is output or ends the shadow but is in the cookie list\n", nr);
    }
    CHECK(in_run_list(SYS_pread64) && in_run_list(SYS_preadv) && in_run_list(SYS_lseek) && in_run_list(SYS_exit_group));
    CHECK(strcmp(hp_shadow_end_name(HP_END_SAMPLE), "sample") == 0 && strcmp(hp_shadow_end_name(HP_END_N), "?") == 0);
}

int main(void)
{
    RUN(categories);
    RUN(arguments_decide);
    RUN(run_list_matches_the_table);
    return test_main_end();
}

/* run_child.c — start the profiled program, forward termination signals to it, wait for it
 * (run_child.h). The forwarded signals are blocked from before fork() until the child's pid is
 * known, so one arriving in between is delivered (and forwarded) right after; the child restores
 * the dispositions hotprof started with, and its mask, before exec. An exec failure reaches the
 * parent as an errno through a close-on-exec pipe. hp_spawn_child (`hotprof top`) starts the
 * program the same way but returns at once (the caller waits and forwards signals). */
#define _GNU_SOURCE
#include "cli/run_child.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};
#define NFORWARDED (int)(sizeof forwarded / sizeof forwarded[0])

static volatile sig_atomic_t child_pid; /* 0 until forked */

static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* SI_KERNEL: the terminal signalled the whole process group, the program included. */
    if (child_pid > 0 && si->si_code != SI_KERNEL) kill((pid_t)child_pid, sig);
}

typedef struct saved_signals {
    struct sigaction old[NFORWARDED], old_quit;
    sigset_t old_mask;
} saved_signals;

/* Blocks the forwarded signals and installs the forwarder for those not ignored at start. */
static void install(saved_signals *s)
{
    sigset_t block;
    sigemptyset(&block);
    for (int i = 0; i < NFORWARDED; i++) sigaddset(&block, forwarded[i]);
    sigprocmask(SIG_BLOCK, &block, &s->old_mask);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (int i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded[i], NULL, &s->old[i]);
        int ignored = s->old[i].sa_handler == SIG_IGN && forwarded[i] != SIGINT;
        if (!ignored) sigaction(forwarded[i], &sa, NULL);
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGQUIT, &ign, &s->old_quit);
}

static void restore(const saved_signals *s)
{
    for (int i = 0; i < NFORWARDED; i++) sigaction(forwarded[i], &s->old[i], NULL);
    sigaction(SIGQUIT, &s->old_quit, NULL);
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

/* Child: hotprof's starting dispositions (SIGINT, SIGQUIT at default), then exec; on failure
 * report errno through the close-on-exec pipe. */
static void exec_child(char **argv, const saved_signals *s, int report_fd, int inherit_fd)
{
    restore(s);
    if (inherit_fd >= 0) fcntl(inherit_fd, F_SETFD, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(argv[0], argv);
    int err = errno;
    if (write(report_fd, &err, sizeof err) < 0) _exit(127);
    _exit(127);
}

/* The errno the child reported (0: exec succeeded), then the child's wait status. The forwarder
 * stops before the child is reaped, so it never signals a recycled pid. */
static int wait_child(pid_t pid, int report_fd, int *status)
{
    int err = 0;
    ssize_t got;
    siginfo_t info;
    while ((got = read(report_fd, &err, sizeof err)) < 0 && errno == EINTR) {}
    if (got != (ssize_t)sizeof err) err = 0;
    close(report_fd);
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {}
    child_pid = 0;
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
    return err;
}

int hp_run_child(char **argv, int *status, int inherit_fd)
{
    int fds[2], err;
    saved_signals saved;
    if (pipe2(fds, O_CLOEXEC) < 0) return errno;
    install(&saved);
    pid_t pid = fork();
    if (pid == 0) exec_child(argv, &saved, fds[1], inherit_fd);
    err = pid < 0 ? errno : 0;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        restore(&saved);
        return err;
    }
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &saved.old_mask, NULL); /* a signal that came meanwhile is forwarded now */
    err = wait_child(pid, fds[0], status);
    restore(&saved);
    return err;
}

/* ---------------------------------------------------------------- hp_spawn_child (top) */

static void exec_spawned(char **argv, int out_fd, int report_fd)
{
    int in = open("/dev/null", O_RDONLY);
    setpgid(0, 0);
    if (in >= 0) dup2(in, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    execvp(argv[0], argv);
    int err = errno;
    if (write(report_fd, &err, sizeof err) < 0) _exit(127);
    _exit(127);
}

int hp_spawn_child(char **argv, int out_fd, int *pid)
{
    int fds[2], err = 0;
    if (pipe2(fds, O_CLOEXEC) < 0) return errno;
    pid_t p = fork();
    if (p == 0) exec_spawned(argv, out_fd, fds[1]);
    if (p < 0) err = errno;
    close(fds[1]);
    ssize_t got = 0;
    while (p > 0 && (got = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR) {}
    close(fds[0]);
    if (p > 0 && got != (ssize_t)sizeof err) err = 0;
    if (p > 0 && err) while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {}
    if (!err) *pid = (int)p;
    return err;
}

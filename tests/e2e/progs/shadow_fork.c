/* shadow_fork.c — for tests/e2e/test_shadow.sh: a program that forks and reaps its own children
 * while shadows come and go, and checks that it sees exactly its own: each wait(NULL) returns the
 * child just forked, with that child's status; a SIGCHLD handler counts exactly one signal per
 * child; afterwards wait(NULL) fails with ECHILD (no shadow is its child). Prints "fork ok N" or
 * "fork BAD ..." and exits 3, or dies by SIGTERM with "kill" as argv[2].
 * Usage: shadow_fork N [kill] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t g_sigchld;

static void on_chld(int s) { (void)s; g_sigchld++; }

__attribute__((noinline)) static unsigned long work(unsigned long x)
{
    for (int i = 0; i < 300000; i++) x = x * 2862933555777941757ul + 3037000493ul;
    return x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCHLD, &sa, NULL);
    unsigned long acc = 1;
    for (int i = 0; i < n; i++) {
        acc = work(acc);
        pid_t pid = fork();
        if (pid == 0) _exit(i % 7);
        int st = -1;
        pid_t got = wait(&st);
        while (got < 0 && errno == EINTR) got = wait(&st);
        if (got != pid || !WIFEXITED(st) || WEXITSTATUS(st) != i % 7) {
            printf("fork BAD wait returned %d (want %d), status %d\n", (int)got, (int)pid, st);
            return 1;
        }
    }
    errno = 0;
    pid_t extra = wait(NULL);
    int chld = g_sigchld;
    if (extra != -1 || errno != ECHILD || chld != n) {
        printf("fork BAD extra wait %d errno %d, SIGCHLD %d of %d\n", (int)extra, errno, chld, n);
        return 1;
    }
    printf("fork ok %d %lu\n", n, acc % 1000);
    fflush(stdout);
    if (argc > 2 && strcmp(argv[2], "kill") == 0) raise(SIGTERM);
    return 3;
}

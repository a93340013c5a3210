/* top_spin.c — a program that stays busy for a while, for `hotprof top` (test_top.sh).
 *   top_spin SECONDS [EXIT [fork]]   calls spin_hot() (hot: a loop of its own) and spin_cold()
 * (every 64th iteration) until SECONDS have passed, printing a line to stdout and stderr every
 * 100 ms (top must never show them on its screen), then exits with status EXIT (default 0).
 * With "fork", it first forks: the child prints "child PID" on stdout and spins too (the parent
 * waits for it before exiting). With "exec", once SECONDS have passed it exec()s itself with
 * "after" (same pid, a new image), which spins SECONDS more calling spin_after() instead of
 * spin_hot(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin_hot(unsigned long x)
{
    for (int k = 0; k < 32; k++) sink += x ^ (unsigned long)k;
}
__attribute__((noinline)) void spin_cold(unsigned long x) { sink ^= x; }
__attribute__((noinline)) void spin_after(unsigned long x)
{
    for (int k = 0; k < 32; k++) sink ^= x + (unsigned long)k;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5, start = now_s(), last = start;
    int status = argc > 2 ? atoi(argv[2]) : 0;
    const char *how = argc > 3 ? argv[3] : "";
    pid_t child = strcmp(how, "fork") == 0 ? fork() : -1;
    void (*hot)(unsigned long) = strcmp(how, "after") == 0 ? spin_after : spin_hot;
    if (child == 0) printf("child %d\n", (int)getpid()), fflush(stdout);
    for (unsigned long i = 0;; i++) {
        hot(i);
        if (i % 64 == 0) spin_cold(i);
        if (i % 4096 == 0) {
            double t = now_s();
            if (t - start >= secs) break;
            if (t - last >= 0.1) {
                printf("CHILD-STDOUT %lu\n", i), fflush(stdout);
                fprintf(stderr, "CHILD-STDERR %lu\n", i);
                last = t;
            }
        }
    }
    if (child > 0) waitpid(child, NULL, 0);
    if (strcmp(how, "exec") == 0) {
        char *again[] = {argv[0], argv[1], argv[2], "after", NULL};
        execv("/proc/self/exe", again);
    }
    return status;
}

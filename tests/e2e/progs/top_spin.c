/* top_spin.c — a program that stays busy for a while, for `hotprof top` (test_top.sh).
 *   top_spin SECONDS [EXIT [fork]]   calls spin_hot() (hot: a loop of its own) and spin_cold()
 * (every 64th iteration) until SECONDS have passed, printing a line to stdout and stderr every
 * 100 ms (top must never show them on its screen), then exits with status EXIT (default 0).
 * With "fork", it first forks: the child prints "child PID" on stdout and spins too (the parent
 * waits for it before exiting). */
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
    pid_t child = argc > 3 && strcmp(argv[3], "fork") == 0 ? fork() : -1;
    if (child == 0) printf("child %d\n", (int)getpid()), fflush(stdout);
    for (unsigned long i = 0;; i++) {
        spin_hot(i);
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
    return status;
}

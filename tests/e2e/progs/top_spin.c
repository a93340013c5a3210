/* top_spin.c — a program that stays busy for a while, for `hotprof top` (test_top.sh).
 *   top_spin SECONDS [EXIT]   calls spin_hot() (hot: a loop of its own) and spin_cold() (every
 * 64th iteration) until SECONDS have passed, printing a line to stdout and stderr every 100 ms
 * (top must never show them on its screen), then exits with status EXIT (default 0). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
    return status;
}

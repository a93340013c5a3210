/* patch_short.c — calls one function in a loop for ARG milliseconds (default 10), then exits:
 * under a window longer than the run (HOTPROF_WINDOW huge), the program exits while a patched
 * burst is open, and its profile must count that window's units (test_patch.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void tick(unsigned long i) { sink += i; }
int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 10;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned long n = 0;
    do { for (int k = 0; k < 1000; k++) tick(n++); clock_gettime(CLOCK_MONOTONIC, &b); }
    while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
    printf("%lu\n", n);
    return 0;
}

/* osp_phases.c — two phases with their own hot loops for the patched-window bias test
 * (tests/e2e/test_osp_run.sh): slow_phase's loop body runs 64 independent loads and adds (tens
 * of ns), fast_phase's 16 (a few ns), and each phase runs for
 * about the same time. Samples placed in time land about as often in either phase, while
 * the fast phase runs many times more blocks: an unweighted estimate is off by the rate ratio.
 * Usage: osp_phases [SCALE]  (default 1: ~0.15 s per phase uninstrumented at -O0). Prints one
 * line of results (the same whether profiled or not).
 */
#include <stdio.h>
#include <stdlib.h>

#define ADD8(s, a) s += a[0]; s += a[1]; s += a[2]; s += a[3]; s += a[4]; s += a[5]; s += a[6]; s += a[7];

/* Throughput-bound work (independent loads and adds), so that the block hooks of a window do not
 * run hidden in its latency: each block then takes about as long with the hooks on as off. */
static __attribute__((noinline)) unsigned long slow_phase(long n)
{
    volatile unsigned long a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned long s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (long i = 0; i < n; i++) {
        ADD8(s0, a) ADD8(s1, a) ADD8(s2, a) ADD8(s3, a) ADD8(s4, a) ADD8(s5, a) ADD8(s6, a) ADD8(s7, a)
    }
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

static __attribute__((noinline)) unsigned long fast_phase(long n)
{
    volatile unsigned long a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned long s0 = 0, s1 = 0;
    for (long i = 0; i < n; i++) {
        ADD8(s0, a) ADD8(s1, a)
    }
    return s0 + s1;
}

int main(int argc, char **argv)
{
    long scale = argc > 1 ? atol(argv[1]) : 1;
    unsigned long x = slow_phase(1000000 * scale);
    unsigned long s = fast_phase(3000000 * scale);
    printf("%lu %lu\n", x, s);
    return 0;
}

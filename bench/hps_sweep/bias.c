/* bench/hps_sweep/bias.c — the bias check of bench/hps_sweep/real.sh: two call sites in main that
 * make exactly the same number of calls (N rounds x 1000 each), to a slow function (a floating-point
 * loop, 40 back-edges and many cycles per call) and a fast one (one add), in alternating phases of
 * 1000 calls. An unbiased sampler records the two sites' calls equally (within statistics);
 * windows placed in time favour the slow phase. Prints "ok N" (the calls per site / 1000).
 * Usage: bias [N] (default 3000). */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink_d;
static volatile unsigned sink_u;

__attribute__((noinline)) void slow_site(int i)
{
    double x = i;
    for (int k = 0; k < 40; k++) x = x * 0.999 + 1.0;
    sink_d += x;
}

__attribute__((noinline)) void fast_site(int i)
{
    sink_u += (unsigned)i;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 3000;
    if (n <= 0) {
        fprintf(stderr, "bias: N must be a positive number of rounds\n");
        return 2;
    }
    for (long r = 0; r < n; r++) {
        for (int i = 0; i < 1000; i++) slow_site(i);
        for (int i = 0; i < 1000; i++) fast_site(i);
    }
    printf("ok %ld\n", n);
    return 0;
}

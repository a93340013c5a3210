/* dual_count_phases.c — two phases with different event rates (test_dual_count.sh): a
 * floating-point smoothing loop (smooth: one back-edge per element, each a few ns of libm work)
 * and a tight integer loop (spin: a call of mix and a back-edge per iteration, ~1 ns each). The
 * smoothing phase has the smaller share of the events but most of the time: sampling placed in
 * time over-samples it, sampling triggered by a count of events does not. Prints a checksum.
 * Usage: dual_count_phases ROWS ITERS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 1000

__attribute__((noinline)) void smooth(double *a, int n)
{
    for (int i = 1; i < n - 1; i++) a[i] = (a[i - 1] + 2.0 * a[i] + a[i + 1]) * 0.25 + 1e-3 * sin(a[i]);
}

__attribute__((noinline)) unsigned mix(unsigned x) { return (x * 2654435761u) ^ (x >> 13); }

__attribute__((noinline)) unsigned spin(unsigned x, long n)
{
    for (long i = 0; i < n; i++) x = mix(x) + (unsigned)i;
    return x;
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 4000, iters = argc > 2 ? atol(argv[2]) : 4000000;
    static double a[WIDTH];
    for (int i = 0; i < WIDTH; i++) a[i] = (double)(i % 17);
    for (long r = 0; r < rows; r++) smooth(a, WIDTH);
    unsigned x = spin(7, iters);
    printf("%.6f %u\n", a[WIDTH / 2], x);
    return 0;
}

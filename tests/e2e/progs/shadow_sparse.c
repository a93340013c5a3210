/* shadow_sparse.c — a program of low event density for the shadow coverage estimate
 * (test_shadow_coverage.sh): its hot loop runs a long chain of dependent floating-point
 * operations per iteration (one block, one back-edge), so it makes several times fewer calls +
 * blocks per ns than shadow_phases.c. Prints "ok <checksum>" (the same on every run), exits 0.
 * Usage: shadow_sparse [n]   (default 2000000)
 */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) double chain(double x, long i)
{
    double y = x + (double)(i & 7);
    for (int k = 0; k < 24; k++) { /* unrolled by the compiler: a few blocks for ~100 dependent ops */
        y = y * 1.0000001 + 0.5;
        y = y * 0.9999999 - 0.25;
        y = y / 1.0000003 + 0.125;
        y = y * 0.9999997 - 0.375;
    }
    return y - x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000L;
    double acc = 0;
    for (long i = 0; i < n; i++) acc += chain(acc * 1e-9, i);
    printf("ok %.6e\n", acc);
    return 0;
}

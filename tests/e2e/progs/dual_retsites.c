/* dual_retsites.c — a hot loop in main that calls a small function with a short loop of its own, for
 * the return-site test (tests/e2e/test_dual_retsites.sh, docs/dual.md "Return sites"). Count
 * mode's pre-arming starts inside inner()'s loop (several back-edges per call), so main runs its
 * clean copy when a subpath burst begins there; the subpaths that cross inner()'s return into
 * main's blocks are seen only through main's return site (without it they are cut).
 * Usage: dual_retsites [N]  (default 300000). Prints a checksum (the same profiled or not). */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) long inner(long i)
{
    long s = 0;
    for (long k = 0; k < 6 + (i & 3); k++) s += (k ^ i) & 5;
    return s;
}

static long hist[16];

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 300000, acc = 0;
    for (long i = 0; i < n; i++) {
        long v = inner(i);
        if (v & 1) hist[v & 15]++; /* blocks after the return: main's clean copy, unless a return site */
        else acc ^= v * 3;
    }
    for (int k = 0; k < 16; k++) acc += hist[k] * k;
    printf("%ld\n", acc);
    return 0;
}

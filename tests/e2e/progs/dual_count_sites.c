/* dual_count_sites.c — two call sites of one function that each make exactly N calls
 * (test_dual_count.sh): site A right after a long loop-free stretch of floating-point work, site B
 * right after A. Windows placed in time favour the site after the slow stretch; windows triggered
 * by a count of calls and back-edges must sample both equally. Prints a checksum.
 * Usage: dual_count_sites N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long leaf(long x) { return x * 3 + 1; }

/* Loop-free and slow: a chain of dependent divisions (no call, no back-edge). */
static inline double slow(double v)
{
#define STEP v = v / 1.0000001 + 0.5;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
    STEP8 STEP8 STEP8 STEP8
    return v;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    long s = 0;
    double v = 1.0;
    for (long i = 0; i < n; i++) {
        v = slow(v);
        s += leaf(i ^ (long)v);  /* site A */
        s = leaf(s) & 0xffffff;  /* site B */
    }
    printf("%ld %.3f\n", s, v);
    return 0;
}

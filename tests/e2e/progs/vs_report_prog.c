/* vs_report_prog.c — a tiny program whose functions the value-report e2e test
 * (test_vreport.sh) points synthetic timer profiles at: vr_leaf called by vr_hot called by main.
 * It is never profiled; only its symbols, lines and instructions are used. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long vr_leaf(long x) { return x * 7 + (x >> 3); }

__attribute__((noinline)) long vr_hot(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) s += vr_leaf(i);
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    printf("%ld\n", vr_hot(n));
    return 0;
}

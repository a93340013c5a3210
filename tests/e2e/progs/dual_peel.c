/* dual_peel.c — two one-block loops for test_dual_peel.sh (docs/dual.md "Which loops are peeled"):
 * short_sum's body is a few instructions, long_mix's a serial chain of about 40 (a loop-carried
 * dependency, neither unrolled nor vectorized, so it stays one block). The top form peels both
 * by default (each back-edge nop at its loop's top); with -hotprof-dual-peel-max=24 it leaves the
 * long one on its latch edge (a jmp per iteration, no third copy of the block).
 * Usage: dual_peel [n]; prints both results. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned long short_sum(const long *a, long n)
{
    unsigned long s = 0;
#pragma clang loop unroll(disable) vectorize(disable)
    for (long i = 0; i < n; i++) s += (unsigned long)a[i] ^ (s >> 3);
    return s;
}

__attribute__((noinline)) unsigned long long long_mix(const long *a, long n)
{
    unsigned long long x = 88172645463325252ull;
#pragma clang loop unroll(disable) vectorize(disable)
    for (long i = 0; i < n; i++) {
        x += (unsigned long long)a[i];
        x ^= x << 13; x ^= x >> 7; x ^= x << 17; x *= 0x9e3779b97f4a7c15ull;
        x ^= x >> 29; x += x << 5; x ^= x >> 11; x *= 0xbf58476d1ce4e5b9ull;
        x ^= x << 7; x += x >> 3; x ^= x << 23; x *= 0x94d049bb133111ebull;
        x ^= x >> 31; x += x << 9; x ^= x >> 17; x *= 0xd6e8feb86659fd93ull;
        x ^= x << 3; x += x >> 19; x ^= x << 27; x *= 0xff51afd7ed558ccdull;
    }
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long *a = malloc((size_t)n * sizeof *a);
    if (!a) return 1;
    for (long i = 0; i < n; i++) a[i] = (i * 7919) % 1009;
    printf("%lu %llu\n", short_sum(a, n), long_mix(a, n));
    free(a);
    return 0;
}

/* dual_floor_lsr.c — a strided loop whose native code is strength-reduced by the code generator
 * (LoopStrengthReduce: a pointer that steps by stride * 4 instead of i * stride recomputed each
 * iteration), for test_dual_floor.sh: the clean copy of a two-version build must keep that (its
 * loops must stay in LoopSimplify form, docs/dual.md "Where the floor comes from").
 * Usage: dual_floor_lsr [n]; prints the running sum. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) float walk(float *a, long n, long stride)
{
    float s = 0;
    for (long i = 0; i < n; i++) {
        s += a[i * stride];
        a[i * stride] = s;
    }
    return s;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000, stride = 3;
    float *a = calloc((size_t)(n * stride), sizeof *a);
    if (!a) return 1;
    for (long i = 0; i < n * stride; i++) a[i] = (float)(i % 7);
    printf("%g\n", walk(a, n, stride));
    free(a);
    return 0;
}

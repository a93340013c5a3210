/* dual_longloop.c — one long loop entered before any burst (test_dual.sh): main -> run -> spin,
 * and spin loops N times without a call, so in a --hooks=dual-functions build the only way a
 * burst can see it is the patchable nop on spin's loop back-edge. Prints the loop's result.
 * Usage: dual_longloop N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned long spin(unsigned long n)
{
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005ul + (i ^ (x >> 29));
    return x;
}

__attribute__((noinline)) unsigned long run(unsigned long n) { return spin(n) + 1; }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000ul;
    printf("%lu\n", run(n));
    return 0;
}

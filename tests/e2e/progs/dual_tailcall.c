/* dual_tailcall.c — a function reached by a tail call (test_dual_count.sh): `relay` ends in a
 * call of `work` that clang -O2 makes a jump in relay's clean copy (the instrumented copy, whose
 * exit hook follows the call, keeps a call), so a call of `work` sampled there carries the
 * return address of `relay`'s caller `drive`. Half of drive's work goes through relay, half is
 * a direct call: the exhaustive profile has the pairs relay -> work and drive -> work equal.
 * Prints a checksum. Usage: dual_tailcall N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long x) { return (x * 2654435761u) >> 7 ^ x; }

__attribute__((noinline)) long relay(long x)
{
    if (x < 0) return -1; /* keeps relay from being a mere alias of work */
    return work(x + 1);   /* tail position: a jump in the clean copy */
}

__attribute__((noinline)) long drive(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += relay(i);
        s ^= work(s & 0xffff);
    }
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    printf("%ld\n", drive(n));
    return 0;
}

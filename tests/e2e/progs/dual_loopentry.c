/* dual_loopentry.c — loops for the loop-entry form of two-version code (test_dual_loopentry.sh,
 * docs/dual.md "Loop-entry form"): nested loops with values defined in the outer loop before the
 * inner ones (live at the inner headers), inner loops in sequence, loops in sequence with values
 * defined between them, and one long inner loop without calls (a burst must reach it at its next
 * back-edge). Usage: dual_loopentry [n [deep]]: prints one checksum per function. */
#include <stdio.h>
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) long leaf(long a) { return (a * 2654435761u) >> 7; }
/* the outer loop defines base and t before two inner loops in sequence that use them */
__attribute__((noinline)) long nest(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        long base = leaf(i) & 1023, t = i * 3 + 1;
        for (int j = 0; j < i % 13; j++) s += base ^ (j * t);
        for (int k = 0; k < i % 7; k++) s += leaf(base + k) - t;
        s ^= base;
    }
    return s;
}
/* loops in sequence, with values defined between them */
__attribute__((noinline)) long seq(int n)
{
    long a = 0;
    for (int i = 0; i < n; i++) a += leaf(i) & 7;
    long b = a * 3 + n, c = leaf(a);
    for (int i = 0; i < n; i++) b += (i ^ c) & 15;
    long d = b - a;
    for (int i = n; i > 0; i -= 3) d = d * 5 + (i & a);
    return a + b + c + d;
}
/* a few outer iterations, each with one long inner loop without calls */
__attribute__((noinline)) long deep(long n)
{
    long s = 1;
    for (int r = 0; r < 3; r++) {
        long m = leaf(r) | 1;
        for (long j = 0; j < n; j++) s = s * 31 + (j ^ m);
    }
    return s;
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    long dn = argc > 2 ? atol(argv[2]) : 1000;
    printf("nest %ld\nseq %ld\ndeep %ld\n", nest(n), seq(n), deep(dn));
    return 0;
}

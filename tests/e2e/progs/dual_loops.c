/* dual_loops.c — loops for two-version code (test_dual.sh): nested loops with calls, and a
 * loop-free function whose only backward jump goes to its shared return block (not a loop
 * back-edge: the address rule counts it, the compiler's latches do not). Usage: dual_loops [n]. */
#include <stdio.h>
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) int rare(int a, int b) { return a * 3 + b; }
/* loop-free: the likely path falls through to the shared tail, the unlikely one is laid out after
 * it and jumps back to it (a backward jump that is not a loop back-edge) */
__attribute__((noinline)) int shared_ret(int a, int b)
{
    int r = a - b;
    if (__builtin_expect(a > b, 1)) goto out;
    r = rare(a, b);
out:
    sink += r;
    return r;
}
__attribute__((noinline)) long inner(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += (i * 7) ^ n;
    return s;
}
__attribute__((noinline)) long outer(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) s += inner(j % 5) + (j & 1 ? shared_ret(j, i) : shared_ret(i, j));
    return s;
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    printf("%ld\n", outer(n));
    return 0;
}

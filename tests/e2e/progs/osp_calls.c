/* osp_calls.c — a loop that calls a small function each iteration, for the count-mode subpath
 * test (tests/e2e/test_osp_count.sh): the blocks of loop() after step() returns follow no event
 * of their own (the call's entry is the last one), so they are seen only if loop()'s frame runs
 * instrumented when a trigger at step()'s entry fires (pre-arming, docs/osp.md "count").
 * Usage: osp_calls [N]  (default 1000000). Prints a checksum (the same profiled or not). */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) long step(long i)
{
    if (i % 3 == 0) return i / 3;
    return i & 7;
}

static __attribute__((noinline)) long loop(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        long v = step(i);
        if (v & 1) s += v; /* blocks after the return: no event before them but step's entry */
        else s ^= v;
    }
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    printf("%ld\n", loop(n));
    return 0;
}

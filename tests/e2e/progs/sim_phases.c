/* sim_phases.c — a small program with planted phases for `hotprof sim` tests (test_sim.sh):
 * `sim_phases [n]` runs n rounds (default 200000) of step(); in the first half the compared value
 * is mostly V1, in the second mostly V2, the rest spread over 4096 cold values; every third block
 * of 3000 rounds also takes a rare branch (an edge hot only then). The value goes through a
 * volatile variable, so a trace-loads hook sees it (<load pc, V1 or V2>) whatever the compiler
 * makes of the compares. Prints "ok <checksum>".
 */
#include <stdio.h>
#include <stdlib.h>

#define V1 111
#define V2 222

static unsigned long long state = 0x9e3779b97f4a7c15ull;
static volatile long seen; /* the round's value, stored and loaded back (trace-loads sees it) */

static __attribute__((noinline)) unsigned next(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (unsigned)state;
}

static __attribute__((noinline)) long step(long i, long n, volatile long *sink)
{
    unsigned r = next();
    seen = r % 4 ? (i < n / 2 ? V1 : V2) : (long)(r >> 20) % 4096 + 1000;
    long v = seen, acc = 0;
    if (v == V1) acc += 3;
    else if (v == V2) acc += 5;
    else acc += v & 7;
    if ((i / 3000) % 3 == 2 && (r & 1)) acc ^= *sink;
    for (int k = 0; k < (int)(r % 3); k++) acc += k;
    return acc;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    volatile long sink = 1;
    long sum = 0;
    for (long i = 0; i < n; i++) sum += step(i, n, &sink);
    printf("ok %ld\n", sum);
    return 0;
}

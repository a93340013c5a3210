/* merge_phases.c — a program in two phases for test_merge.sh: `merge_phases 1` runs phase 1,
 * `merge_phases 2` phase 2, `merge_phases 12` both, in one process. Each phase calls its own
 * functions and a shared one from fixed call sites, with loops, so that the exact counts of the
 * two half-runs must add up to those of the whole run. Deterministic: no time, no randomness.
 */
#include <stdio.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long shared_step(unsigned long x)
{
    for (int i = 0; i < 3; i++) x = x * 2654435761u + (unsigned long)i;
    return x;
}

__attribute__((noinline)) static unsigned long phase1_leaf(unsigned long x) { return shared_step(x ^ 0x11); }

__attribute__((noinline)) static void phase1(int n)
{
    unsigned long x = 1;
    for (int i = 0; i < n; i++) x += phase1_leaf(x) + (i % 3 == 0 ? shared_step(x) : 0);
    sink = x;
}

__attribute__((noinline)) static unsigned long phase2_leaf(unsigned long x)
{
    unsigned long y = x;
    for (int j = 0; j < 5; j++) y = shared_step(y) + (unsigned long)j;
    return y;
}

__attribute__((noinline)) static void phase2(int n)
{
    unsigned long x = 2;
    for (int i = 0; i < n; i++) x ^= phase2_leaf(x + (unsigned long)i);
    sink = x;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "12";
    if (strchr(which, '1')) phase1(2000);
    if (strchr(which, '2')) phase2(700);
    printf("%lu\n", sink);
    return 0;
}

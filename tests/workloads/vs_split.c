/* vs_split.c — timer-mode test workload (tests/e2e/test_timer.sh): two leaf functions that burn
 * CPU in a 2:1 ratio (heavy runs twice light's iterations of the same loop body), called from
 * main through middle() (never in tail position), so stacks have a known shape. Prints a checksum
 * (the same with and without hotprof). Usage: vs_split [ROUNDS] (default 40). */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

#define BURN(n, k)                                                                                 \
    double s = 0;                                                                                  \
    for (long i = 0; i < (n); i++) {                                                               \
        s += (double)i * (k);                                                                      \
        sink = s;                                                                                  \
    }                                                                                              \
    return s

__attribute__((noinline)) double heavy(void) { BURN(2000000, 0.5); }
__attribute__((noinline)) double light(void) { BURN(1000000, 0.25); }
__attribute__((noinline)) double middle(int r) { return (r & 1) ? heavy() + light() : light() + heavy(); }

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    double a = 0;
    for (int r = 0; r < rounds; r++) a += middle(r) * 0.5;
    printf("%.1f\n", a);
    return 0;
}

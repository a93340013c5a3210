/* bursty_ctl.c — changes bursty sampling from inside the program (hotprof.h's online API).
 *
 * Three phases of plain calls, each to its own function:
 *   1. phase_a() N times, sampled as configured (e.g. methods:period=99,burst=1,jitter=20: each
 *      iteration is 2 boundary events, a call and a back-edge, so a jitter-free period whose
 *      cycle is even would always sample the same one of the two);
 *   2. hotprof_sample_enable(METHODS, 0), then phase_b() N times: methods sampled nothing
 *      (except in the controller's first poll window after the switch, <= 4096 boundary events);
 *   3. hotprof_sample_set(METHODS, 9, 1, 20) and hotprof_sample_enable(METHODS, 1), then phase_c()
 *      N times: sampled at 1/10.
 * Prints "api <rc> <rc> <rc>" (the three calls' return values, 0 expected in bursty mode) and
 * "calls N". Usage: bursty_ctl [N]   (default 200000)
 */
#include <hotprof/hotprof.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void phase_a(unsigned long i) { sink += i; }
__attribute__((noinline)) static void phase_b(unsigned long i) { sink ^= i; }
__attribute__((noinline)) static void phase_c(unsigned long i) { sink += i ^ 1; }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    for (unsigned long i = 0; i < n; i++) phase_a(i);
    int r1 = hotprof_sample_enable(HOTPROF_SAMPLE_METHODS, 0);
    for (unsigned long i = 0; i < n; i++) phase_b(i);
    int r2 = hotprof_sample_set(HOTPROF_SAMPLE_METHODS, 9, 1, 20);
    int r3 = hotprof_sample_enable(HOTPROF_SAMPLE_METHODS, 1);
    for (unsigned long i = 0; i < n; i++) phase_c(i);
    printf("api %d %d %d\ncalls %lu\n", r1, r2, r3, n);
    return 0;
}

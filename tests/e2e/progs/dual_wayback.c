/* dual_wayback.c — for test_dual_loopentry.sh: does the loop-entry clone go back to the clean
 * function when a burst is over? run's loop calls probe once per iteration; probe sees where it
 * was called from (its return address: the clean run or run.hotprof.loop) and counts how often
 * that changes. With the way back a burst's end is a switch back (about two per burst); without it
 * the clone, once entered, runs the loop to its end (at most one switch). With "main" the loop runs
 * in main itself, whose entry is the thread's first event: count mode takes it into the clone as
 * a whole call (the countdown is not armed yet), so only the whole-call entry's way back brings it
 * back. Usage: dual_wayback [n [main]]: prints a checksum on stdout, "switches N" on stderr. */
#include <stdio.h>
#include <stdlib.h>
static void *last_site;
static long switches;
__attribute__((noinline)) long probe(long i)
{
    void *site = __builtin_return_address(0);
    if (last_site && site != last_site) switches++;
    last_site = site;
    return (i * 2654435761u) >> 9;
}
/* the outer loop: values defined before the inner loop cross into the clone and come back */
__attribute__((noinline)) long run(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        long base = probe(i) & 255, k = i % 5;
        for (long j = 0; j < k; j++) s += base ^ j;
    }
    return s;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2) { /* (the loop of run, in main) */
        long s = 0;
        for (long i = 0; i < n; i++) {
            long base = probe(i) & 255, k = i % 5;
            for (long j = 0; j < k; j++) s += base ^ j;
        }
        printf("run %ld\n", s);
        fprintf(stderr, "switches %ld\n", switches);
        return 0;
    }
    printf("run %ld\n", run(n));
    fprintf(stderr, "switches %ld\n", switches);
    return 0;
}

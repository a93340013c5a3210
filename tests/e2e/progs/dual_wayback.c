/* dual_wayback.c — for test_dual_loopentry.sh: does the loop-entry clone go back to the clean
 * function when a burst is over? run's loop calls probe once per iteration; probe sees where it
 * was called from (its return address: the clean run or run.hotprof.loop) and counts how often
 * that changes. With the way back a burst's end is a switch back (about two per burst); without it
 * the clone, once entered, runs the loop to its end (at most one switch). With "main" the loop runs
 * in main itself, whose entry is the thread's first event: count mode takes it into the clone as
 * a whole call (the countdown is not armed yet), so only the whole-call entry's way back brings it
 * back. With "alloca" and "byval" main calls alloca_work or byval_work (see there) n/8 times.
 * Usage: dual_wayback [n [main|alloca|byval]]: prints a checksum on stdout, "switches N" on
 * stderr. */
#include <alloca.h>
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
/* writes 2 KB of stack below its caller: what a dead frame held there is gone */
__attribute__((noinline)) void scrub(void)
{
    volatile long page[256];
    for (int i = 0; i < 256; i++) page[i] = -i;
}
__attribute__((noinline)) void add_to(long *acc, long v) { *acc += v; }
/* its sum lives in memory alloca made: a whole call entered in the clone makes it in the clone's
 * frame, so the clone must not go back to alloca_work's clean loop (scrub would overwrite it) */
__attribute__((noinline)) long alloca_work(long k)
{
    long *acc = alloca(sizeof(long) * (size_t)(1 + (k & 1)));
    acc[0] = 0;
    for (long j = 0; j < k; j++) {
        add_to(acc, probe(j) & 1023);
        scrub();
    }
    return acc[0];
}
/* its sum lives in an argument passed by value (byval: memory its caller made): the clone must
 * work on that memory, not on a copy, or what it added is lost when it goes back */
struct big { long sum, pad[7]; };
__attribute__((noinline)) long byval_work(struct big b, long k)
{
    for (long j = 0; j < k; j++) {
        add_to(&b.sum, probe(j) & 1023);
        scrub();
    }
    return b.sum;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2 && argv[2][0] == 'b') {
        long s = 0;
        for (long i = 0; i < n / 8; i++) s += byval_work((struct big){i & 7, {0}}, 8 + (i & 1));
        printf("byval %ld\n", s);
        fprintf(stderr, "switches %ld\n", switches);
        return 0;
    }
    if (argc > 2 && argv[2][0] == 'a') {
        long s = 0;
        for (long i = 0; i < n / 8; i++) s += alloca_work(8 + (i & 1));
        printf("alloca %ld\n", s);
        fprintf(stderr, "switches %ld\n", switches);
        return 0;
    }
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

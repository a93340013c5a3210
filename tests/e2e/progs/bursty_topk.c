/* bursty_topk.c — hotprof_snapshot_topk from a running multithreaded program.
 *
 * Four workers call hot() (which loops 16 times) every iteration and warm() every 4th, each from
 * one call site, until told to stop; the main
 * thread, while they run, takes snapshots of the top 3 methods and call pairs (merged across the
 * threads' live tables) and checks that the hottest method is hot() and the hottest call pair's
 * callee is hot(). Prints one line per check: "topk methods ok|FAIL ..." and
 * "topk callpairs ok|FAIL ...", then "snapshots N". Exit status 0 even on FAIL (the test reads
 * the lines). Usage: bursty_topk [snapshots]   (default 20)
 */
#include <hotprof/hotprof.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORKERS 4

static volatile unsigned long sink;
static volatile int stop, inner = 16;

/* hot: called every iteration from one site, with a loop of its own (back-edges add to its heat) */
__attribute__((noinline)) static void hot(unsigned long x)
{
    for (int k = 0; k < inner; k++) sink += x ^ (unsigned long)k;
}
__attribute__((noinline)) static void warm(unsigned long x) { sink ^= x; }

static void *worker(void *arg)
{
    (void)arg;
    for (unsigned long i = 0; !stop; i++) {
        hot(i);
        if ((i & 3) == 0) warm(i);
    }
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* 1 if the first entry of a fresh snapshot of `type` has key1 == want. */
static int top_is(enum hotprof_sample_type type, uint64_t want, int *got_n, uint64_t *got_key)
{
    hotprof_topk_entry top[3];
    int n = hotprof_snapshot_topk(type, 3, top);
    *got_n = n;
    *got_key = n > 0 ? top[0].key1 : 0;
    for (int i = 1; i < n; i++)
        if (top[i].count > top[i - 1].count) return 0; /* must be sorted */
    return n > 0 && top[0].key1 == want && top[0].count > 0;
}

int main(int argc, char **argv)
{
    int snaps = argc > 1 ? atoi(argv[1]) : 20, ok_m = 1, ok_p = 1, n = 0;
    uint64_t key = 0, want = (uint64_t)(uintptr_t)&hot;
    pthread_t th[WORKERS];
    for (int i = 0; i < WORKERS; i++) pthread_create(&th[i], NULL, worker, NULL);
    pause_ms(50);
    for (int s = 0; s < snaps; s++) {
        if (!top_is(HOTPROF_SAMPLE_METHODS, want, &n, &key)) ok_m = 0;
        if (!top_is(HOTPROF_SAMPLE_CALLPAIRS, want, &n, &key)) ok_p = 0;
        pause_ms(5);
    }
    stop = 1;
    for (int i = 0; i < WORKERS; i++) pthread_join(th[i], NULL);
    printf("topk methods %s\n", ok_m ? "ok" : "FAIL");
    printf("topk callpairs %s (last: n=%d key=0x%llx want=0x%llx)\n", ok_p ? "ok" : "FAIL", n,
           (unsigned long long)key, (unsigned long long)want);
    printf("snapshots %d\n", snaps);
    return 0;
}

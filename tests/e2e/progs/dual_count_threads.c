/* dual_count_threads.c — threads with known, different amounts of work (test_dual_count.sh):
 * thread k (0..T-1) makes (k + 1) * N calls of step, each with a short loop, so each
 * thread's count of calls and back-edges is known; with count-triggered bursts every thread
 * keeps its own countdown, so each thread's recorded share is the configured one. Prints
 * "thread k sum" lines in order.
 * Usage: dual_count_threads T N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long g_n;
static volatile unsigned g_seed = 3; /* read each time: calls cannot be merged, loops not unrolled */

__attribute__((noinline)) unsigned step(unsigned x)
{
    for (unsigned i = 0; i < g_seed; i++) x = x * 1103515245u + g_seed + i;
    return x;
}

static void *worker(void *arg)
{
    long k = (long)arg;
    unsigned x = (unsigned)k;
    for (long i = 0; i < (k + 1) * g_n; i++) x = step(x);
    return (void *)(unsigned long)x;
}

int main(int argc, char **argv)
{
    int t = argc > 1 ? atoi(argv[1]) : 4;
    g_n = argc > 2 ? atol(argv[2]) : 200000;
    if (t < 1 || t > 16) return 2;
    pthread_t th[16];
    for (long k = 0; k < t; k++) pthread_create(&th[k], NULL, worker, (void *)k);
    for (int k = 0; k < t; k++) {
        void *r;
        pthread_join(th[k], &r);
        printf("thread %d %lu\n", k, (unsigned long)r);
    }
    return 0;
}

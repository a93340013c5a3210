/*
 * shadow_threads.c - a threaded program for shadow mode (tests/e2e/test_shadow_threads.sh).
 *
 * Holds: main starts one worker thread and waits in pthread_join (no CPU); the worker does all
 * the work (`iters` calls of the noinline churn()) and exits; then main sleeps 100 ms (no CPU)
 * and exits. So every shadow is forked from the worker (the only thread using CPU), and the
 * worker's thread exits while its shadows still run: a shadow must survive that (PDEATHSIG is
 * tied to the thread that cloned it) and end with its profile when the process exits.
 * With "spin" the worker never ends (for a test that kills the process). With "mask" the worker
 * blocks every signal first: the monitor's CPU-timer signal can then only go to main, idle in
 * pthread_join, and no shadow may be forked of it (it would profile nothing and block).
 *
 * Checks: prints "threads ok <checksum>" (the checksum depends only on iters) and exits 0.
 *
 * Usage: shadow_threads iters [spin|mask]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { long iters; int spin, mask; uint64_t sum; } job;

__attribute__((noinline)) static uint64_t churn(uint64_t x, long i)
{
    for (int k = 0; k < 8; k++)
        x = x * 6364136223846793005ull + (uint64_t)i + (x >> 31);
    return x;
}

static void *worker(void *p)
{
    job *j = p;
    uint64_t x = 1;
    if (j->mask) { /* the common "signals are main's business" pattern */
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, NULL);
    }
    for (long i = 0; i < j->iters || j->spin; i++)
        x = churn(x, i);
    j->sum = x;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shadow_threads iters [spin|mask]\n");
        return 2;
    }
    const char *how = argc > 2 ? argv[2] : "";
    job j = { atol(argv[1]), strcmp(how, "spin") == 0, strcmp(how, "mask") == 0, 0 };
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &j) != 0) {
        fprintf(stderr, "shadow_threads: pthread_create failed\n");
        return 1;
    }
    pthread_join(t, NULL);
    struct timespec ts = { 0, 100000000L };
    nanosleep(&ts, NULL);
    printf("threads ok %016llx\n", (unsigned long long)j.sum);
    return 0;
}

/* mt_calls.c — multithreaded call counts for the exhaustive runtime.
 *
 * Six workers run concurrently (a barrier lines them up so they contend): four long-running
 * ones and two that exit early, before the others finish, while the rest keep calling. Each
 * worker calls leaf_a / leaf_b / mid a known number of times; main calls report(). The program
 * prints, on stdout, the exact totals the profile must hold across all threads:
 *   expect <function> <calls>        (for every function listed)
 *   expect_threads <n>               (threads that recorded events: main + workers)
 * Usage: mt_calls [scale]   (default 200000 calls of each leaf per long worker)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LONG_WORKERS 4
#define EARLY_WORKERS 2

static volatile unsigned long sink;
static pthread_barrier_t start_line;

__attribute__((noinline)) static void leaf_a(unsigned long x) { sink += x; }
__attribute__((noinline)) static void leaf_b(unsigned long x) { sink ^= x; }
__attribute__((noinline)) static void mid(unsigned long x)
{
    leaf_a(x);
    leaf_b(x);
}

typedef struct job { unsigned long n; } job;

__attribute__((noinline)) static void *worker(void *arg)
{
    const job *j = arg;
    pthread_barrier_wait(&start_line);
    for (unsigned long i = 0; i < j->n; i++) {
        leaf_a(i);
        mid(i);
    }
    return NULL;
}

__attribute__((noinline)) static void report(unsigned long long a, unsigned long long b, unsigned long long m,
                                             unsigned long long w)
{
    printf("expect leaf_a %llu\nexpect leaf_b %llu\nexpect mid %llu\nexpect worker %llu\n", a, b, m, w);
    printf("expect report 1\nexpect main 1\nexpect_threads %d\n", 1 + LONG_WORKERS + EARLY_WORKERS);
}

int main(int argc, char **argv)
{
    unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    pthread_t th[LONG_WORKERS + EARLY_WORKERS];
    job jobs[LONG_WORKERS + EARLY_WORKERS];
    unsigned long long total = 0;
    pthread_barrier_init(&start_line, NULL, LONG_WORKERS + EARLY_WORKERS);
    for (int i = 0; i < LONG_WORKERS + EARLY_WORKERS; i++) {
        jobs[i].n = i < LONG_WORKERS ? scale + (unsigned long)i * 1000 : scale / 100 + (unsigned long)i;
        total += jobs[i].n;
        pthread_create(&th[i], NULL, worker, &jobs[i]);
    }
    for (int i = LONG_WORKERS; i < LONG_WORKERS + EARLY_WORKERS; i++) pthread_join(th[i], NULL); /* exit early */
    for (int i = 0; i < LONG_WORKERS; i++) pthread_join(th[i], NULL);
    /* each iteration: leaf_a twice (direct + via mid), leaf_b once, mid once */
    report(2 * total, total, total, LONG_WORKERS + EARLY_WORKERS);
    return 0;
}

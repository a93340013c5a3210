/*
 * mt_work.c - multithreaded workload with exactly known call counts.
 *
 * Holds: T worker threads (pthreads, default 4). Worker t runs `size`
 * iterations; iteration i calls mid() once, and mid() calls leaf()
 * 1 + (i % 4) times. leaf() mixes a per-thread state with a short LCG loop.
 * So, exactly: worker = T, mid = T * size, leaf = T * sum_{i<size} (1 + i % 4).
 * These are printed as "calls leaf=N mid=M worker=T" for a test that checks
 * a profiler loses no event (functions are noinline so every call is real).
 *
 * Checks: each worker counts its own leaf/mid calls and the totals must equal
 * the closed forms above; each worker's final state must equal a serial
 * recomputation in the main thread. Prints the calls line and "ok <checksum>"
 * and exits 0, or an error and exits 1.
 *
 * Usage: mt_work [size] [threads]   size = iterations per thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_SIZE 2000000L
#define DEFAULT_THREADS 4
#define MAX_THREADS 64
#define LEAF_ROUNDS 24

typedef struct {
    int id;
    long size;
    uint64_t state;
    uint64_t leaf_calls, mid_calls;
} worker_arg;

__attribute__((noinline)) static uint64_t leaf(worker_arg *w, uint64_t x)
{
    w->leaf_calls++;
    for (int k = 0; k < LEAF_ROUNDS; k++)
        x = x * 6364136223846793005ull + 1442695040888963407ull + (x >> 29);
    return x;
}

__attribute__((noinline)) static uint64_t mid(worker_arg *w, long i, uint64_t x)
{
    w->mid_calls++;
    int n = 1 + (int)(i % 4);
    for (int k = 0; k < n; k++)
        x = leaf(w, x ^ (uint64_t)k);
    return x;
}

__attribute__((noinline)) static void *worker(void *p)
{
    worker_arg *w = p;
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    for (long i = 0; i < w->size; i++)
        x = mid(w, i, x);
    w->state = x;
    return NULL;
}

/* Serial recomputation of one worker's final state, sharing no code with it. */
static uint64_t expected_state(int id, long size)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
    for (long i = 0; i < size; i++) {
        for (int k = 0; k < 1 + (int)(i % 4); k++) {
            uint64_t y = x ^ (uint64_t)k;
            for (int r = 0; r < LEAF_ROUNDS; r++)
                y = y * 6364136223846793005ull + 1442695040888963407ull + (y >> 29);
            x = y;
        }
    }
    return x;
}

static uint64_t leaf_calls_per_thread(long size)
{
    uint64_t full = (uint64_t)(size / 4), rest = (uint64_t)(size % 4);
    return full * 10 + rest * (rest + 1) / 2;
}

static int run_workers(worker_arg *args, int threads)
{
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, worker, &args[t]) != 0) {
            fprintf(stderr, "mt_work: pthread_create failed\n");
            return 0;
        }
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    return 1;
}

int main(int argc, char **argv)
{
    long size = argc > 1 ? atol(argv[1]) : DEFAULT_SIZE;
    int threads = argc > 2 ? atoi(argv[2]) : DEFAULT_THREADS;
    if (size < 1)
        size = 1;
    if (threads < 1 || threads > MAX_THREADS)
        threads = DEFAULT_THREADS;
    static worker_arg args[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        args[t] = (worker_arg){ t, size, 0, 0, 0 };
    if (!run_workers(args, threads))
        return 1;
    uint64_t leaf_total = 0, mid_total = 0, h = 0xcbf29ce484222325ull;
    for (int t = 0; t < threads; t++) {
        if (args[t].state != expected_state(t, size)) {
            fprintf(stderr, "mt_work: FAILED: worker %d state mismatch\n", t);
            return 1;
        }
        leaf_total += args[t].leaf_calls;
        mid_total += args[t].mid_calls;
        h = (h ^ args[t].state) * 0x100000001b3ull;
    }
    uint64_t want_leaf = (uint64_t)threads * leaf_calls_per_thread(size);
    uint64_t want_mid = (uint64_t)threads * (uint64_t)size;
    if (leaf_total != want_leaf || mid_total != want_mid) {
        fprintf(stderr, "mt_work: FAILED: counted leaf=%llu mid=%llu\n",
                (unsigned long long)leaf_total, (unsigned long long)mid_total);
        return 1;
    }
    printf("calls leaf=%llu mid=%llu worker=%d\n", (unsigned long long)want_leaf,
           (unsigned long long)want_mid, threads);
    printf("ok %016llx\n", (unsigned long long)h);
    return 0;
}

/* osp_loop.c — a program with known hot subpaths for the OSP tests (test_osp_run.sh): one loop of
 * N iterations whose body takes one of two branches (i % 3), in a function of its own. Prints a
 * checksum (the output must be the same profiled or not). With a second argument "topk" it then
 * prints the top 3 subpaths of hotprof_snapshot_topk(HOTPROF_SAMPLE_SUBPATH) as
 * "topk KEY LENGTH COUNT" lines on stderr (and "topk -1" if the call failed). With a third
 * argument T > 0, T threads run the loop instead of main, one after the other (each joined before
 * the next starts, so that past 64 exited threads the runtime recycles their states), and the
 * checksum is the sum of theirs.
 * Usage: osp_loop [N [topk|-] [T]] (default N 200000, T 0). */
#include <hotprof/hotprof.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (i % 3 == 0) s += i;
        else s -= 1;
    }
    return s;
}

static void *worker(void *arg)
{
    long *io = arg;
    *io = work(*io);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000, threads = argc > 3 ? atol(argv[3]) : 0, sum = 0;
    for (long t = 0; t < threads; t++) {
        pthread_t th;
        long io = n;
        if (pthread_create(&th, NULL, worker, &io) != 0) return 1;
        pthread_join(th, NULL);
        sum += io;
    }
    printf("%ld\n", threads > 0 ? sum : work(n));
    if (argc > 2 && strcmp(argv[2], "topk") == 0) {
        hotprof_topk_entry top[3];
        int k = hotprof_snapshot_topk(HOTPROF_SAMPLE_SUBPATH, 3, top);
        if (k < 0) fprintf(stderr, "topk -1\n");
        for (int i = 0; i < k; i++)
            fprintf(stderr, "topk %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", top[i].key1, top[i].key2, top[i].count);
    }
    return 0;
}

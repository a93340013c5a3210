/* osp_loop.c — a program with known hot subpaths for the OSP tests (test_osp_run.sh): one loop of
 * N iterations whose body takes one of two branches (i % 3), in a function of its own. Prints a
 * checksum (the output must be the same profiled or not). With a second argument "topk" it then
 * prints the top 3 subpaths of hotprof_snapshot_topk(HOTPROF_SAMPLE_SUBPATH) as
 * "topk KEY LENGTH COUNT" lines on stderr (and "topk -1" if the call failed).
 * Usage: osp_loop [N [topk]] (default N 200000). */
#include <hotprof/hotprof.h>
#include <inttypes.h>
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

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    printf("%ld\n", work(n));
    if (argc > 2 && strcmp(argv[2], "topk") == 0) {
        hotprof_topk_entry top[3];
        int k = hotprof_snapshot_topk(HOTPROF_SAMPLE_SUBPATH, 3, top);
        if (k < 0) fprintf(stderr, "topk -1\n");
        for (int i = 0; i < k; i++)
            fprintf(stderr, "topk %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", top[i].key1, top[i].key2, top[i].count);
    }
    return 0;
}

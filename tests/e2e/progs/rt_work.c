/* rt_work.c — a small workload for the runtime's defect tests (test_defects_rt.sh).
 *   rt_work CALLS [SLEEP_MS [ARGS...]]   calls work() CALLS times, then sleeps SLEEP_MS ms.
 * Extra arguments are ignored (a long command line for the INFO argc test). Prints
 *   expect work CALLS
 * Used for: concurrent runs on one output (the sleep makes them overlap), full disks, outputs
 * that cannot be written, long command lines and several images under one `hotprof run`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i) { sink += i * 3 + 1; }

int main(int argc, char **argv)
{
    unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    for (unsigned long i = 0; i < calls; i++) work(i);
    if (ms > 0) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    printf("expect work %lu\n", calls);
    return 0;
}

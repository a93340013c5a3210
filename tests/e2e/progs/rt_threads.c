/* rt_threads.c — many short-lived threads, for the per-thread memory test.
 *   rt_threads N [LIVE]   starts N threads, at most LIVE (default 4) alive at once; each calls
 *                         tick() 10 times and ends. Prints "expect tick 10*N" and the process's
 *                         peak resident set in KiB ("rss_kb K", VmHWM of /proc/self/status),
 *                         measured after the last thread was joined. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) void tick(unsigned long i) { __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED); }

static void *worker(void *arg)
{
    for (unsigned long i = 0; i < 10; i++) tick(i + (unsigned long)(size_t)arg);
    return NULL;
}

static long peak_rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    unsigned live = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 4;
    if (live < 1 || live > 64) live = 4;
    pthread_t th[64];
    unsigned long started = 0;
    while (started < n) {
        unsigned k = 0;
        for (; k < live && started < n; k++, started++)
            if (pthread_create(&th[k], NULL, worker, (void *)(size_t)started)) return 2;
        for (unsigned j = 0; j < k; j++) pthread_join(th[j], NULL);
    }
    printf("expect tick %lu\n", 10 * n);
    printf("rss_kb %ld\n", peak_rss_kb());
    return 0;
}

/* tnv_bench.c — ns per TNV update (core/summary/tnv.c) on value streams shaped like a shadow's
 * value hooks (bench/shadow/tnv_bench.sh builds and runs it; quick, not part of run.sh):
 *   uniform  every value new (a flat tail: nearly every update replaces the LFU entry)
 *   zipf     Zipf(1.0) over 10000 values
 *   hot8     8 hot values, 10% noise
 *   cycle60  60 values in turn (more than the table holds, the LFU worst case)
 *   repeat   a semi-invariant instruction: the previous value again 90% of the time, else one of 1000
 * Over `sites` tables (N = 50, K = 2000) updated round-robin, as a shadow's sites are.
 * Usage: tnv_bench [updates per stream] [sites]   prints one line per stream: name ns/update.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "core/summary/tnv.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill(const char *kind, uint64_t *v, size_t n, size_t sites)
{
    static double cdf[10000];
    double sum = 0;
    for (int i = 0; i < 10000; i++) sum += 1.0 / (i + 1), cdf[i] = sum;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(next_u64() >> 11) / 9007199254740992.0;
        if (kind[0] == 'u') v[i] = next_u64();
        else if (kind[0] == 'h') v[i] = u < 0.9 ? (uint64_t)(u * 8.0 / 0.9) : next_u64();
        else if (kind[0] == 'c') v[i] = i % 60;
        else if (kind[0] == 'r') v[i] = i >= sites && u < 0.9 ? v[i - sites] : next_u64() % 1000; /* the site's previous */
        else { /* zipf: binary search of the cdf */
            double x = u * sum;
            size_t lo = 0, hi = 9999;
            while (lo < hi) { size_t m = (lo + hi) / 2; if (cdf[m] < x) lo = m + 1; else hi = m; }
            v[i] = lo * 0x100000001b3ull;
        }
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 4000000, sites = argc > 2 ? (size_t)atol(argv[2]) : 16;
    size_t bytes = hp_tnv_bytes(HP_TNV_DEFAULT_N);
    uint8_t *mem = malloc(bytes * sites);
    uint64_t *v = malloc(n * sizeof *v);
    const char *kinds[] = {"uniform", "zipf", "hot8", "cycle60", "repeat"};
    if (!mem || !v) return 1;
    for (int k = 0; k < 5; k++) {
        fill(kinds[k], v, n, sites);
        hp_tnv *t[1024];
        for (size_t s = 0; s < sites && s < 1024; s++)
            t[s] = hp_tnv_init(mem + s * bytes, bytes, HP_TNV_DEFAULT_N, HP_TNV_DEFAULT_CLEAR);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (size_t i = 0; i < n; i++) hp_tnv_update(t[i % sites], v[i], 1);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        const hp_tnv_entry *e;
        printf("%-8s %6.2f ns/update  (site 0: %u entries)\n", kinds[k], ns / (double)n, hp_tnv_entries(t[0], &e));
    }
    free(mem), free(v);
    return 0;
}

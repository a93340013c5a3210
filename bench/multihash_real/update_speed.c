/* update_speed.c — the cost of one multi-hash update (core/summary/multihash.c) with the paper's
 * hash (8 byte-table lookups per table) and the fast mixer, at 1, 4 and 16 tables, Z = 2048,
 * L = 10^4, t = 1%, C1 R0 shielding retaining: 20 M keys, 7 in 8 drawn from 1000 hot tuples
 * (more than the accumulator holds, so most updates reach the tables), 1 in 8 random.
 * Build and run (not part of `make`; docs/intervals.md quotes its numbers):
 *   cc -O2 -Isrc bench/multihash_real/update_speed.c build/lib/libhotprof_core.a -lm -o /tmp/us && /tmp/us
 */
#include "core/summary/multihash.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { N = 20000000 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    uint64_t *keys = malloc(N * sizeof *keys), x = 1;
    if (!keys) return 1;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        keys[i] = x % 8 == 0 ? x : hp_multihash_tuple_key(0x1000 + (x >> 40) % 20, (x >> 50) % 50);
    }
    for (int fast = 0; fast < 2; fast++)
        for (unsigned n = 1; n <= 16; n *= 4) {
            hp_multihash_params p = {n, 2048, 7, 0.01, 10000, 1, 1, 0, 1, 5, fast, 0};
            size_t b = hp_multihash_bytes(&p);
            void *m = aligned_alloc(64, (b + 63) / 64 * 64);
            hp_multihash *mh = m ? hp_multihash_init(m, b, &p) : NULL;
            if (!mh) return 1;
            double t0 = now();
            unsigned long done = 0;
            for (int i = 0; i < N; i++) done += (unsigned long)hp_multihash_update(mh, keys[i]);
            double t1 = now();
            printf("%s hash, n=%2u: %5.1f ns/update (%lu intervals)\n", fast ? "fast " : "paper", n, (t1 - t0) / N * 1e9, done);
            free(m);
        }
    free(keys);
    return 0;
}

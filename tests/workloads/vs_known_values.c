/* vs_known_values.c — a program with known values for value sampling's tests (docs/value-sampling.md):
 *   load_sevens: a load whose destination register holds 7 in 90% of iterations (tab[i % 10]);
 *   use_one / scale: scale(double) (noinline, no IPA) always called with the argument 1.0;
 *   stride_sum: a load whose address strides by 64 over 8 cache lines (8 addresses, 12.5% each).
 * `vs_known_values [rounds]` prints one checksum line; deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

static volatile int tab[10] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 3};
static volatile double factor = 1.5;
static uint64_t lines[8][8] __attribute__((aligned(64)));

NOIPA static uint64_t load_sevens(uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s = s * 31 + (uint64_t)tab[i % 10];
    return s;
}

NOIPA static double scale(double x) { return x * factor + 0.25; }

NOIPA static double use_one(uint64_t n)
{
    double acc = 0;
    for (uint64_t i = 0; i < n; i++) acc += scale(1.0);
    return acc;
}

NOIPA static uint64_t stride_sum(uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += ((volatile uint64_t *)lines[i & 7])[0] ^ i;
    return s;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200;
    if (rounds < 1) {
        fprintf(stderr, "usage: vs_known_values [rounds >= 1]\n");
        return 1;
    }
    for (int i = 0; i < 8; i++) lines[i][0] = (uint64_t)i * 1000003u;
    uint64_t a = 0, c = 0;
    double b = 0;
    for (long r = 0; r < rounds; r++) {
        a += load_sevens(1000000);
        b += use_one(400000);
        c += stride_sum(1000000);
    }
    printf("ok %llu %.3f %llu\n", (unsigned long long)a, b, (unsigned long long)c);
    return 0;
}

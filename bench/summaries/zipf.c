/* zipf.c — Zipf stream generator by CDF inversion (see zipf.h). The CDF table (universe doubles)
 * is the only allocation; it is freed before returning. */
#include "zipf.h"
#include "core/base/rng.h"
#include <math.h>
#include <stdlib.h>

uint64_t zipf_key_of_rank(uint64_t rank)
{
    uint64_t z = rank + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double *build_cdf(double alpha, uint32_t universe)
{
    double *cdf = malloc((size_t)universe * sizeof *cdf);
    if (!cdf) return NULL;
    double sum = 0.0;
    for (uint32_t r = 0; r < universe; r++) {
        sum += pow((double)(r + 1), -alpha);
        cdf[r] = sum;
    }
    for (uint32_t r = 0; r < universe; r++) cdf[r] /= sum;
    cdf[universe - 1] = 1.0;
    return cdf;
}

/* Smallest index whose CDF value exceeds u. */
static uint32_t invert(const double *cdf, uint32_t universe, double u)
{
    uint32_t lo = 0, hi = universe - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

int zipf_fill(uint64_t *keys, size_t n, double alpha, uint32_t universe, uint64_t seed)
{
    double *cdf = build_cdf(alpha, universe);
    if (!cdf) return -1;
    hp_rng rng;
    hp_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        keys[i] = zipf_key_of_rank((uint64_t)invert(cdf, universe, hp_rng_double(&rng)) + 1);
    free(cdf);
    return 0;
}

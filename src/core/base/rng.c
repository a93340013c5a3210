/* rng.c — xoshiro256** (Blackman & Vigna) seeded by splitmix64, plus the derived distributions
 * the samplers need: uniform, geometric skips and fast binomial thinning. See rng.h. */
#include "core/base/rng.h"
#include <math.h>

uint64_t hp_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void hp_rng_seed(hp_rng *r, uint64_t seed)
{
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) r->s[i] = hp_splitmix64(&sm);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t hp_rng_next(hp_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double hp_rng_double(hp_rng *r) { return (double)(hp_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t hp_rng_below(hp_rng *r, uint64_t n)
{
    __uint128_t m = (__uint128_t)hp_rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = -n % n;
        while (low < threshold) {
            m = (__uint128_t)hp_rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

uint64_t hp_rng_geometric(hp_rng *r, double p)
{
    if (p >= 1.0) return 0;
    double u = 1.0 - hp_rng_double(r); /* (0, 1] */
    double k = floor(log(u) / log1p(-p));
    if (!(k < 9.2e18)) return UINT64_MAX / 2;
    return (uint64_t)k;
}

double hp_rng_normal(hp_rng *r)
{
    double u1 = 1.0 - hp_rng_double(r), u2 = hp_rng_double(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Successes among n trials, counted by geometric jumps over the failures between them. */
static uint64_t binomial_by_skips(hp_rng *r, uint64_t n, double p)
{
    uint64_t hits = 0, pos = 0;
    for (;;) {
        uint64_t skip = hp_rng_geometric(r, p);
        if (skip >= n - pos) return hits;
        pos += skip + 1;
        hits++;
        if (pos >= n) return hits;
    }
}

uint64_t hp_rng_binomial(hp_rng *r, uint64_t n, double p)
{
    if (n == 0 || p <= 0.0) return 0;
    if (p >= 1.0) return n;
    if (n > HP_BINOMIAL_EXACT_LIMIT) {
        double mean = (double)n * p, sd = sqrt(mean * (1.0 - p));
        double x = floor(mean + sd * hp_rng_normal(r) + 0.5);
        if (x < 0) x = 0;
        if (x > (double)n) x = (double)n;
        return (uint64_t)x;
    }
    if (p > 0.5) return n - binomial_by_skips(r, n, 1.0 - p);
    return binomial_by_skips(r, n, p);
}

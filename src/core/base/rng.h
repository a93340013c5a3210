/* rng.h — seeded randomness for sampling: xoshiro256** seeded through splitmix64.
 *
 * State is a plain struct owned by the caller (no globals). The same seed gives the same stream
 * on every machine. Geometric skips replace one coin flip per item; binomial thinning costs
 * O(min(p, 1-p) * n + 1) for small n and O(1) (normal approximation, rounded and clamped) for
 * n above HP_BINOMIAL_EXACT_LIMIT.
 */
#ifndef HOTPROF_CORE_RNG_H
#define HOTPROF_CORE_RNG_H
#include <stdint.h>

typedef struct hp_rng { uint64_t s[4]; } hp_rng;

#define HP_BINOMIAL_EXACT_LIMIT 100000u

uint64_t hp_splitmix64(uint64_t *state);
void hp_rng_seed(hp_rng *r, uint64_t seed);
uint64_t hp_rng_next(hp_rng *r);
/* Uniform in [0, 1) with 53 bits. */
double hp_rng_double(hp_rng *r);
/* Uniform in [0, n), n > 0, unbiased (Lemire). */
uint64_t hp_rng_below(hp_rng *r, uint64_t n);
/* Number of failures before the first success of a Bernoulli(p) trial, 0 < p <= 1.
 * P(k) = (1-p)^k p. Saturates at UINT64_MAX/2 for tiny p. */
uint64_t hp_rng_geometric(hp_rng *r, double p);
/* Number of successes in n Bernoulli(p) trials. */
uint64_t hp_rng_binomial(hp_rng *r, uint64_t n, double p);
/* Standard normal deviate (Box–Muller, one of the pair). */
double hp_rng_normal(hp_rng *r);

#endif

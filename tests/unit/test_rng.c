/* test_rng.c — properties of the seeded RNG (src/core/base/rng.c): reproducibility from the seed,
 * uniformity, and that geometric and binomial draws have the mean and variance their
 * distributions define (checked within several standard errors over many draws). */
#include "core/base/rng.h"
#include "test.h"

TEST(same_seed_same_stream)
{
    hp_rng a, b, c;
    hp_rng_seed(&a, 42);
    hp_rng_seed(&b, 42);
    hp_rng_seed(&c, 43);
    int same = 1, differs = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = hp_rng_next(&a), y = hp_rng_next(&b), z = hp_rng_next(&c);
        same &= x == y;
        differs |= x != z;
    }
    CHECK(same);
    CHECK(differs);
}

TEST(splitmix_reference_value)
{
    /* splitmix64 from state 0: first output per Vigna's reference implementation. */
    uint64_t s = 0;
    CHECK_EQ_U64(hp_splitmix64(&s), 0xe220a8397b1dcdafull);
}

TEST(double_is_uniform_in_unit_interval)
{
    hp_rng r;
    hp_rng_seed(&r, 7);
    int buckets[10] = {0};
    const int n = 200000;
    int in_range = 1;
    for (int i = 0; i < n; i++) {
        double u = hp_rng_double(&r);
        in_range &= u >= 0.0 && u < 1.0;
        buckets[(int)(u * 10)]++;
    }
    CHECK(in_range);
    double chi2 = 0;
    for (int i = 0; i < 10; i++) chi2 += (buckets[i] - n / 10.0) * (buckets[i] - n / 10.0) / (n / 10.0);
    CHECK(chi2 < 27.88); /* chi-square, 9 d.o.f., p = 0.001 */
}

TEST(below_stays_below_and_covers)
{
    hp_rng r;
    hp_rng_seed(&r, 9);
    int seen[7] = {0}, ok = 1;
    for (int i = 0; i < 7000; i++) {
        uint64_t v = hp_rng_below(&r, 7);
        ok &= v < 7;
        if (v < 7) seen[v]++;
    }
    CHECK(ok);
    for (int i = 0; i < 7; i++) CHECK(seen[i] > 800 && seen[i] < 1200);
}

static void check_geometric_mean(double p, uint64_t seed)
{
    hp_rng r;
    hp_rng_seed(&r, seed);
    const int n = 200000;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (double)hp_rng_geometric(&r, p);
    double mean = (1 - p) / p, sd = sqrt(1 - p) / p;
    CHECK_NEAR(sum / n, mean, 5 * sd / sqrt(n) + 1e-12);
}

TEST(geometric_mean_matches_distribution)
{
    check_geometric_mean(0.5, 1);
    check_geometric_mean(0.01, 2);
    check_geometric_mean(0.9, 3);
    hp_rng r;
    hp_rng_seed(&r, 4);
    CHECK_EQ_U64(hp_rng_geometric(&r, 1.0), 0);
}

static void check_binomial(uint64_t n, double p, uint64_t seed)
{
    hp_rng r;
    hp_rng_seed(&r, seed);
    const int trials = 20000;
    double sum = 0, sumsq = 0;
    int in_range = 1;
    for (int i = 0; i < trials; i++) {
        uint64_t k = hp_rng_binomial(&r, n, p);
        in_range &= k <= n;
        sum += (double)k;
        sumsq += (double)k * (double)k;
    }
    double mean = (double)n * p, var = mean * (1 - p);
    double got_mean = sum / trials, got_var = sumsq / trials - got_mean * got_mean;
    CHECK(in_range);
    CHECK_NEAR(got_mean, mean, 5 * sqrt(var / trials) + 1e-9);
    CHECK_NEAR(got_var, var, 0.1 * var + 1e-9);
}

TEST(binomial_moments_small_and_large_n)
{
    check_binomial(10, 0.3, 11);
    check_binomial(1000, 15.0 / 16.0, 12); /* the concise-samples thinning case */
    check_binomial(5000, 0.01, 13);
    check_binomial(10000000, 0.5, 14);     /* normal-approximation path */
    hp_rng r;
    hp_rng_seed(&r, 15);
    CHECK_EQ_U64(hp_rng_binomial(&r, 100, 0.0), 0);
    CHECK_EQ_U64(hp_rng_binomial(&r, 100, 1.0), 100);
    CHECK_EQ_U64(hp_rng_binomial(&r, 0, 0.5), 0);
}

int main(void)
{
    RUN(same_seed_same_stream);
    RUN(splitmix_reference_value);
    RUN(double_is_uniform_in_unit_interval);
    RUN(below_stays_below_and_covers);
    RUN(geometric_mean_matches_distribution);
    RUN(binomial_moments_small_and_large_n);
    return test_main_end();
}

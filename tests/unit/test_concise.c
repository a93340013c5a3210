/* test_concise.c — Gibbons–Matias concise samples against Exact.
 * Checks: exact answers while the list never filled (tau = 1); the stated interval
 * (z = 3, ~99.7%) holds for all but a fraction of keys consistent with it, over Zipf alphas
 * {0.8,1,1.2,1.5}, uniform noise, adversarial orders and many seeds (all keys, and the held keys
 * separately); count*tau is unbiased (mean over 300-1000 seeds within 4.5 standard errors of the true
 * count, for the hottest keys and the stream length), also with weighted updates and after a
 * merge of two halves; the per-PC configuration (N = 16, f = 16/15) finds the hot values; round
 * trip (and identical continuation, the RNG state travels); corrupt input; parameter checks.
 */
#include "core/summary/concise.h"
#include "streams.h"

/* Interval misses over all keys of the truth, and over its 200 hottest keys (a fixed set of
 * keys, so the per-key probability applies to it as well). */
typedef struct rate { size_t checked, outside, hot_checked, hot_outside; } rate;

static void rate_add(rate *r, const summary *x, const truth *t)
{
    bound_stats st = {0, 0, 0, 0};
    bounds_check(x, t, &st);
    CHECK_EQ_U64(st.bad_order, 0);
    r->checked += st.checked;
    r->outside += st.below_lower + st.above_upper;
    for (size_t i = 0; i < t->nall && i < 200; i++) {
        hp_estimate q;
        x->vt->query(x->s, t->all[i].key, &q);
        r->hot_checked++;
        r->hot_outside += t->all[i].count < q.lower || t->all[i].count > q.upper;
    }
}

/* Stated: a fixed key is outside with probability <= 0.27%. Allowed: that rate plus 4 binomial
 * standard deviations (so a correct summary fails with probability < 1e-4). */
static void rate_check(const rate *r, const char *what)
{
    double p = 0.0027;
    double all = (double)r->outside / r->checked, hot = (double)r->hot_outside / r->hot_checked;
    printf("  %s: outside interval %zu/%zu keys (%.4f%%), 200 hottest %zu/%zu (%.3f%%)\n", what, r->outside,
           r->checked, 100 * all, r->hot_outside, r->hot_checked, 100 * hot);
    CHECK(r->outside <= p * r->checked + 4 * sqrt(p * r->checked));
    CHECK(r->hot_outside <= p * r->hot_checked + 4 * sqrt(p * r->hot_checked));
}

TEST(concise_exact_while_list_fits)
{
    stream s = stream_zipf(100000, 100, 1.0, 50, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_concise_vt, 4096, 1);
    REQUIRE(x.s != NULL);
    REQUIRE(hp_concise_capacity(x.s) >= 100);
    summary_feed(&x, &s, 0, s.n);
    CHECK(hp_concise_tau(x.s) == 1.0);
    size_t bad = 0;
    for (size_t i = 0; i < t.nall; i++) {
        hp_estimate q;
        hp_concise_query(x.s, t.all[i].key, &q);
        bad += q.count != t.all[i].count || q.lower != q.count || q.upper != q.count;
    }
    CHECK_EQ_U64(bad, 0);
    hp_estimate top[10], want[10];
    CHECK_EQ_U64(hp_concise_topk(x.s, top, 10), 10);
    hp_exact_topk(t.e, want, 10);
    for (int i = 0; i < 10; i++) CHECK(estimates_equal(&top[i], &want[i]));
    summary_free(&x);
    truth_free(&t);
    stream_free(&s);
}

TEST(concise_intervals_hold_at_stated_rate)
{
    static const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    rate r = {0, 0, 0, 0};
    for (int a = 0; a < 4; a++) {
        for (int order = 0; order < ORDER_COUNT; order++) {
            if (order != ORDER_RANDOM && a != 1) continue;
            stream s = stream_zipf(1000000, 100000, alphas[a], 60 + a, order);
            truth t = truth_of(&s, 0, s.n);
            for (uint64_t seed = 0; seed < 4; seed++) {
                summary x = summary_new(&hp_concise_vt, seed % 2 ? 4096 : 16384, seed * 7 + a);
                summary_feed(&x, &s, 0, s.n);
                CHECK(hp_concise_tau(x.s) > 1.0);
                rate_add(&r, &x, &t);
                summary_free(&x);
            }
            truth_free(&t);
            stream_free(&s);
        }
    }
    stream u = stream_uniform(300000, 3000, 69);
    truth t = truth_of(&u, 0, u.n);
    for (uint64_t seed = 0; seed < 8; seed++) {
        summary x = summary_new(&hp_concise_vt, 4096, seed);
        summary_feed(&x, &u, 0, u.n);
        rate_add(&r, &x, &t);
        summary_free(&x);
    }
    truth_free(&t);
    stream_free(&u);
    rate_check(&r, "concise");
}

/* Mean of `est` over seeds within 4.5 standard errors (+1 for rounding) of `want`. 4.5, not 3:
 * 13 means are compared per call, and an estimate of a key seen ~tau times is a lumpy,
 * right-skewed multiple of tau, so the normal approximation of the mean is loose in the tail. */
static int unbiased(const double *est, size_t n, double want)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++) mean += est[i];
    mean /= n;
    for (size_t i = 0; i < n; i++) var += (est[i] - mean) * (est[i] - mean);
    double se = sqrt(var / (n - 1) / n);
    if (!(fabs(mean - want) <= 4.5 * se + 1)) {
        printf("  biased? mean %.1f want %.1f se %.2f\n", mean, want, se);
        return 0;
    }
    return 1;
}

#define MAX_SEEDS 1000
#define WATCH 12

/* Feeds `s` (weights w, or 1) into `seeds` summaries of `budget` (two halves merged if `merge`)
 * and checks that the estimates of the WATCH hottest keys and of the length are unbiased. */
static void check_unbiased(const stream *s, const uint64_t *w, size_t budget, int merge, size_t seeds)
{
    static double est[WATCH + 1][MAX_SEEDS];
    truth t = {0};
    size_t tb = hp_exact_bytes_for((size_t)1 << 18);
    t.mem = malloc(tb);
    t.e = hp_exact_init(t.mem, tb);
    for (size_t i = 0; i < s->n; i++) hp_exact_update(t.e, s->keys[i], w ? w[i] : 1);
    hp_estimate top[WATCH];
    hp_exact_topk(t.e, top, WATCH);
    void *m1 = malloc(budget), *m2 = malloc(budget);
    for (uint64_t seed = 0; seed < seeds && seed < MAX_SEEDS; seed++) {
        hp_concise *a = hp_concise_init(m1, budget, seed), *b = hp_concise_init(m2, budget, seed + 1000);
        size_t half = merge ? s->n / 2 : s->n;
        for (size_t i = 0; i < s->n; i++) hp_concise_update(i < half ? a : b, s->keys[i], w ? w[i] : 1);
        if (merge) hp_concise_merge(a, b);
        for (int k = 0; k < WATCH; k++) {
            hp_estimate q;
            hp_concise_query(a, top[k].key, &q);
            est[k][seed] = (double)q.count;
        }
        est[WATCH][seed] = (double)hp_concise_sample_size(a) * hp_concise_tau(a);
        CHECK(hp_concise_tau(a) > 1.0);
    }
    size_t biased = 0;
    for (int k = 0; k < WATCH; k++) biased += !unbiased(est[k], seeds, (double)top[k].count);
    biased += !unbiased(est[WATCH], seeds, (double)hp_exact_total(t.e));
    CHECK_EQ_U64(biased, 0);
    free(m1); free(m2); free(t.mem);
}

TEST(concise_estimates_unbiased)
{
    stream s = stream_zipf(100000, 10000, 1.0, 70, ORDER_RANDOM);
    check_unbiased(&s, NULL, 1024, 0, 1000);
    stream_free(&s);
}

TEST(concise_weighted_updates_unbiased)
{
    stream s = stream_zipf(30000, 10000, 0.8, 71, ORDER_BURSTS);
    uint64_t *w = malloc(s.n * 8);
    hp_rng g;
    hp_rng_seed(&g, 72);
    for (size_t i = 0; i < s.n; i++) w[i] = 1 + hp_rng_below(&g, i % 50 ? 20 : 3000);
    check_unbiased(&s, w, 1024, 0, 300);
    free(w);
    stream_free(&s);
}

TEST(concise_merge_unbiased_and_bounded)
{
    stream s = stream_zipf(100000, 10000, 1.2, 73, ORDER_COLD_FIRST);
    check_unbiased(&s, NULL, 1024, 1, 1000);
    stream_free(&s);
    rate r = {0, 0, 0, 0};
    stream big = stream_zipf(1000000, 100000, 1.0, 74, ORDER_ALTERNATING);
    truth t = truth_of(&big, 0, big.n);
    for (uint64_t seed = 0; seed < 6; seed++) {
        summary a = summary_new(&hp_concise_vt, 16384, seed), b = summary_new(&hp_concise_vt, 4096, seed + 99);
        summary_feed(&a, &big, 0, big.n / 3);
        summary_feed(&b, &big, big.n / 3, big.n);
        CHECK_EQ_U64(a.vt->merge(a.s, b.s), 0);
        CHECK_EQ_U64(hp_concise_total(a.s), big.n);
        CHECK(a.vt->merge(a.s, a.s) == -1);
        rate_add(&r, &a, &t);
        summary_free(&a); summary_free(&b);
    }
    rate_check(&r, "concise merged");
    truth_free(&t);
    stream_free(&big);
}

TEST(concise_per_pc_value_list)
{
    size_t budget = hp_concise_bytes_for(HP_CONCISE_DEFAULT_N);
    void *mem = malloc(budget);
    size_t misses = 0;
    for (uint64_t seed = 0; seed < 100; seed++) {
        hp_concise *c = hp_concise_init_ex(mem, budget, HP_CONCISE_DEFAULT_N, 0, seed);
        REQUIRE(c != NULL);
        CHECK(hp_concise_capacity(c) == 16 && hp_concise_bytes_used(c) <= budget);
        hp_rng g;
        hp_rng_seed(&g, seed + 500);
        /* 4 hot values, 15% each; 40% noise over 10^4 values */
        for (int i = 0; i < 20000; i++) {
            uint64_t r = hp_rng_below(&g, 100);
            hp_concise_update(c, r < 60 ? 1000 + r / 15 : hp_rng_below(&g, 10000) + 2000, 1);
        }
        hp_estimate top[4];
        size_t k = hp_concise_topk(c, top, 4);
        for (size_t i = 0; i < k; i++) misses += top[i].key < 1000 || top[i].key > 1003;
        misses += 4 - k;
    }
    printf("  per-PC N=16: %zu of 400 top-4 slots not a hot value\n", misses);
    CHECK(misses <= 40); /* of 400 */
    free(mem);
}

TEST(concise_roundtrip_and_continuation)
{
    stream s = stream_zipf(400000, 100000, 1.0, 80, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_concise_vt, 16384, 3);
    summary_feed(&x, &s, 0, s.n / 2);
    CHECK_EQ_U64(roundtrip_check(&x, &t), 0);
    size_t len = x.vt->serialized_size(x.s);
    uint8_t *buf = malloc(len);
    void *mem = malloc(x.budget);
    x.vt->serialize(x.s, buf, len);
    summary y = {x.vt, x.vt->deserialize(mem, x.budget, buf, len), mem, x.budget};
    REQUIRE(y.s != NULL);
    summary_feed(&x, &s, s.n / 2, s.n);
    summary_feed(&y, &s, s.n / 2, s.n);
    hp_estimate a[50], b[50];
    size_t ka = x.vt->topk(x.s, a, 50), kb = y.vt->topk(y.s, b, 50), diff = ka != kb;
    for (size_t i = 0; i < ka && i < kb; i++) diff += !estimates_equal(&a[i], &b[i]);
    CHECK_EQ_U64(diff, 0);
    CHECK(hp_concise_tau(x.s) == hp_concise_tau(y.s));
    free(buf);
    summary_free(&x); summary_free(&y);
    truth_free(&t);
    stream_free(&s);
}

TEST(concise_corrupt_input)
{
    stream s = stream_zipf(20000, 2000, 1.0, 81, ORDER_RANDOM);
    summary x = summary_new(&hp_concise_vt, 2048, 4);
    summary_feed(&x, &s, 0, s.n);
    corrupt_stats st = corrupt_check(&x, 20000, 6, NULL);
    CHECK(st.truncations > 100);
    CHECK_EQ_U64(st.truncations_accepted, 0);
    CHECK(st.flips_accepted < st.flips);
    summary_free(&x);
    stream_free(&s);
}

/* Hostile but well-formed input: tau at its cap, counts and total at UINT64_MAX, f at its cap.
 * Everything must saturate rather than overflow (UBSan checks the float-to-int casts). */
TEST(concise_extreme_values)
{
    uint64_t mem[512];
    uint8_t buf[4096];
    hp_concise *c = hp_concise_init_ex(mem, sizeof mem, 4, 0, 1);
    REQUIRE(c != NULL);
    for (uint64_t i = 0; i < 4; i++) hp_concise_update(c, i, 1);
    size_t len = hp_concise_serialize(c, buf, sizeof buf);
    REQUIRE(len == 88 + 4 * 16);
    double tau = HP_GM_MAX_TAU, f = 1024.0;
    memcpy(buf + 16, &f, 8); /* little-endian host assumed, as on x86-64 */
    memcpy(buf + 24, &tau, 8);
    memset(buf + 32, 0xff, 8); /* total */
    for (int i = 0; i < 4; i++) memset(buf + 88 + 16 * i + 8, 0xff, 8);
    hp_concise *d = hp_concise_deserialize(mem, sizeof mem, buf, len);
    REQUIRE(d != NULL);
    hp_estimate top[8], q;
    size_t k = hp_concise_topk(d, top, 8), bad = 0;
    for (size_t i = 0; i < k; i++) bad += top[i].lower > top[i].upper || top[i].upper != UINT64_MAX;
    for (uint64_t i = 0; i < 1000; i++) hp_concise_update(d, 100 + i, UINT64_MAX / 3);
    hp_concise_query(d, 100, &q);
    bad += q.lower > q.upper;
    CHECK_EQ_U64(bad, 0);
    CHECK(hp_concise_tau(d) <= HP_GM_MAX_TAU);
    CHECK_EQ_U64(hp_concise_total(d), UINT64_MAX);
}

TEST(concise_parameters)
{
    static uint64_t mem[1024];
    CHECK(hp_concise_init(mem, 40, 1) == NULL);
    CHECK(hp_concise_init_ex(mem, sizeof mem, 1, 0, 1) == NULL);
    CHECK(hp_concise_init_ex(mem, sizeof mem, 16, 1.0, 1) == NULL);
    CHECK(hp_concise_init_ex(mem, sizeof mem, 16, NAN, 1) == NULL);
    CHECK(hp_concise_init_ex(mem, sizeof mem, 100000, 0, 1) == NULL);
    CHECK_NEAR(hp_gm_default_factor(16), 16.0 / 15.0, 1e-12);
    CHECK_NEAR(hp_gm_default_factor(1000), 1.05, 1e-12);
    size_t bad = 0;
    for (size_t budget = 200; budget <= sizeof mem; budget += 37) {
        hp_concise *c = hp_concise_init((char *)mem + 5, budget - 5, 1);
        bad += c && (char *)c + hp_concise_bytes_used(c) > (char *)mem + budget;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(strcmp(hp_concise_vt.name, "concise") == 0 && hp_concise_vt.kind == HP_SUMMARY_CONCISE);
}

int main(int argc, char **argv)
{
    if (streams_bench_requested(argc, argv)) {
        streams_bench(&hp_concise_vt);
        return 0;
    }
    RUN(concise_exact_while_list_fits);
    RUN(concise_intervals_hold_at_stated_rate);
    RUN(concise_estimates_unbiased);
    RUN(concise_weighted_updates_unbiased);
    RUN(concise_merge_unbiased_and_bounded);
    RUN(concise_per_pc_value_list);
    RUN(concise_roundtrip_and_continuation);
    RUN(concise_corrupt_input);
    RUN(concise_extreme_values);
    RUN(concise_parameters);
    return test_main_end();
}

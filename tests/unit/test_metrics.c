/* test_metrics.c — unit tests for src/core/metrics/ (items, hps, multihash, shadow, osp, agreement).
 *
 * Every expected number is worked by hand from the paper's definition in the comment above the
 * check; edge cases (empty, identical, disjoint), (a)symmetry as each definition says, and one
 * randomized property test: OSP's Chernoff bounds cover the true count at least at the stated
 * confidence when sampling is simulated with hp_rng (seed printed, fixed).
 */
#include "core/metrics/metrics.h"
#include "core/base/rng.h"
#include "test.h"
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static hp_metric_item scratch[4096];
static hp_value_site site_scratch[64];

/* ---- sorting -------------------------------------------------------------------------------- */

TEST(sort_orders_and_breaks_ties_by_key)
{
    hp_metric_item v[] = {{5, 1}, {3, 7}, {9, 7}, {1, 2}, {7, 0}};
    hp_metric_sort_by_weight(v, N_OF(v));
    uint64_t want[] = {3, 9, 1, 5, 7};
    for (size_t i = 0; i < N_OF(v); i++) CHECK_EQ_U64(v[i].key, want[i]);
    hp_metric_sort_by_key(v, N_OF(v));
    for (size_t i = 1; i < N_OF(v); i++) CHECK(v[i - 1].key < v[i].key);
    CHECK_NEAR(hp_metric_total(v, N_OF(v)), 17.0, 0);
}

/* ---- HPS overlap -----------------------------------------------------------------------------
 * A = {1:50, 2:30, 3:15, 4:5}, total 100. Heaviest-first cumulative 50, 80, 95 >= 90: selects
 *     {1, 2, 3}; contributions (of the whole total) .50 .30 .15.
 * B = {1:40, 2:40, 5:20}, total 100. Cumulative 40, 80, 100: selects all; .40 .40 .20.
 * overlap = min(.50,.40) + min(.30,.40) = .70 (5 and 3 are each selected in one only).
 * Renormalized: A's contributions over 95: 50/95, 30/95, 15/95 -> .40 + 30/95 = .715789...
 * A vs A (paper): .50 + .30 + .15 = .95 (the selected share); renormalized or coverage 1: 1. */
static const hp_metric_item ov_a[] = {{1, 50}, {2, 30}, {3, 15}, {4, 5}};
static const hp_metric_item ov_b[] = {{5, 20}, {1, 40}, {2, 40}};

TEST(overlap_hand_example_is_symmetric)
{
    CHECK_NEAR(hp_overlap(ov_a, 4, ov_b, 3, 0.9, HP_OVERLAP_PAPER, scratch), 0.70, 1e-12);
    CHECK_NEAR(hp_overlap(ov_b, 3, ov_a, 4, 0.9, HP_OVERLAP_PAPER, scratch), 0.70, 1e-12);
    CHECK_NEAR(hp_overlap(ov_a, 4, ov_b, 3, 0.9, HP_OVERLAP_RENORMALIZED, scratch),
               0.40 + 30.0 / 95.0, 1e-12);
    CHECK_NEAR(hp_overlap(ov_b, 3, ov_a, 4, 0.9, HP_OVERLAP_RENORMALIZED, scratch),
               0.40 + 30.0 / 95.0, 1e-12);
}

TEST(overlap_identical_disjoint_empty)
{
    CHECK_NEAR(hp_overlap(ov_a, 4, ov_a, 4, 0.9, HP_OVERLAP_PAPER, scratch), 0.95, 1e-12);
    CHECK_NEAR(hp_overlap(ov_a, 4, ov_a, 4, 0.9, HP_OVERLAP_RENORMALIZED, scratch), 1.0, 1e-12);
    CHECK_NEAR(hp_overlap(ov_a, 4, ov_a, 4, 1.0, HP_OVERLAP_PAPER, scratch), 1.0, 1e-12);
    hp_metric_item other[] = {{10, 5}, {11, 5}};
    CHECK_NEAR(hp_overlap(ov_a, 4, other, 2, 0.9, HP_OVERLAP_PAPER, scratch), 0.0, 0);
    CHECK_NEAR(hp_overlap(ov_a, 4, NULL, 0, 0.9, HP_OVERLAP_PAPER, scratch), 0.0, 0);
    CHECK_NEAR(hp_overlap(NULL, 0, NULL, 0, 0.9, HP_OVERLAP_PAPER, scratch), 1.0, 0);
}

/* The 90% cut applies to both profiles: member 4 holds 5% of A, outside A's selection, so C = {4}
 * overlaps A by 0 (without the cut it would be min(.05, 1) = .05). Scaling a profile changes
 * nothing (contributions are relative). */
TEST(overlap_cut_applies_to_both_profiles_and_is_scale_free)
{
    hp_metric_item c[] = {{4, 100}};
    CHECK_NEAR(hp_overlap(ov_a, 4, c, 1, 0.9, HP_OVERLAP_PAPER, scratch), 0.0, 0);
    CHECK_NEAR(hp_overlap(ov_a, 4, c, 1, 1.0, HP_OVERLAP_PAPER, scratch), 0.05, 1e-12);
    hp_metric_item b10[3];
    for (size_t i = 0; i < 3; i++) b10[i] = (hp_metric_item){ov_b[i].key, ov_b[i].weight * 10};
    CHECK_NEAR(hp_overlap(ov_a, 4, b10, 3, 0.9, HP_OVERLAP_PAPER, scratch), 0.70, 1e-12);
}

/* 0.9 * 10 must select 9 of ten unit members, not 10 through rounding: identical -> 0.9. */
TEST(overlap_exact_cover_boundary)
{
    hp_metric_item ten[10];
    for (size_t i = 0; i < 10; i++) ten[i] = (hp_metric_item){i + 1, 1.0};
    CHECK_NEAR(hp_overlap(ten, 10, ten, 10, 0.9, HP_OVERLAP_PAPER, scratch), 0.9, 1e-12);
}

/* ---- Multi-hash weighted error ---------------------------------------------------------------
 * T = 10. perfect = {1:50, 2:20, 3:12, 4:9, 5:3, 7:15}; hw = {1:50, 2:25, 3:10, 4:11, 6:4}.
 *   1 both In, exact            err 0
 *   2 both In, f_h > f_p  NP    err 5
 *   3 both In, f_h < f_p  NN    err 2
 *   4 hw In, 9 < T        FP    err 2   (f_p = 9 counts in the denominator)
 *   6 hw In, absent       FP    err 4   (f_p = 0)
 *   7 15 >= T, not in hw  FN    err 15
 *   5 Out in both: not a candidate.
 * n = 6, sum f_p = 50+20+12+9+0+15 = 106, E = (5+2+2+4+15)/106 = 28/106. */
TEST(multihash_error_hand_example)
{
    hp_metric_item perfect[] = {{1, 50}, {2, 20}, {3, 12}, {4, 9}, {5, 3}, {7, 15}};
    hp_metric_item hw[] = {{6, 4}, {4, 11}, {3, 10}, {2, 25}, {1, 50}};
    hp_multihash_error e;
    REQUIRE(hp_multihash_interval_error(perfect, 6, hw, 5, 10, scratch, &e) == 0);
    CHECK_NEAR(e.total, 28.0 / 106.0, 1e-12);
    CHECK_NEAR(e.np, 5.0 / 106.0, 1e-12);
    CHECK_NEAR(e.nn, 2.0 / 106.0, 1e-12);
    CHECK_NEAR(e.fp, 6.0 / 106.0, 1e-12);
    CHECK_NEAR(e.fn, 15.0 / 106.0, 1e-12);
    CHECK_NEAR(e.fp + e.fn + e.np + e.nn, e.total, 1e-12);
    CHECK_EQ_U64(e.n_candidates, 6);
    CHECK_EQ_U64(e.n_fp, 2);
    CHECK_EQ_U64(e.n_fn, 1);
    CHECK_EQ_U64(e.n_np, 1);
    CHECK_EQ_U64(e.n_nn, 1);
    CHECK_EQ_U64(e.n_exact, 1);
}

TEST(multihash_error_edges)
{
    hp_metric_item perfect[] = {{1, 50}, {2, 20}, {3, 5}};
    hp_metric_item exact_hw[] = {{2, 20}, {1, 50}};
    hp_multihash_error e;
    /* The profiler reports exactly the perfect candidates: 0. */
    hp_multihash_interval_error(perfect, 3, exact_hw, 2, 10, scratch, &e);
    CHECK_NEAR(e.total, 0.0, 0);
    CHECK_EQ_U64(e.n_candidates, 2);
    /* Reports nothing: every candidate is a false negative, E = 70/70 = 1. */
    hp_multihash_interval_error(perfect, 3, NULL, 0, 10, scratch, &e);
    CHECK_NEAR(e.total, 1.0, 1e-12);
    CHECK_NEAR(e.fn, 1.0, 1e-12);
    /* No candidates anywhere: 0. Only phantom hardware tuples: INFINITY. */
    hp_multihash_interval_error(NULL, 0, NULL, 0, 10, scratch, &e);
    CHECK_NEAR(e.total, 0.0, 0);
    hp_metric_item phantom[] = {{9, 3}};
    hp_multihash_interval_error(NULL, 0, phantom, 1, 10, scratch, &e);
    CHECK(isinf(e.total));
    CHECK(hp_multihash_interval_error(NULL, 0, NULL, 0, 10, scratch, NULL) == -1);
    double per_interval[] = {0.1, 0.3};
    CHECK_NEAR(hp_multihash_mean_error(per_interval, 2), 0.2, 1e-12);
    CHECK_NEAR(hp_multihash_mean_error(NULL, 0), 0.0, 0);
}

/* ---- Wall weight matching --------------------------------------------------------------------
 * actual: 40 paths, key k has count 41-k. Top 5% of 40 = 2 paths: H_act = {1:40, 2:39}, sum 79.
 * est = {1:100, 3:90, 2:5}: H_est = its 2 hottest = {1, 3}; matched F = 40 -> 40/79.
 * Swapped (est as reference): 3 paths, ceil(.15) = 1: H = {1}; the other's hottest is 1 -> 1.0:
 * the metric is asymmetric. */
TEST(wall_accuracy_hand_example_and_asymmetry)
{
    hp_metric_item actual[40];
    for (size_t k = 1; k <= 40; k++) actual[k - 1] = (hp_metric_item){k, (double)(41 - k)};
    hp_metric_item est[] = {{2, 5}, {1, 100}, {3, 90}};
    CHECK_NEAR(hp_wall_accuracy(actual, 40, est, 3, 0.05, scratch), 40.0 / 79.0, 1e-12);
    CHECK_NEAR(hp_wall_accuracy(est, 3, actual, 40, 0.05, scratch), 1.0, 1e-12);
    /* 41 paths: ceil(2.05) = 3 -> H_act = {1:41, 2:40, 3:39}; est's top 3 = {1, 3, 2}: 1.0. */
    hp_metric_item actual41[41];
    for (size_t k = 1; k <= 41; k++) actual41[k - 1] = (hp_metric_item){k, (double)(42 - k)};
    CHECK_NEAR(hp_wall_accuracy(actual41, 41, est, 3, 0.05, scratch), 1.0, 1e-12);
    /* Only 2 of 3 -> with est {1, 3} plus a cold 2 at rank 4: (41 + 39) / 120. */
    hp_metric_item est4[] = {{1, 9}, {3, 8}, {7, 7}, {2, 1}};
    CHECK_NEAR(hp_wall_accuracy(actual41, 41, est4, 4, 0.05, scratch), 80.0 / 120.0, 1e-12);
}

/* Ties at the cut-off: the expectation over tie orders, the same under any relabelling of keys.
 * actual: 20 paths, {1:10} then 6 paths of 5 and 13 of 1: 5% -> 1 place, no tie at 10 -> H_act
 * = {1}. A sample whose top 1 is path 1 -> 1; one whose 3 hottest tie (1, 2, 3) -> 1/3.
 * actual2: 40 paths, 6 tie at the top (weight 5) for 2 places: each in with chance 1/3; an
 * estimate whose top 2 are two of them (no tie there) matches 2 x 5 x 1/3 of 10 -> 1/3, whatever
 * the keys. */
TEST(wall_accuracy_ties_at_the_cut_off)
{
    hp_metric_item actual[20], est[3] = {{1, 7}, {2, 7}, {3, 7}}, est1[2] = {{1, 9}, {2, 7}};
    actual[0] = (hp_metric_item){1, 10};
    for (size_t k = 2; k <= 7; k++) actual[k - 1] = (hp_metric_item){k, 5};
    for (size_t k = 8; k <= 20; k++) actual[k - 1] = (hp_metric_item){k, 1};
    CHECK_NEAR(hp_wall_accuracy(actual, 20, est1, 2, 0.05, scratch), 1.0, 1e-12);
    CHECK_NEAR(hp_wall_accuracy(actual, 20, est, 3, 0.05, scratch), 1.0 / 3.0, 1e-12);
    hp_metric_item actual2[40];
    for (size_t k = 1; k <= 40; k++) actual2[k - 1] = (hp_metric_item){k, k <= 6 ? 5.0 : 1.0};
    for (uint64_t base = 0; base < 200; base += 37) { /* relabel: the tied keys sort anywhere */
        hp_metric_item a[40], e[2];
        for (size_t k = 0; k < 40; k++) a[k] = (hp_metric_item){(actual2[k].key * 7919 + base) % 1000, actual2[k].weight};
        e[0] = (hp_metric_item){a[4].key, 9}, e[1] = (hp_metric_item){a[5].key, 8};
        CHECK_NEAR(hp_wall_accuracy(a, 40, e, 2, 0.05, scratch), 1.0 / 3.0, 1e-12);
    }
}

TEST(wall_accuracy_edges)
{
    hp_metric_item a[] = {{1, 5}, {2, 3}};
    hp_metric_item d[] = {{8, 5}, {9, 3}};
    CHECK_NEAR(hp_wall_accuracy(a, 2, a, 2, 0.05, scratch), 1.0, 0);
    CHECK_NEAR(hp_wall_accuracy(a, 2, d, 2, 0.05, scratch), 0.0, 0);
    CHECK_NEAR(hp_wall_accuracy(a, 2, NULL, 0, 0.05, scratch), 0.0, 0);
    CHECK_NEAR(hp_wall_accuracy(NULL, 0, NULL, 0, 0.05, scratch), 1.0, 0);
}

/* ---- Diff-Top ---------------------------------------------------------------------------------
 * perfect: pc1 100 exec, top 80 (.8); pc2 300 exec, top 150 (.5); pc3 only in perfect.
 * sampled: pc1 30 exec, top 15 (.5); pc2 10 exec, top 6 (.6); pc9 only in sampled.
 * Weighted by the PERFECT executions: (100*.3 + 300*.1) / 400 = .15
 * (weighting by the sampled executions would give (30*.3 + 10*.1)/40 = .25). */
TEST(diff_top_hand_example)
{
    hp_value_site perfect[] = {{3, 50, 7, 50}, {1, 100, 4, 80}, {2, 300, 9, 150}};
    hp_value_site sampled[] = {{2, 10, 9, 6}, {9, 5, 1, 5}, {1, 30, 5, 15}};
    size_t common = 0;
    CHECK_NEAR(hp_diff_top(perfect, 3, sampled, 3, site_scratch, &common), 0.15, 1e-12);
    CHECK_EQ_U64(common, 2);
    CHECK_NEAR(hp_diff_top(perfect, 3, perfect, 3, site_scratch, &common), 0.0, 0);
    CHECK_EQ_U64(common, 3);
    hp_value_site other[] = {{77, 10, 1, 10}};
    CHECK_NEAR(hp_diff_top(perfect, 3, other, 1, site_scratch, &common), 0.0, 0);
    CHECK_EQ_U64(common, 0);
    CHECK_NEAR(hp_diff_top(NULL, 0, NULL, 0, site_scratch, NULL), 0.0, 0);
}

/* ---- OSP Chernoff -----------------------------------------------------------------------------
 * Tables 4.9/4.10 (the paper used ln(1/0.05) ~ 3, we use ln 20 = 2.9957; at 80% ln 5 exactly):
 *   count 109:    s1 40.64%  s2 23.46%  s3 29.76%  s4 17.18%
 *   count 27006:  s1  2.58%  s2  1.49%  s3  1.89%  s4  1.09%
 *   count 5:      s1 189.74% s2 109.54% s3 138.97% s4 80.24%
 * e.g. s3(109) = sqrt(6 ln 5 / 109) = sqrt(9.6566/109) = .29764. */
TEST(osp_chernoff_matches_paper_tables)
{
    CHECK_NEAR(hp_osp_chernoff_error(109, 0.95, 0), 0.4064, 0.0005);
    CHECK_NEAR(hp_osp_chernoff_error(109, 0.95, 1), 0.2346, 0.0005);
    CHECK_NEAR(hp_osp_chernoff_error(109, 0.80, 0), 0.2976, 0.00005);
    CHECK_NEAR(hp_osp_chernoff_error(109, 0.80, 1), 0.1718, 0.00005);
    CHECK_NEAR(hp_osp_chernoff_error(27006, 0.95, 0), 0.0258, 0.0001);
    CHECK_NEAR(hp_osp_chernoff_error(27006, 0.80, 1), 0.0109, 0.00005);
    CHECK_NEAR(hp_osp_chernoff_error(5, 0.95, 0), 1.8974, 0.003);
    CHECK_NEAR(hp_osp_chernoff_error(5, 0.80, 1), 0.8024, 0.00005);
    CHECK(isinf(hp_osp_chernoff_error(0, 0.95, 0)));
    /* One-sided is tighter by sqrt(3) exactly. */
    CHECK_NEAR(hp_osp_chernoff_error(100, 0.9, 0) / hp_osp_chernoff_error(100, 0.9, 1),
               sqrt(3.0), 1e-12);
}

/* Counting samples: a key offered N times is admitted after K ~ Geometric(1/tau) misses and the
 * estimate is (N - K) + (tau - 1); the admission error must cover N at its confidence (two-sided:
 * within estimate x (1 +- eps); one-sided: N >= estimate x (1 - eps)), measured over many draws. */
TEST(osp_admission_error_covers_the_geometric_wait)
{
    hp_rng r;
    hp_rng_seed(&r, 77);
    const double taus[] = {4, 64, 1024};
    for (int t = 0; t < 3; t++) {
        double tau = taus[t];
        const uint64_t N = (uint64_t)(40 * tau);
        const int TRIALS = 20000;
        int in95 = 0, in80 = 0, low95 = 0;
        for (int i = 0; i < TRIALS; i++) {
            uint64_t k = 0;
            while (k < N && hp_rng_double(&r) * tau >= 1) k++;
            if (k == N) continue; /* never admitted: no estimate (N >> tau: rare) */
            uint64_t count = N - k;
            double est = (double)count + tau - 1;
            double e95 = hp_osp_admission_error(count, tau, 0.95, 0), e80 = hp_osp_admission_error(count, tau, 0.80, 0);
            in95 += fabs((double)N - est) <= e95 * est;
            in80 += fabs((double)N - est) <= e80 * est;
            low95 += (double)N >= est * (1 - hp_osp_admission_error(count, tau, 0.95, 1));
        }
        CHECK((double)in95 / TRIALS >= 0.95);
        CHECK((double)in80 / TRIALS >= 0.80);
        CHECK((double)low95 / TRIALS >= 0.95);
        /* and not vacuous: the two-sided 80% interval misses some draws */
        CHECK((double)in80 / TRIALS < 0.97);
    }
    CHECK_NEAR(hp_osp_admission_error(100, 1, 0.95, 0), 0, 0);
    CHECK_NEAR(hp_osp_admission_error(0, 8, 0.95, 0), 0, 0);
}

/* FFT: hottest subpath sampled 27006 times at length 4 (prob 1/4), sampling prob 1/1000:
 * 27006 * 4 * 1000 = 108,024,000. */
TEST(osp_estimated_count_and_bound)
{
    CHECK_NEAR(hp_osp_estimated_count(27006, 1.0 / 1000, 1.0 / 4), 108024000.0, 1e-3);
    hp_osp_bound b = hp_osp_count_bound(100, 0.01, 0.5, 0.95, 0);
    double eps = sqrt(6.0 * log(20.0) / 100.0);
    CHECK_NEAR(b.estimate, 20000.0, 1e-9);
    CHECK_NEAR(b.error, eps, 1e-12);
    CHECK_NEAR(b.lower, 20000.0 * (1 - eps), 1e-6);
    CHECK_NEAR(b.upper, 20000.0 * (1 + eps), 1e-6);
    hp_osp_bound one = hp_osp_count_bound(100, 0.01, 0.5, 0.95, 1);
    CHECK(isinf(one.upper));
    CHECK(one.lower > b.lower);
    hp_osp_bound few = hp_osp_count_bound(5, 0.01, 1.0, 0.95, 0);
    CHECK_NEAR(few.lower, 0.0, 0); /* eps > 1 */
}

/* Property: sample a path of true count N with probability p * q (hp_rng_binomial) many times;
 * the two-sided interval must contain N, and the one-sided lower bound must not exceed N, in at
 * least `confidence` of the trials. Chernoff is loose, so this holds with room to spare. */
static void chernoff_coverage(uint64_t n_true, double p, double q, double confidence,
                              hp_rng *rng, double *two_sided, double *one_sided)
{
    const int trials = 2000;
    int covered2 = 0, covered1 = 0;
    for (int t = 0; t < trials; t++) {
        uint64_t x = hp_rng_binomial(rng, n_true, p * q);
        hp_osp_bound b2 = hp_osp_count_bound(x, p, q, confidence, 0);
        hp_osp_bound b1 = hp_osp_count_bound(x, p, q, confidence, 1);
        covered2 += b2.lower <= (double)n_true && (double)n_true <= b2.upper;
        covered1 += b1.lower <= (double)n_true;
    }
    *two_sided = (double)covered2 / trials;
    *one_sided = (double)covered1 / trials;
}

TEST(osp_chernoff_bounds_cover_at_stated_confidence)
{
    const uint64_t seed = 0x6d657472696373ull;
    hp_rng rng;
    hp_rng_seed(&rng, seed);
    printf("     chernoff property test seed 0x%" PRIx64 "\n", seed);
    const uint64_t counts[] = {2000, 10000, 80000};
    const double confidences[] = {0.80, 0.95};
    for (size_t c = 0; c < N_OF(counts); c++) {
        for (size_t k = 0; k < N_OF(confidences); k++) {
            double two, one;
            chernoff_coverage(counts[c], 0.02, 0.5, confidences[k], &rng, &two, &one);
            CHECK(two >= confidences[k]);
            CHECK(one >= confidences[k]);
        }
    }
}

/* ---- top-k -----------------------------------------------------------------------------------
 * exact {1:100, 2:90, 3:80, 4:70, 5:60}; est {1:95, 3:85, 6:75, 2:70, 5:10}.
 * k=3: T_exact {1,2,3}, T_est {1,3,6}: common {1,3}: P = R = 2/3; on {1,3} both say 1 > 3: tau 1.
 * k=4: T_exact {1,2,3,4}, T_est {1,3,6,2}: common {1,2,3}; pairs (1,2) C, (1,3) C,
 *      (2,3): exact 90 > 80, est 70 < 85: D -> tau = (2 - 1) / 3. P = R = 3/4. */
TEST(topk_hand_example)
{
    hp_metric_item exact[] = {{1, 100}, {2, 90}, {3, 80}, {4, 70}, {5, 60}};
    hp_metric_item est[] = {{5, 10}, {2, 70}, {6, 75}, {3, 85}, {1, 95}};
    hp_topk_agreement t;
    REQUIRE(hp_topk_compare(exact, 5, est, 5, 3, scratch, &t) == 0);
    CHECK_EQ_U64(t.common, 2);
    CHECK_NEAR(t.precision, 2.0 / 3.0, 1e-12);
    CHECK_NEAR(t.recall, 2.0 / 3.0, 1e-12);
    CHECK_NEAR(t.kendall_tau, 1.0, 1e-12);
    hp_topk_compare(exact, 5, est, 5, 4, scratch, &t);
    CHECK_EQ_U64(t.common, 3);
    CHECK_NEAR(t.precision, 0.75, 1e-12);
    CHECK_NEAR(t.kendall_tau, 1.0 / 3.0, 1e-12);
}

TEST(topk_edges)
{
    hp_metric_item a[] = {{1, 4}, {2, 3}, {3, 2}, {4, 1}};
    hp_metric_item rev[] = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
    hp_metric_item d[] = {{7, 1}, {8, 2}};
    hp_topk_agreement t;
    hp_topk_compare(a, 4, a, 4, 10, scratch, &t);
    CHECK_NEAR(t.precision, 1.0, 0);
    CHECK_NEAR(t.recall, 1.0, 0);
    CHECK_NEAR(t.kendall_tau, 1.0, 0);
    CHECK_EQ_U64(t.k_exact, 4);
    hp_topk_compare(a, 4, rev, 4, 4, scratch, &t);
    CHECK_NEAR(t.kendall_tau, -1.0, 1e-12);
    hp_topk_compare(a, 4, d, 2, 4, scratch, &t);
    CHECK_NEAR(t.precision, 0.0, 0);
    CHECK_NEAR(t.recall, 0.0, 0);
    CHECK_NEAR(t.kendall_tau, 0.0, 0);
    hp_topk_compare(a, 4, NULL, 0, 4, scratch, &t);
    CHECK_NEAR(t.precision, 1.0, 0); /* reported nothing wrong */
    CHECK_NEAR(t.recall, 0.0, 0);
    CHECK(hp_topk_compare(a, 4, a, 4, 4, scratch, NULL) == -1);
}

/* ---- heavy hitters ----------------------------------------------------------------------------
 * stream_total 1000, phi .1: cut 100. exact {1:300, 2:150, 3:100, 4:99, 5:50}: true {1,2,3}.
 * est {1:310, 2:140, 4:105, 7:120, 5:60}: reported {1,2,4,7}; correct {1,2}: P = 2/4, R = 2/3.
 * rel. errors: 10/300, 10/150, 6/99, |120 - 0| / max(0, 1) = 120 -> mean of the four. */
TEST(heavy_hand_example)
{
    hp_metric_item exact[] = {{5, 50}, {4, 99}, {3, 100}, {2, 150}, {1, 300}};
    hp_metric_item est[] = {{1, 310}, {2, 140}, {4, 105}, {7, 120}, {5, 60}};
    hp_heavy_agreement h;
    REQUIRE(hp_heavy_compare(exact, 5, est, 5, 0.1, 1000, scratch, &h) == 0);
    CHECK_EQ_U64(h.n_true, 3);
    CHECK_EQ_U64(h.n_reported, 4);
    CHECK_EQ_U64(h.n_correct, 2);
    CHECK_NEAR(h.precision, 0.5, 1e-12);
    CHECK_NEAR(h.recall, 2.0 / 3.0, 1e-12);
    CHECK_NEAR(h.mean_rel_error, (10.0 / 300 + 10.0 / 150 + 6.0 / 99 + 120.0) / 4, 1e-12);
    hp_heavy_compare(exact, 5, exact, 5, 0.1, 1000, scratch, &h);
    CHECK_NEAR(h.precision, 1.0, 0);
    CHECK_NEAR(h.recall, 1.0, 0);
    CHECK_NEAR(h.mean_rel_error, 0.0, 0);
    hp_heavy_compare(NULL, 0, NULL, 0, 0.1, 0, scratch, &h);
    CHECK_NEAR(h.precision, 1.0, 0);
    CHECK_NEAR(h.recall, 1.0, 0);
}

int main(void)
{
    RUN(sort_orders_and_breaks_ties_by_key);
    RUN(overlap_hand_example_is_symmetric);
    RUN(overlap_identical_disjoint_empty);
    RUN(overlap_cut_applies_to_both_profiles_and_is_scale_free);
    RUN(overlap_exact_cover_boundary);
    RUN(multihash_error_hand_example);
    RUN(multihash_error_edges);
    RUN(wall_accuracy_hand_example_and_asymmetry);
    RUN(wall_accuracy_ties_at_the_cut_off);
    RUN(wall_accuracy_edges);
    RUN(diff_top_hand_example);
    RUN(osp_chernoff_matches_paper_tables);
    RUN(osp_admission_error_covers_the_geometric_wait);
    RUN(osp_estimated_count_and_bound);
    RUN(osp_chernoff_bounds_cover_at_stated_confidence);
    RUN(topk_hand_example);
    RUN(topk_edges);
    RUN(heavy_hand_example);
    return test_main_end();
}

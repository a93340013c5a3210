/* test_counting.c — Gibbons–Matias counting samples against Exact.
 * Checks: exact answers while the list never filled; lower = count <= true for every key in every
 * run (certain); true <= upper for all but a fraction consistent with delta = 0.1% (all keys and
 * the 200 hottest), over Zipf alphas {0.8,1,1.2,1.5}, uniform noise, adversarial orders, weighted
 * updates and merged halves; the hottest keys are held; on hot keys counting samples estimate
 * better than concise samples of the same budget (GM's claim, documented in docs/summaries.md);
 * thinning by hand-countable cases; round trip and continuation; corrupt input; parameters.
 */
#include "core/summary/concise.h"
#include "core/summary/counting.h"
#include "streams.h"

typedef struct rate { size_t checked, below, above, hot_checked, hot_above; } rate;

static void rate_add(rate *r, const summary *x, const truth *t)
{
    bound_stats st = {0, 0, 0, 0};
    bounds_check(x, t, &st);
    CHECK_EQ_U64(st.bad_order, 0);
    r->checked += st.checked;
    r->below += st.below_lower;
    r->above += st.above_upper;
    for (size_t i = 0; i < t->nall && i < 200; i++) {
        hp_estimate q;
        x->vt->query(x->s, t->all[i].key, &q);
        r->hot_checked++;
        r->hot_above += t->all[i].count > q.upper;
    }
}

/* lower is certain; upper misses at most delta per key, plus 4 binomial standard deviations. */
static void rate_check(const rate *r, const char *what)
{
    double d = HP_COUNTING_DELTA;
    printf("  %s: below lower %zu, above upper %zu/%zu (%.4f%%), 200 hottest above %zu/%zu\n", what, r->below,
           r->above, r->checked, 100.0 * r->above / r->checked, r->hot_above, r->hot_checked);
    CHECK_EQ_U64(r->below, 0);
    CHECK(r->above <= d * r->checked + 4 * sqrt(d * r->checked));
    CHECK(r->hot_above <= d * r->hot_checked + 4 * sqrt(d * r->hot_checked));
}

TEST(counting_exact_while_list_fits)
{
    stream s = stream_zipf(100000, 100, 1.0, 150, ORDER_COLD_FIRST);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_counting_vt, 4096, 1);
    REQUIRE(x.s != NULL && hp_counting_capacity(x.s) >= 100);
    summary_feed(&x, &s, 0, s.n);
    CHECK(hp_counting_tau(x.s) == 1.0);
    CHECK_EQ_U64(hp_counting_slack(x.s), 0);
    size_t bad = 0;
    for (size_t i = 0; i < t.nall; i++) {
        hp_estimate q;
        hp_counting_query(x.s, t.all[i].key, &q);
        bad += q.count != t.all[i].count || q.lower != q.count || q.upper != q.count;
    }
    CHECK_EQ_U64(bad, 0);
    summary_free(&x);
    truth_free(&t);
    stream_free(&s);
}

/* GM thinning by hand: N = 2, f = 2; key 10 with count 3, keys 20 and 30 with count 1 overflow
 * the list, tau goes 1 -> 2. Per entry: first coin heads (kept whole) with tau/tau' = 1/2; on
 * tails -1 and then -1 per further tails of coins with heads 1/tau' = 1/2. So key 10 keeps 3 with
 * probability 1/2, 2 with 1/4, 1 with 1/8, 0 with 1/8; keys 20, 30 survive with 1/2 each, and tau
 * stays 2 unless all three survive. P(tau = 2 and key 10 has j) = {1/8, 3/32, 3/16, 3/8}. */
TEST(counting_thinning_by_definition)
{
    static const double want[4] = {1.0 / 8, 3.0 / 32, 3.0 / 16, 3.0 / 8};
    uint64_t mem[64];
    size_t seen[4] = {0, 0, 0, 0}, runs = 40000, bad = 0;
    for (uint64_t seed = 0; seed < runs; seed++) {
        hp_counting *c = hp_counting_init_ex(mem, sizeof mem, 2, 2.0, seed);
        REQUIRE(c != NULL);
        hp_counting_update(c, 10, 3);
        hp_counting_update(c, 20, 1);
        hp_counting_update(c, 30, 1);
        hp_estimate q;
        hp_counting_query(c, 10, &q);
        bad += hp_counting_tau(c) < 2.0 || q.lower > 3;
        if (hp_counting_tau(c) == 2.0) seen[q.lower]++;
    }
    CHECK_EQ_U64(bad, 0);
    for (int j = 0; j < 4; j++) {
        double sd = sqrt(runs * want[j] * (1 - want[j]));
        CHECK_NEAR((double)seen[j], runs * want[j], 4 * sd);
    }
}

TEST(counting_bounds_hold)
{
    static const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    rate r = {0, 0, 0, 0, 0};
    size_t hot_missing = 0, hot_checked = 0;
    for (int a = 0; a < 4; a++) {
        for (int order = 0; order < ORDER_COUNT; order++) {
            if (order != ORDER_RANDOM && a != 1) continue;
            stream s = stream_zipf(1000000, 100000, alphas[a], 160 + a, order);
            truth t = truth_of(&s, 0, s.n);
            for (uint64_t seed = 0; seed < 4; seed++) {
                summary x = summary_new(&hp_counting_vt, seed % 2 ? 4096 : 16384, seed * 5 + a);
                summary_feed(&x, &s, 0, s.n);
                CHECK(hp_counting_tau(x.s) > 1.0);
                rate_add(&r, &x, &t);
                /* a key seen t times is missing with probability (1 - 1/tau)^t <= e^-15 here */
                for (size_t i = 0; i < t.nall && t.all[i].count >= 15 * hp_counting_tau(x.s); i++, hot_checked++) {
                    hp_estimate q;
                    hot_missing += !hp_counting_query(x.s, t.all[i].key, &q);
                }
                summary_free(&x);
            }
            truth_free(&t);
            stream_free(&s);
        }
    }
    stream u = stream_uniform(300000, 3000, 169);
    truth t = truth_of(&u, 0, u.n);
    for (uint64_t seed = 0; seed < 8; seed++) {
        summary x = summary_new(&hp_counting_vt, 4096, seed);
        summary_feed(&x, &u, 0, u.n);
        rate_add(&r, &x, &t);
        summary_free(&x);
    }
    truth_free(&t);
    stream_free(&u);
    rate_check(&r, "counting");
    printf("  keys seen >= 15 tau times not held: %zu/%zu\n", hot_missing, hot_checked);
    CHECK(hot_checked > 100);
    CHECK_EQ_U64(hot_missing, 0);
}

TEST(counting_weighted_updates)
{
    stream s = stream_zipf(300000, 30000, 1.0, 170, ORDER_BURSTS);
    size_t tb = hp_exact_bytes_for((size_t)1 << 17);
    void *tm = malloc(tb);
    hp_exact *te = hp_exact_init(tm, tb);
    uint64_t *w = malloc(s.n * 8);
    hp_rng g;
    hp_rng_seed(&g, 171);
    for (size_t i = 0; i < s.n; i++) hp_exact_update(te, s.keys[i], w[i] = 1 + hp_rng_below(&g, i % 20 ? 8 : 2000));
    truth t = {te, tm, malloc(hp_exact_size(te) * sizeof(hp_estimate)), 0};
    t.nall = hp_exact_topk(te, t.all, hp_exact_size(te));
    rate r = {0, 0, 0, 0, 0};
    for (uint64_t seed = 0; seed < 8; seed++) {
        summary x = summary_new(&hp_counting_vt, 4096, seed);
        for (size_t i = 0; i < s.n; i++) x.vt->update(x.s, s.keys[i], w[i]);
        CHECK_EQ_U64(x.vt->total(x.s), hp_exact_total(te));
        rate_add(&r, &x, &t);
        summary_free(&x);
    }
    rate_check(&r, "counting weighted");
    free(w);
    truth_free(&t);
    stream_free(&s);
}

TEST(counting_merge_of_halves)
{
    rate r = {0, 0, 0, 0, 0};
    static const int orders[] = {ORDER_RANDOM, ORDER_COLD_FIRST, ORDER_ALTERNATING};
    for (int o = 0; o < 3; o++) {
        stream s = stream_zipf(1000000, 100000, 1.0, 180 + o, orders[o]);
        truth t = truth_of(&s, 0, s.n);
        for (uint64_t seed = 0; seed < 3; seed++) {
            summary a = summary_new(&hp_counting_vt, 16384, seed), b = summary_new(&hp_counting_vt, 4096, seed + 50);
            summary_feed(&a, &s, 0, s.n / 2);
            summary_feed(&b, &s, s.n / 2, s.n);
            uint64_t slack_before = hp_counting_slack(a.s);
            CHECK_EQ_U64(a.vt->merge(a.s, b.s), 0);
            CHECK(a.vt->merge(a.s, a.s) == -1);
            CHECK_EQ_U64(a.vt->total(a.s), s.n);
            CHECK(hp_counting_slack(a.s) > slack_before);
            rate_add(&r, &a, &t);
            summary_free(&a); summary_free(&b);
        }
        truth_free(&t);
        stream_free(&s);
    }
    rate_check(&r, "counting merged");
}

/* Mean absolute error of the top-20 true keys' estimates. */
static double hot_error(const summary *x, const truth *t)
{
    double err = 0;
    for (int i = 0; i < 20; i++) {
        hp_estimate q;
        x->vt->query(x->s, t->all[i].key, &q);
        err += fabs((double)q.count - (double)t->all[i].count);
    }
    return err / 20;
}

TEST(counting_beats_concise_on_hot_keys)
{
    stream s = stream_zipf(1000000, 100000, 1.0, 190, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    double ec = 0, es = 0;
    for (uint64_t seed = 0; seed < 6; seed++) {
        summary c = summary_new(&hp_counting_vt, 4096, seed), k = summary_new(&hp_concise_vt, 4096, seed);
        summary_feed(&c, &s, 0, s.n);
        summary_feed(&k, &s, 0, s.n);
        ec += hot_error(&c, &t);
        es += hot_error(&k, &t);
        summary_free(&c); summary_free(&k);
    }
    printf("  top-20 mean abs error at 4 KB: counting %.1f, concise %.1f\n", ec / 6, es / 6);
    CHECK(ec < es);
    truth_free(&t);
    stream_free(&s);
}

TEST(counting_roundtrip_and_continuation)
{
    stream s = stream_zipf(400000, 100000, 1.2, 200, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_counting_vt, 16384, 3);
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
    free(buf);
    summary_free(&x); summary_free(&y);
    truth_free(&t);
    stream_free(&s);
}

TEST(counting_corrupt_input)
{
    stream s = stream_zipf(20000, 2000, 1.0, 210, ORDER_RANDOM);
    summary x = summary_new(&hp_counting_vt, 2048, 4);
    summary_feed(&x, &s, 0, s.n);
    corrupt_stats st = corrupt_check(&x, 20000, 7, NULL);
    CHECK(st.truncations > 100);
    CHECK_EQ_U64(st.truncations_accepted, 0);
    CHECK(st.flips_accepted < st.flips);
    summary_free(&x);
    stream_free(&s);
}

/* Hostile but well-formed input: tau at its cap, counts and total at UINT64_MAX, f at its cap.
 * Everything must saturate rather than overflow (UBSan checks the float-to-int casts). */
TEST(counting_extreme_values)
{
    uint64_t mem[512];
    uint8_t buf[4096];
    hp_counting *c = hp_counting_init_ex(mem, sizeof mem, 4, 0, 1);
    REQUIRE(c != NULL);
    for (uint64_t i = 0; i < 4; i++) hp_counting_update(c, i, 1);
    size_t len = hp_counting_serialize(c, buf, sizeof buf);
    REQUIRE(len == 88 + 4 * 16);
    double tau = HP_GM_MAX_TAU, f = 1024.0;
    memcpy(buf + 16, &f, 8); /* little-endian host assumed, as on x86-64 */
    memcpy(buf + 24, &tau, 8);
    memset(buf + 32, 0xff, 8); /* total */
    for (int i = 0; i < 4; i++) memset(buf + 88 + 16 * i + 8, 0xff, 8);
    hp_counting *d = hp_counting_deserialize(mem, sizeof mem, buf, len);
    REQUIRE(d != NULL);
    hp_estimate top[8], q;
    size_t k = hp_counting_topk(d, top, 8), bad = 0;
    for (size_t i = 0; i < k; i++) bad += top[i].lower > top[i].upper || top[i].upper != UINT64_MAX;
    for (uint64_t i = 0; i < 1000; i++) hp_counting_update(d, 100 + i, UINT64_MAX / 3);
    hp_counting_query(d, 100, &q);
    bad += q.lower > q.upper;
    CHECK_EQ_U64(bad, 0);
    CHECK(hp_counting_tau(d) <= HP_GM_MAX_TAU);
    CHECK_EQ_U64(hp_counting_total(d), UINT64_MAX);
}

TEST(counting_parameters)
{
    static uint64_t mem[1024];
    CHECK(hp_counting_init(mem, 40, 1) == NULL);
    CHECK(hp_counting_init_ex(mem, sizeof mem, 1, 0, 1) == NULL);
    CHECK(hp_counting_init_ex(mem, sizeof mem, 16, 0.5, 1) == NULL);
    CHECK(hp_counting_init_ex(mem, sizeof mem, 100000, 0, 1) == NULL);
    hp_counting *c = hp_counting_init_ex(mem, sizeof mem, 16, 0, 1);
    CHECK(c && hp_counting_capacity(c) == 16 && hp_counting_bytes_used(c) <= sizeof mem);
    size_t bad = 0;
    for (size_t budget = 200; budget <= sizeof mem; budget += 37) {
        hp_counting *d = hp_counting_init((char *)mem + 1, budget - 1, 1);
        bad += d && (char *)d + hp_counting_bytes_used(d) > (char *)mem + budget;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(strcmp(hp_counting_vt.name, "counting") == 0 && hp_counting_vt.kind == HP_SUMMARY_COUNTING);
}

int main(int argc, char **argv)
{
    if (streams_bench_requested(argc, argv)) {
        streams_bench(&hp_counting_vt);
        return 0;
    }
    RUN(counting_exact_while_list_fits);
    RUN(counting_thinning_by_definition);
    RUN(counting_bounds_hold);
    RUN(counting_weighted_updates);
    RUN(counting_merge_of_halves);
    RUN(counting_beats_concise_on_hot_keys);
    RUN(counting_roundtrip_and_continuation);
    RUN(counting_corrupt_input);
    RUN(counting_extreme_values);
    RUN(counting_parameters);
    return test_main_end();
}

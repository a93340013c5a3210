/* test_spacesaving.c — Space-Saving against Exact. Its guarantees are deterministic, so every
 * check here must hold for every key, with no tolerance:
 *   count - err <= true <= count for held keys, true <= min for keys not held (full summary);
 *   err <= total/m and every key with true > total/m held; the stream-summary links and the
 *   index stay consistent (checked during adversarial streams). Also: a hand-traced example from
 *   the definition, weighted updates, merge of two halves (guarantees hold against the whole,
 *   err <= 2*total/m), serialize round trip, corrupt input. `--bench` prints update rates.
 */
#include "core/summary/spacesaving.h"
#include "streams.h"

static void check_guarantees(const summary *x, const truth *t)
{
    bound_stats st = {0, 0, 0, 0};
    bounds_check(x, t, &st);
    CHECK_EQ_U64(st.below_lower, 0);
    CHECK_EQ_U64(st.above_upper, 0);
    CHECK_EQ_U64(st.bad_order, 0);
    CHECK(hp_spacesaving_check(x->s));
}

/* err <= bound and every key with true > bound is held. */
static void check_error_bound(const summary *x, const truth *t, uint64_t bound)
{
    size_t too_wide = 0, missed = 0;
    for (size_t i = 0; i < t->nall; i++) {
        hp_estimate q;
        int held = hp_spacesaving_query(x->s, t->all[i].key, &q);
        too_wide += held && q.count - q.lower > bound;
        missed += !held && t->all[i].count > bound;
    }
    CHECK_EQ_U64(too_wide, 0);
    CHECK_EQ_U64(missed, 0);
}

TEST(ss_hand_traced_example)
{
    uint64_t mem[256];
    hp_spacesaving *s = hp_spacesaving_init_m(mem, sizeof mem, 2);
    hp_estimate q;
    REQUIRE(s != NULL);
    hp_spacesaving_update(s, 0, 1);          /* {0:1} */
    hp_spacesaving_update(s, UINT64_MAX, 1); /* {0:1, MAX:1} */
    hp_spacesaving_update(s, 0, 1);          /* {0:2, MAX:1} */
    hp_spacesaving_update(s, 5, 1);          /* MAX is min: {0:2, 5:2 err 1} */
    CHECK(hp_spacesaving_query(s, 5, &q) == 1 && q.count == 2 && q.lower == 1 && q.upper == 2);
    CHECK(hp_spacesaving_query(s, UINT64_MAX, &q) == 0 && q.upper == 2 && q.lower == 0);
    hp_spacesaving_update(s, 7, 3); /* min 2 (tie 0/5): one of them evicted, 7 = 2 + 3, err 2 */
    CHECK(hp_spacesaving_query(s, 7, &q) == 1 && q.count == 5 && q.lower == 3);
    CHECK_EQ_U64(hp_spacesaving_total(s), 7);
    hp_estimate top[2];
    CHECK_EQ_U64(hp_spacesaving_topk(s, top, 2), 2);
    CHECK(top[0].key == 7 && top[1].count == 2);
    CHECK(hp_spacesaving_check(s));
    hp_spacesaving_update(s, 9, 0); /* zero weight: nothing */
    CHECK(hp_spacesaving_query(s, 9, &q) == 0 && hp_spacesaving_total(s) == 7);
}

TEST(ss_guarantees_zipf_all_orders)
{
    static const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    for (int a = 0; a < 4; a++) {
        for (int order = 0; order < ORDER_COUNT; order++) {
            if (order != ORDER_RANDOM && a != 1) continue; /* orders at alpha 1.0 */
            stream s = stream_zipf(1000000, 100000, alphas[a], 200 + a, order);
            truth t = truth_of(&s, 0, s.n);
            for (size_t budget = 4096; budget <= 65536; budget *= 4) {
                if (order != ORDER_RANDOM && budget != 16384) continue;
                summary x = summary_new(&hp_spacesaving_vt, budget, 0);
                REQUIRE(x.s != NULL);
                CHECK(hp_spacesaving_bytes_used(x.s) <= budget);
                summary_feed(&x, &s, 0, s.n);
                check_guarantees(&x, &t);
                check_error_bound(&x, &t, s.n / hp_spacesaving_capacity(x.s));
                summary_free(&x);
            }
            truth_free(&t);
            stream_free(&s);
        }
    }
}

TEST(ss_guarantees_uniform_noise)
{
    stream s = stream_uniform(1000000, 1000000, 21);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_spacesaving_vt, 16384, 0);
    summary_feed(&x, &s, 0, s.n);
    check_guarantees(&x, &t);
    check_error_bound(&x, &t, s.n / hp_spacesaving_capacity(x.s));
    summary_free(&x);
    truth_free(&t);
    stream_free(&s);
}

TEST(ss_structure_consistent_during_stream)
{
    stream s = stream_zipf(200000, 2000, 1.0, 23, ORDER_ALTERNATING);
    uint64_t mem[512];
    hp_spacesaving *ss = hp_spacesaving_init_m(mem, sizeof mem, 16);
    REQUIRE(ss != NULL);
    size_t broken = 0;
    for (size_t i = 0; i < s.n; i++) {
        hp_spacesaving_update(ss, s.keys[i], 1 + (i % 7 == 0) * (i % 50));
        if (i % 97 == 0) broken += !hp_spacesaving_check(ss);
    }
    CHECK_EQ_U64(broken, 0);
    CHECK_EQ_U64(hp_spacesaving_size(ss), 16);
    stream_free(&s);
}

/* The count-sorted array: every update checked (runs, first run, index), weights that cross
 * many runs, free counters, saturation at UINT64_MAX; guarantees against a plain count. */
TEST(ss_sorted_array_every_update)
{
    uint64_t mem[256];
    hp_rng g;
    hp_rng_seed(&g, 77);
    size_t broken = 0, wrong = 0;
    for (uint32_t m = 2; m <= 9; m++) {
        hp_spacesaving *ss = hp_spacesaving_init_m(mem, sizeof mem, m);
        REQUIRE(ss != NULL);
        uint64_t exact_count[24] = {0};
        for (int i = 0; i < 4000; i++) {
            uint64_t key = hp_rng_below(&g, i < 2000 ? 24 : 3 + m), w = 1 + hp_rng_below(&g, i % 5 ? 3 : 40);
            hp_spacesaving_update(ss, key, w);
            exact_count[key] += w;
            broken += !hp_spacesaving_check(ss);
            for (uint64_t k = 0; k < 24; k++) {
                hp_estimate q;
                int held = hp_spacesaving_query(ss, k, &q);
                wrong += held ? (q.lower > exact_count[k] || q.upper < exact_count[k]) : exact_count[k] > hp_spacesaving_floor(ss);
            }
        }
        hp_spacesaving_update(ss, 1000, UINT64_MAX - 5); /* saturates; order kept */
        hp_spacesaving_update(ss, 1000, 10);
        hp_spacesaving_update(ss, 1001, UINT64_MAX);
        broken += !hp_spacesaving_check(ss);
    }
    CHECK_EQ_U64(broken, 0);
    CHECK_EQ_U64(wrong, 0);
}

/* More than 65535 counters: the index switches from 16- to 32-bit slots. */
TEST(ss_wide_index)
{
    uint32_t m = 70000;
    size_t bytes = hp_spacesaving_bytes_for(m);
    /* 28 bytes per counter, plus 4 index slots of 2 bytes, or of 4 bytes above 65535 counters */
    CHECK_EQ_U64(hp_spacesaving_bytes_for(1001) - hp_spacesaving_bytes_for(1000), 28 + 4 * 2);
    CHECK_EQ_U64(hp_spacesaving_bytes_for(70001) - bytes, 28 + 4 * 4);
    void *mem = malloc(bytes);
    hp_spacesaving *ss = hp_spacesaving_init_m(mem, bytes, m);
    REQUIRE(ss != NULL);
    CHECK(hp_spacesaving_init_m(mem, bytes - 1, m) == NULL);
    stream s = stream_zipf(400000, 200000, 0.9, 78, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    summary x = {&hp_spacesaving_vt, ss, mem, bytes};
    summary_feed(&x, &s, 0, s.n);
    CHECK_EQ_U64(hp_spacesaving_size(ss), m);
    check_guarantees(&x, &t);
    check_error_bound(&x, &t, s.n / m);
    summary_free(&x);
    truth_free(&t);
    stream_free(&s);
}

TEST(ss_weighted_updates)
{
    stream s = stream_zipf(300000, 20000, 1.1, 25, ORDER_RANDOM);
    size_t budget = hp_exact_bytes_for((size_t)1 << 16);
    void *tm = malloc(budget);
    hp_exact *truth_e = hp_exact_init(tm, budget);
    summary x = summary_new(&hp_spacesaving_vt, 8192, 0);
    hp_rng g;
    hp_rng_seed(&g, 27);
    for (size_t i = 0; i < s.n; i++) {
        uint64_t w = 1 + hp_rng_below(&g, i % 10 == 0 ? 5000 : 10);
        hp_exact_update(truth_e, s.keys[i], w);
        x.vt->update(x.s, s.keys[i], w);
    }
    truth t = {truth_e, tm, malloc(hp_exact_size(truth_e) * sizeof(hp_estimate)), 0};
    t.nall = hp_exact_topk(truth_e, t.all, hp_exact_size(truth_e));
    CHECK_EQ_U64(hp_spacesaving_total(x.s), hp_exact_total(truth_e));
    check_guarantees(&x, &t);
    check_error_bound(&x, &t, hp_exact_total(truth_e) / hp_spacesaving_capacity(x.s));
    summary_free(&x);
    truth_free(&t);
    stream_free(&s);
}

TEST(ss_merge_of_halves)
{
    static const int orders[] = {ORDER_RANDOM, ORDER_COLD_FIRST, ORDER_ALTERNATING};
    for (int o = 0; o < 3; o++) {
        stream s = stream_zipf(1000000, 100000, 1.0, 30 + o, orders[o]);
        truth whole = truth_of(&s, 0, s.n);
        summary a = summary_new(&hp_spacesaving_vt, 16384, 0), b = summary_new(&hp_spacesaving_vt, 16384, 0);
        summary_feed(&a, &s, 0, s.n / 3);
        summary_feed(&b, &s, s.n / 3, s.n);
        CHECK_EQ_U64(hp_spacesaving_merge(a.s, b.s), 0);
        CHECK_EQ_U64(hp_spacesaving_total(a.s), s.n);
        check_guarantees(&a, &whole);
        check_error_bound(&a, &whole, 2 * s.n / hp_spacesaving_capacity(a.s));
        /* the merged summary keeps working as a Space-Saving summary */
        summary_feed(&a, &s, 0, s.n / 2);
        truth more = truth_of(&s, 0, s.n / 2);
        CHECK(hp_exact_merge(more.e, whole.e) == 0);
        free(more.all);
        more.all = malloc(hp_exact_size(more.e) * sizeof(hp_estimate));
        more.nall = hp_exact_topk(more.e, more.all, hp_exact_size(more.e));
        check_guarantees(&a, &more);
        truth_free(&more);
        summary_free(&a); summary_free(&b);
        truth_free(&whole);
        stream_free(&s);
    }
    uint64_t m1[1024], m2[1024];
    hp_spacesaving *x = hp_spacesaving_init_m(m1, sizeof m1, 20), *y = hp_spacesaving_init_m(m2, sizeof m2, 21);
    CHECK(hp_spacesaving_merge(x, y) == -1 && hp_spacesaving_merge(x, x) == -1);
}

TEST(ss_merge_small_exact_when_not_full)
{
    uint64_t m1[2048], m2[2048];
    hp_spacesaving *x = hp_spacesaving_init_m(m1, sizeof m1, 64), *y = hp_spacesaving_init_m(m2, sizeof m2, 64);
    REQUIRE(x && y);
    for (uint64_t i = 0; i < 30; i++) hp_spacesaving_update(x, i, i + 1);
    for (uint64_t i = 20; i < 50; i++) hp_spacesaving_update(y, i, 2 * i);
    CHECK_EQ_U64(hp_spacesaving_merge(x, y), 0);
    size_t bad = 0;
    for (uint64_t i = 0; i < 60; i++) {
        uint64_t want = (i < 30 ? i + 1 : 0) + (i >= 20 && i < 50 ? 2 * i : 0);
        hp_estimate q;
        hp_spacesaving_query(x, i, &q);
        bad += q.count != want || q.lower != want;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(hp_spacesaving_check(x));
}

TEST(ss_roundtrip)
{
    stream s = stream_zipf(500000, 100000, 1.2, 40, ORDER_BURSTS);
    truth t = truth_of(&s, 0, s.n);
    for (size_t budget = 4096; budget <= 65536; budget *= 4) {
        summary x = summary_new(&hp_spacesaving_vt, budget, 0);
        summary_feed(&x, &s, 0, s.n);
        CHECK_EQ_U64(roundtrip_check(&x, &t), 0);
        summary_free(&x);
    }
    truth_free(&t);
    stream_free(&s);
}

static int ss_valid(const void *y) { return hp_spacesaving_check(y); }

TEST(ss_corrupt_input)
{
    stream s = stream_zipf(5000, 1000, 1.0, 41, ORDER_RANDOM);
    summary x = summary_new(&hp_spacesaving_vt, 2048, 0);
    summary_feed(&x, &s, 0, s.n);
    corrupt_stats st = corrupt_check(&x, 20000, 5, ss_valid);
    CHECK(st.truncations > 100);
    CHECK_EQ_U64(st.truncations_accepted, 0);
    CHECK_EQ_U64(st.invalid, 0);
    CHECK(st.flips_accepted < st.flips);
    summary_free(&x);
    stream_free(&s);
}

TEST(ss_budget)
{
    static uint64_t mem[65536 / 8];
    CHECK(hp_spacesaving_init(mem, 32) == NULL);
    CHECK(hp_spacesaving_init_m(mem, 65536, 1) == NULL);
    size_t bad = 0;
    uint32_t prev = 0;
    for (size_t budget = 256; budget <= 65536; budget += 251) {
        hp_spacesaving *s = hp_spacesaving_init((char *)mem + 3, budget - 3);
        bad += !s || (char *)s + hp_spacesaving_bytes_used(s) > (char *)mem + budget;
        bad += s && hp_spacesaving_capacity(s) < prev;
        if (s) prev = hp_spacesaving_capacity(s);
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(strcmp(hp_spacesaving_vt.name, "spacesaving") == 0 && hp_spacesaving_vt.kind == HP_SUMMARY_SPACESAVING);
}

int main(int argc, char **argv)
{
    if (streams_bench_requested(argc, argv)) {
        streams_bench(&hp_spacesaving_vt);
        return 0;
    }
    RUN(ss_hand_traced_example);
    RUN(ss_guarantees_zipf_all_orders);
    RUN(ss_guarantees_uniform_noise);
    RUN(ss_structure_consistent_during_stream);
    RUN(ss_sorted_array_every_update);
    RUN(ss_wide_index);
    RUN(ss_weighted_updates);
    RUN(ss_merge_of_halves);
    RUN(ss_merge_small_exact_when_not_full);
    RUN(ss_roundtrip);
    RUN(ss_corrupt_input);
    RUN(ss_budget);
    return test_main_end();
}

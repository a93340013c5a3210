/* test_exact.c — Exact is the oracle of every other summary test, so it is checked here against
 * a brute-force count (sort the stream, measure runs) and against the definition by hand.
 * Checks: counts and size equal the brute force on Zipf and uniform streams; keys 0 and
 * UINT64_MAX and saturating weights; a full table reports every drop (return value, full flag,
 * dropped weight, sum + dropped == total, bounds still hold); top-k equals the brute-force order;
 * merge of two halves equals the whole; serialize round trip; corrupt input rejected or harmless;
 * budget respected for any alignment. `test_exact --bench` prints update rates.
 */
#include "core/summary/exact.h"
#include "streams.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Rank order of the summaries: count desc, then key asc. */
static int cmp_est(const void *a, const void *b)
{
    const hp_estimate *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return cmp_u64(&x->key, &y->key);
}

/* (key, count) of every distinct key, by sorting a copy of the stream; returns how many. */
static size_t brute_counts(const stream *s, hp_estimate *out)
{
    uint64_t *k = malloc(s->n * 8);
    size_t n = 0;
    memcpy(k, s->keys, s->n * 8);
    qsort(k, s->n, 8, cmp_u64);
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        while (j < s->n && k[j] == k[i]) j++;
        out[n++] = (hp_estimate){k[i], j - i, j - i, j - i};
        i = j;
    }
    free(k);
    return n;
}

static void check_against_brute(const stream *s)
{
    hp_estimate *b = malloc(s->n * sizeof *b);
    size_t nb = brute_counts(s, b), mismatches = 0;
    truth t = truth_of(s, 0, s->n);
    CHECK(!hp_exact_full(t.e));
    CHECK_EQ_U64(hp_exact_size(t.e), nb);
    CHECK_EQ_U64(hp_exact_total(t.e), s->n);
    for (size_t i = 0; i < nb; i++) {
        hp_estimate q;
        int held = hp_exact_query(t.e, b[i].key, &q);
        mismatches += !held || q.count != b[i].count || q.lower != q.count || q.upper != q.count;
    }
    CHECK_EQ_U64(mismatches, 0);
    free(b);
    truth_free(&t);
}

TEST(exact_counts_equal_brute_force)
{
    static const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    for (int a = 0; a < 4; a++) {
        stream s = stream_zipf(300000, 100000, alphas[a], 100 + a, ORDER_RANDOM);
        check_against_brute(&s);
        stream_free(&s);
    }
    stream u = stream_uniform(300000, 1000000, 5);
    check_against_brute(&u);
    stream_free(&u);
}

TEST(exact_special_keys_and_weights)
{
    uint64_t mem[128];
    hp_exact *e = hp_exact_init(mem, sizeof mem);
    hp_estimate q;
    REQUIRE(e != NULL);
    CHECK(hp_exact_query(e, 0, &q) == 0 && q.count == 0 && q.upper == 0);
    CHECK_EQ_U64(hp_exact_update(e, 0, 5), 0);
    CHECK_EQ_U64(hp_exact_update(e, UINT64_MAX, 7), 0);
    hp_exact_update(e, 0, 0); /* zero weight stores nothing */
    hp_exact_update(e, 42, 0);
    CHECK(hp_exact_query(e, 0, &q) == 1 && q.count == 5 && q.lower == 5 && q.upper == 5 && q.key == 0);
    CHECK(hp_exact_query(e, UINT64_MAX, &q) == 1 && q.count == 7);
    CHECK(hp_exact_query(e, 42, &q) == 0 && q.count == 0);
    CHECK_EQ_U64(hp_exact_size(e), 2);
    hp_exact_update(e, 9, UINT64_MAX - 1);
    hp_exact_update(e, 9, 10); /* saturates */
    CHECK_EQ_U64(hp_exact_count(e, 9), UINT64_MAX);
    CHECK_EQ_U64(hp_exact_total(e), UINT64_MAX);
    hp_estimate top[4];
    size_t k = hp_exact_topk(e, top, 4);
    CHECK_EQ_U64(k, 3);
    CHECK(top[0].key == 9 && top[1].key == UINT64_MAX && top[2].key == 0);
    CHECK_EQ_U64(hp_exact_topk(e, top, 0), 0);
}

TEST(exact_full_table_reports_every_drop)
{
    uint64_t mem[128];
    hp_exact *e = hp_exact_init(mem, sizeof mem);
    REQUIRE(e != NULL);
    size_t cap = hp_exact_capacity(e), refused = 0;
    uint64_t dropped = 0, total = 0;
    for (uint64_t i = 0; i < 200; i++) {
        if (i == cap) CHECK(!hp_exact_full(e)); /* full but nothing lost yet */
        int rc = hp_exact_update(e, i * 7919, i + 1);
        total += i + 1;
        if (rc != 0) { refused++; dropped += i + 1; }
        hp_exact_update(e, 0, 1); /* a held key keeps counting when full */
        total++;
    }
    CHECK_EQ_U64(refused, 200 - cap);
    CHECK(hp_exact_full(e));
    CHECK_EQ_U64(hp_exact_dropped(e), dropped);
    CHECK_EQ_U64(hp_exact_total(e), total);
    hp_estimate top[256];
    size_t k = hp_exact_topk(e, top, 256);
    uint64_t sum = 0;
    for (size_t i = 0; i < k; i++) sum += top[i].count;
    CHECK_EQ_U64(sum + dropped, total);
    CHECK_EQ_U64(hp_exact_count(e, 0), 200 + 1); /* key 0 = i 0: weight 1, plus 200 ones */
    size_t outside = 0;
    for (uint64_t i = 1; i < 200; i++) { /* bounds hold for kept and dropped keys */
        hp_estimate q;
        hp_exact_query(e, i * 7919, &q);
        uint64_t want = i + 1;
        outside += want < q.lower || want > q.upper;
    }
    CHECK_EQ_U64(outside, 0);
}

TEST(exact_topk_is_brute_force_order)
{
    stream s = stream_zipf(200000, 50000, 1.0, 9, ORDER_BURSTS);
    hp_estimate *b = malloc(s.n * sizeof *b), top[100];
    size_t nb = brute_counts(&s, b);
    qsort(b, nb, sizeof *b, cmp_est);
    truth t = truth_of(&s, 0, s.n);
    size_t k = hp_exact_topk(t.e, top, 100), bad = 0;
    CHECK_EQ_U64(k, 100);
    for (size_t i = 0; i < k; i++) bad += top[i].key != b[i].key || top[i].count != b[i].count;
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(t.nall, nb); /* k = size: everything, in order */
    bad = 0;
    for (size_t i = 0; i < nb && i < t.nall; i++) bad += t.all[i].key != b[i].key;
    CHECK_EQ_U64(bad, 0);
    free(b);
    truth_free(&t);
    stream_free(&s);
}

TEST(exact_merge_of_halves_is_the_whole)
{
    stream s = stream_zipf(1000000, 100000, 1.2, 11, ORDER_ALTERNATING);
    truth whole = truth_of(&s, 0, s.n), a = truth_of(&s, 0, s.n / 2), b = truth_of(&s, s.n / 2, s.n);
    CHECK_EQ_U64(hp_exact_merge(a.e, b.e), 0);
    CHECK_EQ_U64(hp_exact_total(a.e), s.n);
    CHECK_EQ_U64(hp_exact_size(a.e), whole.nall);
    size_t bad = 0;
    for (size_t i = 0; i < whole.nall; i++) bad += hp_exact_count(a.e, whole.all[i].key) != whole.all[i].count;
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(hp_exact_merge(a.e, a.e), (uint64_t)-1);
    /* into a small table: the drop is reported and accounted for */
    uint64_t mem[256];
    hp_exact *small = hp_exact_init(mem, sizeof mem);
    CHECK_EQ_U64(hp_exact_merge(small, b.e), (uint64_t)-1);
    CHECK(hp_exact_full(small));
    hp_estimate top[512];
    uint64_t sum = 0;
    size_t k = hp_exact_topk(small, top, 512);
    for (size_t i = 0; i < k; i++) sum += top[i].count;
    CHECK_EQ_U64(sum + hp_exact_dropped(small), hp_exact_total(small));
    CHECK_EQ_U64(hp_exact_total(small), s.n - s.n / 2);
    truth_free(&whole); truth_free(&a); truth_free(&b);
    stream_free(&s);
}

TEST(exact_roundtrip)
{
    stream s = stream_zipf(100000, 100000, 0.8, 13, ORDER_RANDOM);
    truth t = truth_of(&s, 0, s.n);
    summary x = summary_new(&hp_exact_vt, 16384, 0);
    REQUIRE(x.s != NULL);
    summary_feed(&x, &s, 0, s.n); /* overflows: dropped weight travels too */
    CHECK(hp_exact_full(x.s));
    CHECK_EQ_U64(roundtrip_check(&x, &t), 0);
    summary y = summary_new(&hp_exact_vt, 1 << 22, 0);
    summary_feed(&y, &s, 0, s.n);
    CHECK(!hp_exact_full(y.s));
    CHECK_EQ_U64(roundtrip_check(&y, &t), 0);
    /* canonical bytes: the original and its copy serialize identically */
    size_t len = hp_exact_serialized_size(y.s);
    uint8_t *b1 = malloc(len), *b2 = malloc(len);
    void *mem = malloc(y.budget);
    hp_exact_serialize(y.s, b1, len);
    hp_exact *c = hp_exact_deserialize(mem, y.budget, b1, len);
    CHECK(c && hp_exact_serialize(c, b2, len) == len && memcmp(b1, b2, len) == 0);
    free(b1); free(b2); free(mem);
    summary_free(&x); summary_free(&y);
    truth_free(&t);
    stream_free(&s);
}

static int exact_valid(const void *y)
{
    const hp_exact *e = y;
    hp_estimate top[512];
    size_t k = hp_exact_topk(e, top, 512);
    uint64_t sum = hp_exact_dropped(e);
    for (size_t i = 0; i < k; i++) sum = hp_sat_add(sum, top[i].count);
    return k == hp_exact_size(e) && sum == hp_exact_total(e);
}

TEST(exact_corrupt_input)
{
    stream s = stream_zipf(2000, 300, 1.0, 17, ORDER_RANDOM);
    summary x = summary_new(&hp_exact_vt, 4096, 0);
    summary_feed(&x, &s, 0, s.n);
    corrupt_stats st = corrupt_check(&x, 20000, 3, exact_valid);
    CHECK(st.truncations > 100);
    CHECK_EQ_U64(st.truncations_accepted, 0);
    CHECK_EQ_U64(st.invalid, 0);
    CHECK(st.flips_accepted < st.flips);
    CHECK(hp_exact_deserialize(x.mem, x.budget, NULL, 0) == NULL);
    summary_free(&x);
    stream_free(&s);
}

TEST(exact_budget_and_alignment)
{
    static uint64_t mem[8192 / 8 + 1];
    CHECK(hp_exact_init(mem, 16) == NULL);
    CHECK(hp_exact_init(NULL, 4096) == NULL);
    size_t prev_cap = 0, bad = 0;
    for (size_t budget = hp_exact_bytes_for(8) + 7; budget <= 8192; budget += 97) {
        for (size_t off = 0; off < 8; off++) {
            hp_exact *e = hp_exact_init((char *)mem + off, budget - off);
            if (!e) continue;
            bad += (char *)e + hp_exact_bytes_used(e) > (char *)mem + budget;
            bad += ((uintptr_t)e & 7) != 0;
        }
        hp_exact *e = hp_exact_init(mem, budget);
        bad += !e || hp_exact_capacity(e) < prev_cap;
        if (e) prev_cap = hp_exact_capacity(e);
    }
    CHECK_EQ_U64(bad, 0);
    hp_exact *all = hp_exact_init(mem, 8192); /* the whole budget is used: (8192 - 48) / 16 slots */
    CHECK(all && hp_exact_capacity(all) == (8192 - 48) / 16 / 4 * 3 && hp_exact_bytes_used(all) > 8192 - 16);
    CHECK(strcmp(hp_exact_vt.name, "exact") == 0 && hp_exact_vt.kind == HP_SUMMARY_EXACT);
}

static void bench_typed(void)
{
    static uint64_t mem[65536 / 8];
    for (size_t budget = 4096; budget <= 65536; budget *= 4) {
        hp_exact *e = hp_exact_init(mem, budget);
        size_t n = 200000000, held = hp_exact_capacity(e);
        for (uint64_t i = 0; i < held; i++) hp_exact_update(e, i, 1);
        double t0 = bench_now();
        for (size_t i = 0; i < n; i++) hp_exact_update(e, 7, 1);
        double hot = n / (bench_now() - t0);
        t0 = bench_now();
        for (size_t i = 0; i < n; i++) hp_exact_update(e, i % held, 1);
        double cycle = n / (bench_now() - t0);
        n = 20000000;
        t0 = bench_now();
        for (size_t i = 0; i < n; i++) hp_exact_update(e, hp_mix64_xmx(i) | (1ull << 63), 1);
        double miss = n / (bench_now() - t0);
        printf("bench exact typed budget %6zu B: hot key %7.1f M/s, all %zu held keys cycled %7.1f M/s, "
               "new keys dropped (full) %7.1f M/s\n", budget, hot / 1e6, held, cycle / 1e6, miss / 1e6);
    }
}

int main(int argc, char **argv)
{
    if (streams_bench_requested(argc, argv)) {
        bench_typed();
        streams_bench(&hp_exact_vt);
        return 0;
    }
    RUN(exact_counts_equal_brute_force);
    RUN(exact_special_keys_and_weights);
    RUN(exact_full_table_reports_every_drop);
    RUN(exact_topk_is_brute_force_order);
    RUN(exact_merge_of_halves_is_the_whole);
    RUN(exact_roundtrip);
    RUN(exact_corrupt_input);
    RUN(exact_budget_and_alignment);
    return test_main_end();
}

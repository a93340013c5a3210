/* test_multihash.c — the interval multi-hash profiler against exact per-interval counts.
 * Checks:
 *  - one table with enough counters (no two keys of the stream share a counter, verified):
 *    the report of every interval equals the exact set {f >= T} with exact counts, for every
 *    combination of shielding / retaining / C0-C1 / R0-R1;
 *  - R0, unsaturated counters: in an interval with no dropped promotion and no evicted
 *    replaceable entry, every true candidate is reported with count >= its true count
 *    (4 tables x 512 counters, C0 and C1, Zipf streams);
 *  - C1 reports no fewer true positives than C0 on the same streams (summed over intervals);
 *  - scripted streams for shielding (with R1) and retaining, hand-derived from Section 5;
 *  - hash: counter index in range, deterministic per seed, tables differ;
 *  - area formula on the paper's configuration; invalid parameters rejected;
 *  - a small accumulator (acc_entries = 3): a fourth concurrent candidate is dropped (counted),
 *    the area shrinks by exactly one entry's bits per entry, a serialized small-accumulator
 *    state round-trips; acc_entries > ceil(1/t) is refused;
 *  - the rebalanced variant: never larger than its design, half the accumulator, Z a multiple
 *    of n, and one more group of n counters would not fit the design's area; the half variant:
 *    a quarter of the accumulator, at most half the area, filled. */
#include <stdlib.h>
#include "core/metrics/metrics.h"
#include "core/summary/multihash.h"
#include "test.h"
#include "zipf.h"

static hp_multihash_params base_params(void)
{
    hp_multihash_params p = {4, 2048, 32, 0.01, 10000, 1, 1, 0, 1, 1, 0, 0};
    return p;
}

static hp_multihash *make(const hp_multihash_params *p)
{
    size_t n = hp_multihash_bytes(p);
    void *mem = n ? malloc(n) : NULL;
    hp_multihash *mh = hp_multihash_init(mem, n, p);
    if (!mh) free(mem);
    return mh;
}

static int reported(const hp_multihash *mh, uint64_t key, uint64_t *count)
{
    const hp_multihash_candidate *c;
    size_t n = hp_multihash_report(mh, &c);
    for (size_t i = 0; i < n; i++) if (c[i].key == key) { *count = c[i].count; return 1; }
    return 0;
}

/* Per-interval comparison counters. */
typedef struct cmp_result { uint64_t tp, fp, fn, exact_counts, intervals, clean_intervals, missed_in_clean, under_in_clean; } cmp_result;

static void compare_interval(const hp_multihash *mh, const hp_exact_map *ex, uint64_t T, cmp_result *r)
{
    hp_multihash_stats st = hp_multihash_last_stats(mh);
    int clean = st.dropped == 0 && st.evicted == 0;
    r->intervals++;
    r->clean_intervals += clean;
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i] || ex->counts[i] < T) continue;
        uint64_t c;
        if (reported(mh, ex->keys[i], &c)) {
            r->tp++;
            r->exact_counts += c == ex->counts[i];
            if (clean && c < ex->counts[i]) r->under_in_clean++;
        } else {
            r->fn++;
            if (clean) r->missed_in_clean++;
        }
    }
    const hp_multihash_candidate *c;
    size_t n = hp_multihash_report(mh, &c);
    for (size_t i = 0; i < n; i++) if (hp_exact_get(ex, c[i].key) < T) r->fp++;
}

static cmp_result run(const hp_multihash_params *p, const uint64_t *keys, size_t n)
{
    cmp_result r = {0};
    hp_multihash *mh = make(p);
    if (!mh) { r.intervals = UINT64_MAX; return r; }
    uint64_t T = hp_multihash_threshold_count(p);
    hp_exact_map ex;
    hp_exact_init(&ex, p->interval_length);
    for (size_t i = 0; i < n; i++) {
        hp_exact_add(&ex, keys[i], 1);
        if (hp_multihash_update(mh, keys[i])) { compare_interval(mh, &ex, T, &r); hp_exact_clear(&ex); }
    }
    hp_exact_free(&ex);
    free(mh);
    return r;
}

/* True when no two distinct keys of the stream share a counter of table 0. */
static int stream_collision_free(const hp_multihash_params *p, const uint64_t *keys, size_t n)
{
    hp_multihash *mh = make(p);
    if (!mh) return 0;
    uint32_t per = p->total_counters / p->n_tables;
    uint64_t *owner = calloc(per, 8);
    uint8_t *used = calloc(per, 1);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        uint32_t ix = hp_multihash_index(mh, 0, keys[i]);
        if (used[ix] && owner[ix] != keys[i]) ok = 0;
        used[ix] = 1;
        owner[ix] = keys[i];
    }
    free(owner); free(used); free(mh);
    return ok;
}

TEST(one_table_enough_counters_is_exact)
{
    /* 300 distinct keys, one table of 2^20 counters; the hash seed is the first one for which
     * no two keys of the stream share a counter (the precondition of exactness). */
    size_t n = 200000;
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, n, 300, 1.0, 61);
    /* keys 0 and UINT64_MAX always share a counter under the paper's hash (see
     * paper_hash_structural_alias); move them off that structure for this test */
    for (size_t i = 0; i < n; i++) keys[i] ^= 0x0123456789abcdefull;
    hp_multihash_params p = {1, 1u << 20, 32, 0.01, 10000, 1, 1, 0, 1, 1, 0, 0};
    while (p.seed < 200 && !stream_collision_free(&p, keys, n)) p.seed++;
    REQUIRE(stream_collision_free(&p, keys, n));
    for (int combo = 0; combo < 16; combo++) {
        p.shield = combo & 1; p.retain = (combo >> 1) & 1; p.conservative = (combo >> 2) & 1; p.reset = (combo >> 3) & 1;
        cmp_result r = run(&p, keys, n);
        CHECK_EQ_U64(r.intervals, n / 10000);
        CHECK_EQ_U64(r.clean_intervals, r.intervals);
        CHECK_EQ_U64(r.fp, 0);
        CHECK_EQ_U64(r.fn, 0);
        CHECK(r.tp > 0);
        CHECK_EQ_U64(r.exact_counts, r.tp);
    }
    free(keys);
}

TEST(no_false_negative_without_drops_r0)
{
    const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    size_t n = 1000000;
    for (int a = 0; a < 4; a++) {
        uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, n, 100000, alphas[a], 71 + a);
        for (int cu = 0; cu < 2; cu++) {
            hp_multihash_params p = base_params();
            p.conservative = cu;
            cmp_result r = run(&p, keys, n);
            CHECK_EQ_U64(r.intervals, n / 10000);
            CHECK(r.clean_intervals > 0);
            CHECK_EQ_U64(r.missed_in_clean, 0);
            CHECK_EQ_U64(r.under_in_clean, 0);
        }
        free(keys);
    }
}

TEST(conservative_update_no_fewer_true_positives)
{
    const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    size_t n = 1000000;
    for (int a = 0; a < 4; a++) {
        uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, n, 100000, alphas[a], 81 + a);
        for (int tables = a == 1 ? 1 : 4; tables <= 4; tables *= 4) { /* 1 table once, 4 (paper's best) always */
            hp_multihash_params p = base_params();
            p.n_tables = (uint32_t)tables;
            p.conservative = 0;
            cmp_result c0 = run(&p, keys, n);
            p.conservative = 1;
            cmp_result c1 = run(&p, keys, n);
            CHECK(c1.tp >= c0.tp);
            CHECK(c1.fp <= c0.fp);
        }
        free(keys);
    }
    /* adversarial orders too */
    uint64_t *keys = hp_stream_make(HP_STREAM_BURSTS, n, 100000, 1.0, 91);
    hp_multihash_params p = base_params();
    p.conservative = 0;
    cmp_result c0 = run(&p, keys, n);
    p.conservative = 1;
    cmp_result c1 = run(&p, keys, n);
    CHECK(c1.tp >= c0.tp);
    free(keys);
}

/* Section 5.2 shielding with R1, one counter shared by all keys, T = ceil(0.03 * 100) = 3.
 * A x3: counter 1,2,3 -> A promoted with count 3, counter reset to 0. A x5 more: A's entry
 * reaches 8. Shielded, the counter stays 0 and B (once) leaves it at 1 < 3: report {A:8}.
 * Unshielded, A's 5 updates also raise the counter to 5; B makes it 6 >= 3 and is promoted
 * with count 6 (a false positive through aliasing): report {A:8, B:6}. */
TEST(shielding_scripted)
{
    for (int shield = 0; shield < 2; shield++) {
        hp_multihash_params p = {1, 1, 8, 0.03, 100, shield, 0, 1, 0, 1, 0, 0};
        hp_multihash *mh = make(&p);
        REQUIRE(mh != NULL);
        CHECK_EQ_U64(hp_multihash_threshold_count(&p), 3);
        for (int i = 0; i < 8; i++) hp_multihash_update(mh, 0xA);
        CHECK_EQ_U64(hp_multihash_counter(mh, 0, 0), shield ? 0 : 5);
        hp_multihash_update(mh, 0xB);
        CHECK(hp_multihash_end_interval(mh) == 1);
        const hp_multihash_candidate *c;
        size_t n = hp_multihash_report(mh, &c);
        CHECK_EQ_U64(n, shield ? 1 : 2);
        CHECK(c[0].key == 0xA && c[0].count == 8);
        if (!shield && n == 2) CHECK(c[1].key == 0xB && c[1].count == 6);
        free(mh);
    }
}

/* Section 5.4.1 retaining, one shared counter, T = ceil(0.25 * 12) = 3, 4 entries, R0 C0.
 * Interval 1: A x3 -> A promoted, report {A:3}. Interval 2: A x3, X x1.
 * Retaining: A is held as replaceable with count 0; its 3 updates are shielded (counter stays
 * 0) and bring it to 3 -> non-replaceable again; X makes the counter 1 < 3. Report {A:3}.
 * Without retaining: A x3 raise the counter to 3 -> A promoted (count 3); X makes it 4 >= 3
 * and is promoted with count 4 (false positive). Report {X:4, A:3}. */
TEST(retaining_scripted)
{
    for (int retain = 0; retain < 2; retain++) {
        hp_multihash_params p = {1, 1, 8, 0.25, 12, 1, retain, 0, 0, 1, 0, 0};
        hp_multihash *mh = make(&p);
        REQUIRE(mh != NULL);
        CHECK_EQ_U64(hp_multihash_acc_entries(&p), 4);
        for (int i = 0; i < 3; i++) hp_multihash_update(mh, 0xA);
        hp_multihash_end_interval(mh);
        CHECK(hp_multihash_acc_state(mh, 0xA) == (retain ? HP_MH_REPLACEABLE : HP_MH_ABSENT));
        for (int i = 0; i < 3; i++) hp_multihash_update(mh, 0xA);
        CHECK_EQ_U64(hp_multihash_counter(mh, 0, 0), retain ? 0 : 3);
        hp_multihash_update(mh, 0xF);
        hp_multihash_end_interval(mh);
        const hp_multihash_candidate *c;
        size_t n = hp_multihash_report(mh, &c);
        CHECK_EQ_U64(n, retain ? 1 : 2);
        if (retain) CHECK(c[0].key == 0xA && c[0].count == 3);
        else if (n == 2) CHECK(c[0].key == 0xF && c[0].count == 4 && c[1].key == 0xA && c[1].count == 3);
        free(mh);
    }
}

/* Retained entries are replaceable: with 4 entries all retained, each new promotion takes
 * the first replaceable entry. Interval 2 = E x3, A x3, B x3, C x3 (one table, 4096 counters,
 * keys collision-free): E evicts A, A evicts B, B evicts C, C evicts D; D, never reaching T,
 * is flushed at the end. Report {A,B,C,E} with 3 each, 4 evictions. */
TEST(retained_entries_are_replaceable)
{
    hp_multihash_params p = {1, 4096, 16, 0.25, 12, 1, 1, 0, 1, 5, 0, 0};
    uint64_t k[5] = {0xA, 0xB, 0xC, 0xD, 0xE};
    REQUIRE(stream_collision_free(&p, k, 5));
    hp_multihash *mh = make(&p);
    REQUIRE(mh != NULL);
    for (int i = 0; i < 12; i++) hp_multihash_update(mh, k[i / 3]);
    CHECK_EQ_U64(hp_multihash_report(mh, &(const hp_multihash_candidate *){0}), 4);
    uint64_t second[4] = {0xE, 0xA, 0xB, 0xC};
    int ended = 0;
    for (int i = 0; i < 12; i++) ended = hp_multihash_update(mh, second[i / 3]);
    CHECK(ended == 1);
    const hp_multihash_candidate *c;
    size_t n = hp_multihash_report(mh, &c);
    CHECK_EQ_U64(n, 4);
    uint64_t want[4] = {0xA, 0xB, 0xC, 0xE};
    for (size_t i = 0; i < n && i < 4; i++) CHECK(c[i].key == want[i] && c[i].count == 3);
    CHECK_EQ_U64(hp_multihash_last_stats(mh).evicted, 4);
    CHECK(hp_multihash_acc_state(mh, 0xD) == HP_MH_ABSENT);
    CHECK(hp_multihash_acc_state(mh, 0xE) == HP_MH_REPLACEABLE);
    free(mh);
}

/* Accumulator full of non-replaceable entries: the next promotion is dropped. */
TEST(full_accumulator_drops)
{
    hp_multihash_params p = {1, 4096, 16, 0.25, 100, 1, 0, 0, 1, 5, 0, 0};
    uint64_t k[5] = {1, 2, 3, 4, 5};
    REQUIRE(stream_collision_free(&p, k, 5));
    hp_multihash *mh = make(&p);
    REQUIRE(mh != NULL);
    CHECK_EQ_U64(hp_multihash_threshold_count(&p), 25);
    for (int i = 0; i < 100; i++) hp_multihash_update(mh, k[i % 5]); /* 20 each: none reaches 25 */
    CHECK_EQ_U64(hp_multihash_report(mh, &(const hp_multihash_candidate *){0}), 0);
    hp_multihash_params q = {1, 4096, 16, 0.1, 100, 1, 0, 0, 1, 5, 0, 0}; /* T = 10, 10 entries */
    free(mh);
    mh = make(&q);
    REQUIRE(mh != NULL);
    for (int i = 0; i < 100; i++) hp_multihash_update(mh, k[i % 5]);
    CHECK_EQ_U64(hp_multihash_report(mh, &(const hp_multihash_candidate *){0}), 5);
    CHECK_EQ_U64(hp_multihash_last_stats(mh).dropped, 0);
    free(mh);
}

TEST(hash_properties)
{
    hp_multihash_params p = base_params();
    p.total_counters = 2000; /* 500 per table, not a power of two */
    hp_multihash *a = make(&p), *b = make(&p);
    p.seed = 2;
    hp_multihash *c = make(&p);
    REQUIRE(a && b && c);
    int in_range = 1, same = 1, differs = 0, tables_differ = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        uint64_t key = k * 0x9e3779b97f4a7c15ull;
        for (uint32_t j = 0; j < 4; j++) {
            uint32_t ix = hp_multihash_index(a, j, key);
            if (ix >= 500) in_range = 0;
            if (ix != hp_multihash_index(b, j, key)) same = 0;
            if (ix != hp_multihash_index(c, j, key)) differs = 1;
        }
        if (hp_multihash_index(a, 0, key) != hp_multihash_index(a, 1, key)) tables_differ = 1;
    }
    CHECK(in_range);
    CHECK(same);
    CHECK(differs);
    CHECK(tables_differ);
    free(a); free(b); free(c);
}

/* Serialize mid-interval, deserialize elsewhere, feed both the rest of the stream: every later
 * report and statistic is identical. Truncations and bit flips never crash. */
TEST(serialize_roundtrip_and_corruption)
{
    size_t n = 60000;
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, n, 2000, 1.0, 111);
    hp_multihash_params p = base_params();
    p.total_counters = 256;
    hp_multihash *a = make(&p);
    REQUIRE(a != NULL);
    for (size_t i = 0; i < n / 2 + 1234; i++) hp_multihash_update(a, keys[i]);
    size_t len = hp_multihash_serialized_size(a), budget = hp_multihash_bytes(&p);
    uint8_t *buf = malloc(len), *flip = malloc(len);
    void *mem = malloc(budget);
    CHECK(hp_multihash_serialize(a, buf, len - 1) == 0);
    REQUIRE(hp_multihash_serialize(a, buf, len) == len);
    hp_multihash *b = hp_multihash_deserialize(mem, budget, buf, len);
    REQUIRE(b != NULL);
    int same = 1;
    for (size_t i = n / 2 + 1234; i < n; i++) {
        int ea = hp_multihash_update(a, keys[i]), eb = hp_multihash_update(b, keys[i]);
        if (ea != eb) same = 0;
        if (!ea) continue;
        const hp_multihash_candidate *ca, *cb;
        size_t na = hp_multihash_report(a, &ca), nb = hp_multihash_report(b, &cb);
        if (na != nb || memcmp(ca, cb, na * sizeof *ca) != 0) same = 0;
        hp_multihash_stats sa = hp_multihash_last_stats(a), sb = hp_multihash_last_stats(b);
        if (memcmp(&sa, &sb, sizeof sa) != 0) same = 0;
    }
    CHECK(same);
    CHECK(hp_multihash_deserialize(mem, budget - 1, buf, len) == NULL);
    size_t accepted = 0;
    for (size_t cut = 0; cut < len; cut += 7) accepted += hp_multihash_deserialize(mem, budget, buf, cut) != NULL;
    CHECK_EQ_U64(accepted, 0);
    hp_rng rng;
    hp_rng_seed(&rng, 3);
    size_t accepted_bad = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(flip, buf, len);
        size_t bit = hp_rng_below(&rng, len * 8);
        flip[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        hp_multihash *c = hp_multihash_deserialize(mem, budget, flip, len);
        if (!c) continue;
        accepted++;
        for (int j = 0; j < 9000; j++) hp_multihash_update(c, keys[j]); /* crosses an interval end */
        const hp_multihash_candidate *cc;
        size_t nc = hp_multihash_report(c, &cc);
        for (size_t j = 0; j < nc; j++) if (cc[j].count < hp_multihash_threshold_count(&p)) accepted_bad++;
    }
    CHECK_EQ_U64(accepted_bad, 0); /* an accepted state still reports only counts >= T */
    free(buf); free(flip); free(mem); free(a); free(keys);
}

/* flip(randomize(hi)) ^ randomize(lo) is 0 whenever lo == bswap32(hi), because byte-wise
 * substitution commutes with byte reversal: such keys (0 and UINT64_MAX among them) share
 * counter 0 in every table, whatever the seed. A property of the paper's hash, kept. */
TEST(paper_hash_structural_alias)
{
    hp_multihash_params p = base_params();
    for (uint64_t seed = 1; seed <= 3; seed++) {
        p.seed = seed;
        hp_multihash *mh = make(&p);
        REQUIRE(mh != NULL);
        for (uint32_t j = 0; j < 4; j++) {
            CHECK_EQ_U64(hp_multihash_index(mh, j, 0), 0);
            CHECK_EQ_U64(hp_multihash_index(mh, j, UINT64_MAX), 0);
            CHECK_EQ_U64(hp_multihash_index(mh, j, 0x12345678ull << 32 | 0x78563412ull), 0);
        }
        free(mh);
    }
}

/* 4 tables x 512 16-bit counters = 4096 bytes; 100 entries x (64 + 14 + 2) bits = 1000 bytes
 * (10000 needs 14 bits). */
TEST(area_and_parameters)
{
    hp_multihash_params p = base_params();
    p.counter_bits = 16;
    CHECK_EQ_U64(hp_multihash_acc_entries(&p), 100);
    CHECK_EQ_U64(hp_multihash_threshold_count(&p), 100);
    CHECK_EQ_U64(hp_multihash_area_bytes(&p), 5096);
    p.threshold = 0.001;
    p.interval_length = 1000000;
    CHECK_EQ_U64(hp_multihash_acc_entries(&p), 1000);
    CHECK_EQ_U64(hp_multihash_threshold_count(&p), 1000);
    hp_multihash_params bad = base_params();
    bad.counter_bits = 6; /* T = 100 > 63 */
    CHECK(make(&bad) == NULL);
    bad = base_params(); bad.n_tables = 0;
    CHECK(hp_multihash_bytes(&bad) == 0);
    bad = base_params(); bad.threshold = 0;
    CHECK(hp_multihash_bytes(&bad) == 0);
    bad = base_params();
    static uint8_t small[64];
    CHECK(hp_multihash_init(small, sizeof small, &bad) == NULL);
}

TEST(small_accumulator)
{
    hp_multihash_params p = {1, 4096, 16, 0.1, 100, 1, 0, 0, 1, 5, 0, 3}; /* T = 10, 3 entries */
    uint64_t k[5] = {1, 2, 3, 4, 5};
    REQUIRE(stream_collision_free(&p, k, 5));
    CHECK_EQ_U64(hp_multihash_acc_entries(&p), 3);
    hp_multihash *mh = make(&p);
    REQUIRE(mh != NULL);
    for (int i = 0; i < 100; i++) hp_multihash_update(mh, k[i % 5]); /* 5 keys x 20: all candidates */
    CHECK_EQ_U64(hp_multihash_report(mh, &(const hp_multihash_candidate *){0}), 3);
    CHECK_EQ_U64(hp_multihash_last_stats(mh).promoted, 3);
    CHECK(hp_multihash_last_stats(mh).dropped >= 2);
    hp_multihash_params full = p;
    full.acc_entries = 0;
    uint64_t entry_bits = 64 + 7 + 2; /* tag, a counter able to reach L = 100, state */
    CHECK_EQ_U64(hp_multihash_area_bytes(&full), (16 * 4096 + 10 * entry_bits + 7) / 8);
    CHECK_EQ_U64(hp_multihash_area_bytes(&p), (16 * 4096 + 3 * entry_bits + 7) / 8);
    for (int i = 0; i < 37; i++) hp_multihash_update(mh, k[i % 5]);
    size_t len = hp_multihash_serialized_size(mh), budget = hp_multihash_bytes(&p);
    uint8_t *buf = malloc(len);
    void *mem = malloc(budget);
    REQUIRE(hp_multihash_serialize(mh, buf, len) == len);
    hp_multihash *b = hp_multihash_deserialize(mem, budget, buf, len);
    REQUIRE(b != NULL);
    CHECK_EQ_U64(hp_multihash_get_params(b)->acc_entries, 3);
    int same = 1;
    for (int i = 37; i < 300; i++) {
        int ea = hp_multihash_update(mh, k[i % 5]), eb = hp_multihash_update(b, k[i % 5]);
        same &= ea == eb;
        if (ea) same &= hp_multihash_report(mh, &(const hp_multihash_candidate *){0}) == hp_multihash_report(b, &(const hp_multihash_candidate *){0});
    }
    CHECK(same);
    p.acc_entries = 11; /* more than ceil(1/t) = 10 */
    CHECK(hp_multihash_bytes(&p) == 0);
    free(buf); free(mem); free(mh);
}

TEST(rebalanced_variant)
{
    const double t[] = {0.01, 0.001};
    const uint64_t L[] = {10000, 1000000};
    const uint32_t z[] = {512, 1024, 2048}, n[] = {1, 4, 16};
    int all_ok = 1;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                hp_multihash_params d = base_params(), r;
                d.threshold = t[s], d.interval_length = L[s], d.total_counters = z[i], d.n_tables = n[j];
                d.counter_bits = s ? 10 : 7;
                if (hp_multihash_rebalance(&d, 2, 1, &r)) { all_ok = 0; continue; }
                hp_multihash_params more = r;
                more.total_counters += r.n_tables;
                uint64_t entry = 64 + (s ? 20 : 14) + 2, design_bits = (uint64_t)d.counter_bits * d.total_counters + (s ? 1000 : 100) * entry;
                uint64_t bits = (uint64_t)r.counter_bits * r.total_counters + r.acc_entries * entry;
                all_ok &= r.acc_entries == (s ? 500u : 50u) && r.total_counters % r.n_tables == 0 && r.total_counters > d.total_counters;
                all_ok &= bits <= design_bits && bits + (uint64_t)r.counter_bits * r.n_tables > design_bits;
                all_ok &= hp_multihash_area_bytes(&r) <= hp_multihash_area_bytes(&d) && hp_multihash_area_bytes(&more) >= hp_multihash_area_bytes(&r);
                all_ok &= r.n_tables == d.n_tables && r.counter_bits == d.counter_bits && r.seed == d.seed && r.conservative == d.conservative;
                hp_multihash *m = make(&r);
                all_ok &= m != NULL;
                free(m);
            }
    CHECK(all_ok);
    /* half: a quarter of the accumulator in half the area */
    hp_multihash_params d = base_params(), h;
    d.counter_bits = 7;
    uint32_t ad, ar;
    REQUIRE(hp_multihash_variant_divisors(HP_MH_VARIANT_HALF, &ad, &ar) == 0);
    REQUIRE(hp_multihash_rebalance(&d, ad, ar, &h) == 0);
    CHECK_EQ_U64(h.acc_entries, 25);
    CHECK(hp_multihash_area_bytes(&h) * 2 <= hp_multihash_area_bytes(&d) + 1);
    CHECK(h.total_counters % 4 == 0 && (uint64_t)(h.total_counters + 4) * 7 + 25 * 80 > 2792 * 8 / 2);
    CHECK(hp_multihash_variant_divisors(HP_MH_VARIANT_PAPER, &ad, &ar) == -1);
    hp_multihash_params bad = base_params(), r;
    bad.n_tables = 0;
    CHECK(hp_multihash_rebalance(&bad, 2, 1, &r) == -1);
    CHECK(hp_multihash_rebalance(&d, 0, 1, &r) == -1);
}

/* HP_BENCH: throughput of the paper's configuration and its mean weighted error E (Eq. 1,
 * computed by core/metrics/multihash.c) on Zipf streams of 10^6 events. Informational, prints only. */
static double mean_error(const hp_multihash_params *p, const uint64_t *keys, size_t n)
{
    hp_multihash *mh = make(p);
    uint64_t T = hp_multihash_threshold_count(p);
    hp_exact_map ex;
    hp_exact_init(&ex, p->interval_length);
    hp_metric_item *perfect = malloc(p->interval_length * sizeof *perfect);
    hp_metric_item *hw = malloc(hp_multihash_acc_entries(p) * sizeof *hw);
    hp_metric_item *scratch = malloc((p->interval_length + hp_multihash_acc_entries(p)) * sizeof *scratch);
    double *errs = malloc((n / p->interval_length + 1) * sizeof *errs);
    size_t ni = 0;
    for (size_t i = 0; i < n; i++) {
        hp_exact_add(&ex, keys[i], 1);
        if (!hp_multihash_update(mh, keys[i])) continue;
        size_t np = 0;
        for (size_t s = 0; s <= ex.mask; s++)
            if (ex.used[s]) { perfect[np].key = ex.keys[s]; perfect[np].weight = (double)ex.counts[s]; np++; }
        const hp_multihash_candidate *c;
        size_t nh = hp_multihash_report(mh, &c);
        for (size_t j = 0; j < nh; j++) { hw[j].key = c[j].key; hw[j].weight = (double)c[j].count; }
        hp_multihash_error e;
        hp_multihash_interval_error(perfect, np, hw, nh, (double)T, scratch, &e);
        errs[ni++] = e.total;
        hp_exact_clear(&ex);
    }
    double m = hp_multihash_mean_error(errs, ni);
    free(perfect); free(hw); free(scratch); free(errs); free(mh);
    hp_exact_free(&ex);
    return m;
}

static void bench(void)
{
    hp_multihash_params p = base_params(); /* 4 tables, 2048 counters, 10000 / 1%, C1 R0, retain */
    for (int hot = 0; hot < 2; hot++) {
        hp_multihash *mh = make(&p);
        double t0 = hp_bench_now();
        for (size_t i = 0; i < 4000000; i++) hp_multihash_update(mh, hot ? 42 : hp_mix64(i + 1));
        printf("  bench multihash 4x512 %s %.1f M upd/s\n", hot ? "hot  " : "worst", 4.0 / (hp_bench_now() - t0));
        free(mh);
    }
    const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    for (int a = 0; a < 4; a++) {
        uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 1000000, 100000, alphas[a], 101 + a);
        for (int tables = 1; tables <= 8; tables *= 2) {
            hp_multihash_params q = p;
            q.n_tables = (uint32_t)tables;
            double c1 = mean_error(&q, keys, 1000000);
            q.conservative = 0;
            double c0 = mean_error(&q, keys, 1000000);
            printf("  error zipf %.1f  %d tables  C1 R0 P1 %.4f   C0 R0 P1 %.4f\n", alphas[a], tables, c1, c0);
        }
        free(keys);
    }
}

int main(void)
{
    RUN(one_table_enough_counters_is_exact);
    RUN(no_false_negative_without_drops_r0);
    RUN(conservative_update_no_fewer_true_positives);
    RUN(shielding_scripted);
    RUN(retaining_scripted);
    RUN(retained_entries_are_replaceable);
    RUN(full_accumulator_drops);
    RUN(hash_properties);
    RUN(serialize_roundtrip_and_corruption);
    RUN(paper_hash_structural_alias);
    RUN(area_and_parameters);
    RUN(small_accumulator);
    RUN(rebalanced_variant);
    if (getenv("HP_BENCH")) bench();
    return test_main_end();
}

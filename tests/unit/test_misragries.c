/* test_misragries.c — Misra–Gries (DataSketches purge-by-median) against an exact counter.
 * Checks: lower <= true <= upper for every key of every stream (Zipf 0.8..1.5, uniform, sorted,
 * bursts, alternating; 10^6 items), also for keys not held (upper = offset); the offset bound
 * offset <= total / ceil((M+1)/2) (each purge removes median * ceil((M+1)/2) weight);
 * hand-computed purge traces; merge of 4 parts keeps the bounds for the whole stream;
 * serialize round trip; truncated / bit-flipped input never crashes. */
#include <stdlib.h>
#include <string.h>
#include "core/summary/misragries.h"
#include "test.h"
#include "zipf.h"

#define N_ITEMS 1000000
#define UNIVERSE 100000
#define BUDGET (16 * 1024)

static const double alphas[] = {0.8, 1.0, 1.2, 1.5};

static int bounds_hold(const hp_misragries *mg, const hp_exact_map *ex)
{
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i]) continue;
        hp_estimate e;
        hp_misragries_vt.query(mg, ex->keys[i], &e);
        if (e.lower > ex->counts[i] || e.upper < ex->counts[i]) return 0;
    }
    /* a key never seen: true 0 */
    hp_estimate e;
    hp_misragries_vt.query(mg, 0x1234567890abcdefull, &e);
    return e.lower == 0 || hp_exact_get(ex, 0x1234567890abcdefull) >= e.lower;
}

static int offset_bounded(const hp_misragries *mg)
{
    uint64_t m = hp_misragries_capacity(mg);
    uint64_t removed_per_purge = (m + 2) / 2; /* ceil((M+1)/2) */
    return hp_misragries_offset(mg) <= hp_misragries_vt.total(mg) / removed_per_purge;
}

static void run_stream(int kind, double alpha)
{
    uint64_t *keys = hp_stream_make(kind, N_ITEMS, UNIVERSE, alpha, 21 + (uint64_t)(alpha * 10));
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    void *mem = malloc(BUDGET);
    hp_misragries *mg = hp_misragries_init(mem, BUDGET, 0);
    CHECK(mg != NULL);
    if (mg) {
        for (size_t i = 0; i < N_ITEMS; i++) hp_misragries_update(mg, keys[i], 1);
        CHECK_EQ_U64(hp_misragries_vt.total(mg), N_ITEMS);
        CHECK(hp_misragries_vt.bytes_used(mg) <= BUDGET);
        CHECK(bounds_hold(mg, &ex));
        CHECK(offset_bounded(mg));
        static hp_estimate top[2048];
        size_t k = hp_misragries_vt.topk(mg, top, 2048);
        int sorted = k == hp_misragries_active(mg);
        for (size_t i = 1; i < k; i++) if (top[i].count > top[i - 1].count) sorted = 0;
        CHECK(sorted);
    }
    free(mem);
    hp_exact_free(&ex);
    free(keys);
}

TEST(zipf_bounds_hold)
{
    for (int a = 0; a < 4; a++) run_stream(HP_STREAM_ZIPF, alphas[a]);
}

TEST(adversarial_bounds_hold)
{
    run_stream(HP_STREAM_UNIFORM, 0);
    run_stream(HP_STREAM_SORTED, 1.0);
    run_stream(HP_STREAM_BURSTS, 1.2);
    run_stream(HP_STREAM_ALTERNATE, 0);
}

/* Table 8 -> at most M = 6 keys. Seven keys with counts 5,4,3,2,1,1,1: sorted
 * 1,1,1,2,3,4,5, median (index 7/2 = 3) is 2; survivors 5-2, 4-2, 3-2; offset 2. */
TEST(hand_trace_purge_by_median)
{
    static uint8_t mem[4096];
    hp_misragries *mg = NULL;
    for (size_t b = 64; b < sizeof mem && !mg; b += 8) mg = hp_misragries_init(mem, b, 0);
    REQUIRE(mg != NULL);
    REQUIRE(hp_misragries_capacity(mg) == 6);
    uint64_t w[7] = {5, 4, 3, 2, 1, 1, 1};
    for (uint64_t k = 0; k < 7; k++) hp_misragries_update(mg, k, w[k]); /* keys 0..6 */
    CHECK_EQ_U64(hp_misragries_offset(mg), 2);
    CHECK_EQ_U64(hp_misragries_active(mg), 3);
    CHECK_EQ_U64(hp_misragries_count(mg, 0), 3);
    CHECK_EQ_U64(hp_misragries_count(mg, 1), 2);
    CHECK_EQ_U64(hp_misragries_count(mg, 2), 1);
    CHECK_EQ_U64(hp_misragries_count(mg, 3), 0);
    hp_estimate e;
    CHECK(hp_misragries_vt.query(mg, 3, &e) == 0);
    CHECK_EQ_U64(e.upper, 2); /* true count 2 */
    hp_misragries_update(mg, UINT64_MAX, 4);
    CHECK(hp_misragries_vt.query(mg, UINT64_MAX, &e) == 1);
    CHECK_EQ_U64(e.lower, 4);
    CHECK_EQ_U64(e.upper, 6);
    CHECK_EQ_U64(hp_misragries_vt.total(mg), 21);
}

/* The purge (survivors through the counts-only scratch) against a plain model: keys and counts
 * in an array, purge = sort a copy of the counts, subtract the median, drop the non-positive.
 * Every table size from 8 to 40 (not only powers of two), weights 1..4, after every update. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

TEST(purge_matches_model)
{
    static uint8_t mem[4096];
    hp_rng rng;
    hp_rng_seed(&rng, 17);
    size_t bad = 0, sizes = 0;
    uint32_t prev_cap = 0;
    for (size_t budget = 64; budget < 1200; budget += 8) {
        hp_misragries *mg = hp_misragries_init(mem, budget, 0);
        if (!mg || hp_misragries_capacity(mg) == prev_cap) continue;
        prev_cap = hp_misragries_capacity(mg);
        bad += hp_misragries_vt.bytes_used(mg) > budget;
        sizes++;
        uint32_t m = hp_misragries_capacity(mg), n = 0;
        uint64_t keys[64], counts[64], sorted[64], offset = 0;
        for (int i = 0; i < 3000; i++) {
            uint64_t key = hp_rng_below(&rng, 2 * m + 5) * 0x10001, w = 1 + (i % 3 == 0) * hp_rng_below(&rng, 4);
            uint32_t j = 0;
            while (j < n && keys[j] != key) j++;
            if (j < n) counts[j] += w;
            else { keys[n] = key; counts[n++] = w; }
            if (n > m) {
                memcpy(sorted, counts, n * 8);
                qsort(sorted, n, 8, cmp_u64);
                uint64_t med = sorted[n / 2];
                uint32_t k = 0;
                for (j = 0; j < n; j++)
                    if (counts[j] > med) { keys[k] = keys[j]; counts[k++] = counts[j] - med; }
                n = k;
                offset += med;
            }
            hp_misragries_update(mg, key, w);
            bad += hp_misragries_offset(mg) != offset || hp_misragries_active(mg) != n;
            for (j = 0; j < n; j++) bad += hp_misragries_count(mg, keys[j]) != counts[j];
        }
    }
    CHECK(sizes >= 20);
    CHECK_EQ_U64(bad, 0);
}

/* Version 2 writes any table size; version 1 blobs (power-of-two tables) still read. */
TEST(version_one_still_read)
{
    static uint8_t mem[16384], mem2[16384], blob[16384];
    size_t budget = 0;
    hp_misragries *mg = NULL;
    for (budget = 8000; budget < 16384; budget++) { /* a budget whose largest table is 512 */
        mg = hp_misragries_init(mem, budget, 0);
        if (mg && hp_misragries_capacity(mg) == 384) break;
    }
    REQUIRE(mg != NULL && hp_misragries_capacity(mg) == 384);
    for (uint64_t i = 0; i < 5000; i++) hp_misragries_update(mg, i % 700, 1);
    size_t n = hp_misragries_vt.serialize(mg, blob, sizeof blob);
    REQUIRE(n > 0);
    CHECK(blob[4] == 2);
    blob[4] = 1;
    hp_misragries *copy = hp_misragries_vt.deserialize(mem2, sizeof mem2, blob, n);
    CHECK(copy != NULL && hp_misragries_count(copy, 3) == hp_misragries_count(mg, 3));
    hp_misragries *odd = hp_misragries_init(mem, 2000, 0); /* (2000 - 40) / 22: table 89 */
    REQUIRE(odd != NULL);
    hp_misragries_update(odd, 5, 1);
    n = hp_misragries_vt.serialize(odd, blob, sizeof blob);
    CHECK(blob[8] == 89 && hp_misragries_vt.deserialize(mem2, sizeof mem2, blob, n) != NULL);
    blob[4] = 1;
    CHECK(hp_misragries_vt.deserialize(mem2, sizeof mem2, blob, n) == NULL);
}

TEST(merge_four_parts_keeps_bounds)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, N_ITEMS, UNIVERSE, 1.0, 5);
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    void *mem[4];
    hp_misragries *mg[4];
    for (int p = 0; p < 4; p++) { mem[p] = malloc(BUDGET); mg[p] = hp_misragries_init(mem[p], BUDGET, 0); }
    for (size_t i = 0; i < N_ITEMS; i++) hp_misragries_update(mg[i * 4 / N_ITEMS], keys[i], 1);
    for (int p = 1; p < 4; p++) CHECK(hp_misragries_vt.merge(mg[0], mg[p]) == 0);
    CHECK_EQ_U64(hp_misragries_vt.total(mg[0]), N_ITEMS);
    CHECK(bounds_hold(mg[0], &ex));
    for (int p = 0; p < 4; p++) free(mem[p]);
    hp_exact_free(&ex);
    free(keys);
}

TEST(serialize_roundtrip_and_corruption)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 100000, 5000, 1.0, 11);
    void *mem = malloc(4096);
    hp_misragries *mg = hp_misragries_init(mem, 4096, 0);
    REQUIRE(mg != NULL);
    for (size_t i = 0; i < 100000; i++) hp_misragries_update(mg, keys[i], 1 + (i % 3));
    CHECK(hp_vt_roundtrip_ok(&hp_misragries_vt, mg, 4096));
    CHECK(hp_vt_corruption_run(&hp_misragries_vt, mg, 4096, 3000, 2) < 1000000);
    CHECK(hp_misragries_vt.init(mem, 16, 0) == NULL);
    free(mem);
    free(keys);
}

int main(void)
{
    RUN(zipf_bounds_hold);
    RUN(adversarial_bounds_hold);
    RUN(hand_trace_purge_by_median);
    RUN(purge_matches_model);
    RUN(version_one_still_read);
    RUN(merge_four_parts_keeps_bounds);
    RUN(serialize_roundtrip_and_corruption);
    if (getenv("HP_BENCH")) {
        hp_bench_vt(&hp_misragries_vt);
    }
    return test_main_end();
}

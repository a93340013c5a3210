/* test_tnv.c — TNV table (LFU replacement, lower half cleared every K updates).
 * Checks: a hand-computed trace with N = 4, K = 6 (LFU picks the first smallest count, the clear
 * keeps the N - N/2 = 2 highest counts, stable on ties); lower <= true <= upper for every key of
 * Zipf / adversarial streams through the vtable (N = 50, K = 2000); topk sorted; merge refused;
 * serialize round trip; corrupt input never crashes. */
#include <stdlib.h>
#include "core/summary/tnv.h"
#include "test.h"
#include "zipf.h"

#define N_ITEMS 1000000
#define UNIVERSE 100000

static uint8_t mem[4096];

static int table_is(const hp_tnv *t, uint32_t n, const uint64_t *vals, const uint64_t *counts)
{
    const hp_tnv_entry *e;
    if (hp_tnv_entries(t, &e) != n) return 0;
    for (uint32_t i = 0; i < n; i++) if (e[i].value != vals[i] || e[i].count != counts[i]) return 0;
    return 1;
}

enum { A = 1, B, C, D, E, F, G, H };

TEST(hand_trace_lfu_and_clear)
{
    hp_tnv *t = hp_tnv_init(mem, sizeof mem, 4, 6);
    REQUIRE(t != NULL);
    uint64_t first[] = {A, B, A, C, D};
    for (int i = 0; i < 5; i++) hp_tnv_update(t, first[i], 1);
    CHECK(table_is(t, 4, (uint64_t[]){A, B, C, D}, (uint64_t[]){2, 1, 1, 1}));
    hp_tnv_update(t, E, 1); /* LFU = B (first count-1 entry); then the 6th update clears */
    CHECK(table_is(t, 2, (uint64_t[]){A, E}, (uint64_t[]){2, 1}));
    CHECK_EQ_U64(hp_tnv_clears(t), 1);
    hp_tnv_update(t, F, 1);
    hp_tnv_update(t, G, 1);
    hp_tnv_update(t, E, 1);
    CHECK(table_is(t, 4, (uint64_t[]){A, E, F, G}, (uint64_t[]){2, 2, 1, 1}));
    hp_tnv_update(t, H, 1); /* LFU = F */
    hp_tnv_update(t, B, 3); /* LFU = H, B enters with its weight 3 */
    CHECK(table_is(t, 4, (uint64_t[]){A, E, B, G}, (uint64_t[]){2, 2, 3, 1}));
    hp_tnv_update(t, G, 1); /* 12th update: sort B3 A2 E2 G2 (stable), keep B, A */
    CHECK(table_is(t, 2, (uint64_t[]){B, A}, (uint64_t[]){3, 2}));
    CHECK_EQ_U64(hp_tnv_clears(t), 2);
    CHECK_EQ_U64(hp_tnv_vt.total(t), 14);
    hp_estimate e;
    CHECK(hp_tnv_vt.query(t, G, &e) == 0);
    CHECK_EQ_U64(e.upper, 14 - 5); /* total minus listed counts; true G is 2 */
}

/* The paper's table, written as plainly as possible (linear scans), to check the indexed one. */
typedef struct ref_tnv { uint32_t n, k, used, since; hp_tnv_entry e[64]; } ref_tnv;

static void ref_update(ref_tnv *r, uint64_t value, uint64_t weight)
{
    uint32_t i = 0;
    while (i < r->used && r->e[i].value != value) i++;
    if (i < r->used) r->e[i].count += weight;
    else {
        if (r->used < r->n) i = r->used++;
        else {
            i = 0;
            for (uint32_t j = 1; j < r->used; j++) if (r->e[j].count < r->e[i].count) i = j;
        }
        r->e[i] = (hp_tnv_entry){value, weight};
    }
    if (++r->since < r->k) return;
    r->since = 0;
    for (uint32_t a = 1; a < r->used; a++) {
        hp_tnv_entry v = r->e[a];
        uint32_t b = a;
        while (b > 0 && r->e[b - 1].count < v.count) { r->e[b] = r->e[b - 1]; b--; }
        r->e[b] = v;
    }
    if (r->used > r->n - r->n / 2) r->used = r->n - r->n / 2;
}

/* The indexed table equals the plain one after every update: sizes 1..64, several clear
 * intervals, weights 1..4, few and many distinct values. */
TEST(indexed_matches_plain_scan)
{
    static uint8_t big[8192];
    const uint32_t sizes[] = {1, 2, 3, 4, 7, 16, 50, 64};
    const uint32_t intervals[] = {1, 5, 37, 2000};
    hp_rng rng;
    hp_rng_seed(&rng, 99);
    int same = 1;
    for (int a = 0; a < 8 && same; a++) {
        for (int b = 0; b < 4 && same; b++) {
            hp_tnv *t = hp_tnv_init(big, sizeof big, sizes[a], intervals[b]);
            REQUIRE(t != NULL);
            ref_tnv r = {sizes[a], intervals[b], 0, 0, {{0, 0}}};
            uint64_t universe = 1 + hp_rng_next(&rng) % (4u * sizes[a] + 3);
            for (int i = 0; i < 20000 && same; i++) {
                uint64_t v = hp_rng_next(&rng) % universe, w = 1 + (i % 7 == 0 ? hp_rng_next(&rng) % 4 : 0);
                hp_tnv_update(t, v, w);
                ref_update(&r, v, w);
                const hp_tnv_entry *e;
                same = hp_tnv_entries(t, &e) == r.used;
                for (uint32_t j = 0; same && j < r.used; j++)
                    same = e[j].value == r.e[j].value && e[j].count == r.e[j].count;
                for (uint32_t j = 0; same && j < r.used; j++) {
                    hp_estimate est;
                    same = hp_tnv_vt.query(t, r.e[j].value, &est) == 1 && est.count == r.e[j].count;
                }
            }
        }
    }
    CHECK(same);
}

static int bounds_hold(const hp_tnv *t, const hp_exact_map *ex)
{
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i]) continue;
        hp_estimate e;
        hp_tnv_vt.query(t, ex->keys[i], &e);
        if (e.lower > ex->counts[i] || e.upper < ex->counts[i]) return 0;
    }
    return 1;
}

static void run_stream(int kind, double alpha)
{
    uint64_t *keys = hp_stream_make(kind, N_ITEMS, UNIVERSE, alpha, 51 + (uint64_t)(alpha * 10));
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    hp_tnv *t = hp_tnv_vt.init(mem, sizeof mem, 0);
    CHECK(t != NULL);
    if (t) {
        for (size_t i = 0; i < N_ITEMS; i++) hp_tnv_update(t, keys[i], 1);
        CHECK_EQ_U64(hp_tnv_vt.total(t), N_ITEMS);
        CHECK_EQ_U64(hp_tnv_clears(t), N_ITEMS / HP_TNV_DEFAULT_CLEAR);
        CHECK(bounds_hold(t, &ex));
        hp_estimate top[50];
        size_t k = hp_tnv_vt.topk(t, top, 50);
        int sorted = k > 0;
        for (size_t i = 1; i < k; i++) if (top[i].count > top[i - 1].count) sorted = 0;
        CHECK(sorted);
    }
    hp_exact_free(&ex);
    free(keys);
}

TEST(bounds_on_streams)
{
    const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    for (int a = 0; a < 4; a++) run_stream(HP_STREAM_ZIPF, alphas[a]);
    run_stream(HP_STREAM_UNIFORM, 0);
    run_stream(HP_STREAM_SORTED, 1.0);
    run_stream(HP_STREAM_BURSTS, 1.0);
    run_stream(HP_STREAM_ALTERNATE, 0);
}

TEST(serialize_roundtrip_and_corruption)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 10000, 300, 1.0, 11);
    hp_tnv *t = hp_tnv_vt.init(mem, sizeof mem, 0);
    REQUIRE(t != NULL);
    for (size_t i = 0; i < 10000; i++) hp_tnv_update(t, keys[i], 1 + (i % 3));
    CHECK(hp_vt_roundtrip_ok(&hp_tnv_vt, t, 4096));
    CHECK(hp_vt_corruption_run(&hp_tnv_vt, t, 4096, 3000, 6) < 1000000);
    CHECK(hp_tnv_vt.merge(t, t) == -1);
    CHECK(hp_tnv_vt.init(mem, 100, 0) == NULL);
    free(keys);
}

int main(void)
{
    RUN(hand_trace_lfu_and_clear);
    RUN(indexed_matches_plain_scan);
    RUN(bounds_on_streams);
    RUN(serialize_roundtrip_and_corruption);
    if (getenv("HP_BENCH")) {
        hp_bench_vt(&hp_tnv_vt);
    }
    return test_main_end();
}

/* test_valuelist.c — LLVM / GCC per-site value lists (decrement-the-minimum).
 * Checks: hand traces of each runtime's policy (derived from instrumentTargetValueImpl and
 * gcov_topn_add_value) on tiny streams with 2 slots; the two policies coincide for unit weights
 * (count <= 1  <=>  count - 1 < 1) and differ for weight 3 against a minimum of 4; a majority
 * value (> half the stream) survives in a 1-slot list (claimed in the LLVM source); bounds
 * lower <= true <= upper for every key of Zipf / adversarial streams with the 24/32-slot vtables;
 * serialize round trip; corrupt input never crashes. */
#include <stdlib.h>
#include "core/summary/valuelist.h"
#include "test.h"
#include "zipf.h"

#define N_ITEMS 1000000
#define UNIVERSE 100000

static uint8_t mem[4096];

static int list_is(const hp_valuelist *vl, uint32_t n, const uint64_t *vals, const uint64_t *counts)
{
    const hp_valuelist_entry *e;
    if (hp_valuelist_entries(vl, &e) != n) return 0;
    for (uint32_t i = 0; i < n; i++) if (e[i].value != vals[i] || e[i].count != counts[i]) return 0;
    return 1;
}

enum { A = 10, B = 11, C = 12, D = 13, E = 14, F = 15, G = 16 };

TEST(llvm_hand_trace)
{
    hp_valuelist *vl = hp_valuelist_init(mem, sizeof mem, HP_VALUELIST_LLVM, 2);
    REQUIRE(vl != NULL);
    hp_valuelist_update(vl, A, 1); hp_valuelist_update(vl, A, 1); hp_valuelist_update(vl, B, 1);
    CHECK(list_is(vl, 2, (uint64_t[]){A, B}, (uint64_t[]){2, 1}));
    hp_valuelist_update(vl, C, 1); /* min B:1 <= 1 -> overwritten in place */
    CHECK(list_is(vl, 2, (uint64_t[]){A, C}, (uint64_t[]){2, 1}));
    hp_valuelist_update(vl, F, 2); /* min C:1 <= 2 -> (F, 2) */
    CHECK(list_is(vl, 2, (uint64_t[]){A, F}, (uint64_t[]){2, 2}));
    hp_valuelist_update(vl, G, 1); /* first min is A:2 > 1 -> A:1 */
    CHECK(list_is(vl, 2, (uint64_t[]){A, F}, (uint64_t[]){1, 2}));
    hp_valuelist_update(vl, G, 1); /* min A:1 <= 1 -> (G, 1) */
    CHECK(list_is(vl, 2, (uint64_t[]){G, F}, (uint64_t[]){1, 2}));
    hp_valuelist_update(vl, D, 0); /* weight 0 ignored */
    CHECK_EQ_U64(hp_valuelist_llvm_vt.total(vl), 8);
    CHECK_EQ_U64(hp_valuelist_calls(vl), 7);
}

TEST(gcc_hand_trace)
{
    hp_valuelist *vl = hp_valuelist_init(mem, sizeof mem, HP_VALUELIST_GCC, 2);
    REQUIRE(vl != NULL);
    hp_valuelist_update(vl, A, 1); hp_valuelist_update(vl, A, 1); hp_valuelist_update(vl, B, 1);
    hp_valuelist_update(vl, C, 1); /* --B = 0 < 1 -> (C, 1) */
    CHECK(list_is(vl, 2, (uint64_t[]){A, C}, (uint64_t[]){2, 1}));
    hp_valuelist_update(vl, A, 1);
    hp_valuelist_update(vl, D, 1); /* --C = 0 < 1 -> (D, 1) */
    CHECK(list_is(vl, 2, (uint64_t[]){A, D}, (uint64_t[]){3, 1}));
    hp_valuelist_update(vl, D, 3); /* listed: D:4 */
    hp_valuelist_update(vl, E, 3); /* first min A:3 -> --A = 2 < 3 -> (E, 3) */
    CHECK(list_is(vl, 2, (uint64_t[]){E, D}, (uint64_t[]){3, 4}));
    hp_valuelist_update(vl, F, 1); /* --E = 2, not < 1 -> stays */
    CHECK(list_is(vl, 2, (uint64_t[]){E, D}, (uint64_t[]){2, 4}));
}

/* min 4, weight 3: LLVM 4 > 3 -> min becomes 1; GCC --4 = 3, not < 3 -> min becomes 3. */
TEST(policies_differ_only_for_weights)
{
    static uint8_t m2[4096];
    hp_valuelist *l = hp_valuelist_init(mem, sizeof mem, HP_VALUELIST_LLVM, 1);
    hp_valuelist *g = hp_valuelist_init(m2, sizeof m2, HP_VALUELIST_GCC, 1);
    REQUIRE(l && g);
    hp_valuelist_update(l, A, 4); hp_valuelist_update(g, A, 4);
    hp_valuelist_update(l, B, 3); hp_valuelist_update(g, B, 3);
    CHECK(list_is(l, 1, (uint64_t[]){A}, (uint64_t[]){1}));
    CHECK(list_is(g, 1, (uint64_t[]){A}, (uint64_t[]){3}));
    /* unit weights: identical lists on a Zipf stream with 4 slots */
    l = hp_valuelist_init(mem, sizeof mem, HP_VALUELIST_LLVM, 4);
    g = hp_valuelist_init(m2, sizeof m2, HP_VALUELIST_GCC, 4);
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 100000, 1000, 0.8, 9);
    for (size_t i = 0; i < 100000; i++) { hp_valuelist_update(l, keys[i], 1); hp_valuelist_update(g, keys[i], 1); }
    const hp_valuelist_entry *el, *eg;
    uint32_t nl = hp_valuelist_entries(l, &el), ng = hp_valuelist_entries(g, &eg);
    CHECK(nl == ng && memcmp(el, eg, nl * sizeof *el) == 0);
    free(keys);
}

TEST(majority_survives_one_slot)
{
    hp_rng rng;
    hp_rng_seed(&rng, 17);
    int all_ok = 1;
    for (int trial = 0; trial < 2000; trial++) {
        size_t n = 1 + hp_rng_below(&rng, 60), m = n / 2 + 1 + hp_rng_below(&rng, n - n / 2);
        uint64_t s[64];
        for (size_t i = 0; i < n; i++) s[i] = i < m ? 1000 : hp_rng_below(&rng, 5);
        for (size_t i = n; i > 1; i--) { size_t j = hp_rng_below(&rng, i); uint64_t t = s[i - 1]; s[i - 1] = s[j]; s[j] = t; }
        hp_valuelist *vl = hp_valuelist_init(mem, sizeof mem, HP_VALUELIST_LLVM, 1);
        for (size_t i = 0; i < n; i++) hp_valuelist_update(vl, s[i], 1);
        const hp_valuelist_entry *e;
        hp_valuelist_entries(vl, &e);
        if (e[0].value != 1000) all_ok = 0;
    }
    CHECK(all_ok);
}

static int bounds_hold(const hp_summary_vt *vt, const void *s, const hp_exact_map *ex)
{
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i]) continue;
        hp_estimate e;
        vt->query(s, ex->keys[i], &e);
        if (e.lower > ex->counts[i] || e.upper < ex->counts[i]) return 0;
    }
    return 1;
}

static void run_stream(const hp_summary_vt *vt, int kind, double alpha)
{
    uint64_t *keys = hp_stream_make(kind, N_ITEMS, UNIVERSE, alpha, 41 + (uint64_t)(alpha * 10));
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    void *s = vt->init(mem, sizeof mem, 0);
    CHECK(s != NULL);
    if (s) {
        for (size_t i = 0; i < N_ITEMS; i++) vt->update(s, keys[i], 1);
        CHECK_EQ_U64(vt->total(s), N_ITEMS);
        CHECK(bounds_hold(vt, s, &ex));
        hp_estimate top[40];
        size_t k = vt->topk(s, top, 40);
        int sorted = k > 0;
        for (size_t i = 1; i < k; i++) if (top[i].count > top[i - 1].count) sorted = 0;
        CHECK(sorted);
    }
    hp_exact_free(&ex);
    free(keys);
}

/* The runtimes' loop, written plainly (one pass: match, else remember the first minimum). */
static void ref_update(hp_valuelist_entry *e, uint32_t *n, uint32_t slots, int policy, uint64_t v, uint64_t w)
{
    hp_valuelist_entry *min = NULL;
    for (uint32_t i = 0; i < *n; i++) {
        if (e[i].value == v) { e[i].count += w; return; }
        if (!min || e[i].count < min->count) min = &e[i];
    }
    if (*n < slots) { e[(*n)++] = (hp_valuelist_entry){v, w}; return; }
    if (policy == HP_VALUELIST_LLVM) {
        if (min->count <= w) *min = (hp_valuelist_entry){v, w};
        else min->count -= w;
    } else if (--min->count < w) *min = (hp_valuelist_entry){v, w};
}

/* The unrolled match and two-lane first-minimum equal the plain loop after every update, for
 * every slot count 1..40 (odd, even, below and above the unroll widths), both policies. */
TEST(scan_matches_plain_loop)
{
    hp_rng rng;
    hp_rng_seed(&rng, 5);
    int same = 1;
    for (uint32_t slots = 1; slots <= 40 && same; slots++) {
        for (int policy = HP_VALUELIST_LLVM; policy <= HP_VALUELIST_GCC && same; policy++) {
            hp_valuelist *vl = hp_valuelist_init(mem, sizeof mem, policy, slots);
            REQUIRE(vl != NULL);
            hp_valuelist_entry ref[40];
            uint32_t n = 0;
            for (int i = 0; i < 5000 && same; i++) {
                uint64_t v = hp_rng_below(&rng, 2 * slots + 3), w = 1 + (i % 5 == 0 ? hp_rng_below(&rng, 4) : 0);
                hp_valuelist_update(vl, v, w);
                ref_update(ref, &n, slots, policy, v, w);
                const hp_valuelist_entry *e;
                same = hp_valuelist_entries(vl, &e) == n;
                for (uint32_t j = 0; same && j < n; j++) same = e[j].value == ref[j].value && e[j].count == ref[j].count;
            }
        }
    }
    CHECK(same);
}

TEST(bounds_on_streams)
{
    const double alphas[] = {0.8, 1.0, 1.2, 1.5};
    const hp_summary_vt *vts[] = {&hp_valuelist_llvm_vt, &hp_valuelist_gcc_vt};
    for (int v = 0; v < 2; v++) {
        for (int a = 0; a < 4; a++) run_stream(vts[v], HP_STREAM_ZIPF, alphas[a]);
        run_stream(vts[v], HP_STREAM_UNIFORM, 0);
        run_stream(vts[v], HP_STREAM_BURSTS, 1.0);
        run_stream(vts[v], HP_STREAM_ALTERNATE, 0);
    }
}

TEST(serialize_roundtrip_and_corruption)
{
    const hp_summary_vt *vts[] = {&hp_valuelist_llvm_vt, &hp_valuelist_gcc_vt};
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 10000, 200, 1.0, 11);
    for (int v = 0; v < 2; v++) {
        void *s = vts[v]->init(mem, sizeof mem, 0);
        REQUIRE(s != NULL);
        for (size_t i = 0; i < 10000; i++) vts[v]->update(s, keys[i], 1 + (i % 3));
        CHECK(hp_vt_roundtrip_ok(vts[v], s, 4096));
        CHECK(hp_vt_corruption_run(vts[v], s, 4096, 3000, 5) < 1000000);
        CHECK(vts[v]->merge(s, s) == -1);
        CHECK(vts[v]->init(mem, 64, 0) == NULL);
    }
    free(keys);
}

int main(void)
{
    RUN(llvm_hand_trace);
    RUN(gcc_hand_trace);
    RUN(policies_differ_only_for_weights);
    RUN(majority_survives_one_slot);
    RUN(scan_matches_plain_loop);
    RUN(bounds_on_streams);
    RUN(serialize_roundtrip_and_corruption);
    if (getenv("HP_BENCH")) {
        hp_bench_vt(&hp_valuelist_llvm_vt);
        hp_bench_vt(&hp_valuelist_gcc_vt);
    }
    return test_main_end();
}

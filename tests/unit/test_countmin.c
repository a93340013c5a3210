/* test_countmin.c — Count-Min with conservative update + heap, against an exact counter.
 * Checks: never underestimates any key (Zipf 0.8/1.0/1.2/1.5, uniform, sorted, bursts,
 * alternating; 10^6 items), query bounds contain the truth, every key whose true count exceeds
 * the final heap floor is in the heap (estimates are monotone and the floor never decreases),
 * topk sorted, merge of two halves keeps the guarantee for the whole stream, serialize round
 * trip, truncated / bit-flipped input never crashes. */
#include <stdlib.h>
#include "core/summary/countmin.h"
#include "test.h"
#include "zipf.h"

#define N_ITEMS 1000000
#define UNIVERSE 100000
#define BUDGET (16 * 1024)

static const double alphas[] = {0.8, 1.0, 1.2, 1.5};

static int never_under(const hp_countmin *cm, const hp_exact_map *ex)
{
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i]) continue;
        hp_estimate e;
        hp_countmin_cu_vt.query(cm, ex->keys[i], &e);
        if (e.count < ex->counts[i] || e.lower > ex->counts[i] || e.upper < ex->counts[i]) return 0;
    }
    return 1;
}

static int heap_holds_heavy(const hp_countmin *cm, const hp_exact_map *ex)
{
    uint64_t floor = hp_topheap_floor(hp_countmin_heap(cm));
    for (size_t i = 0; i <= ex->mask; i++) {
        if (!ex->used[i] || ex->counts[i] <= floor) continue;
        hp_estimate e;
        if (!hp_countmin_cu_vt.query(cm, ex->keys[i], &e)) return 0;
    }
    return 1;
}

static int topk_sorted(const hp_countmin *cm, size_t *k_out)
{
    static hp_estimate top[4096];
    size_t k = hp_countmin_cu_vt.topk(cm, top, 4096);
    *k_out = k;
    for (size_t i = 1; i < k; i++) if (top[i].count > top[i - 1].count) return 0;
    return 1;
}

static void run_stream(int kind, double alpha)
{
    uint64_t *keys = hp_stream_make(kind, N_ITEMS, UNIVERSE, alpha, 7 + (uint64_t)(alpha * 10));
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    void *mem = malloc(BUDGET);
    hp_countmin *cm = hp_countmin_init(mem, BUDGET, 99);
    CHECK(cm != NULL);
    if (cm) {
        for (size_t i = 0; i < N_ITEMS; i++) hp_countmin_update(cm, keys[i], 1);
        size_t k;
        CHECK_EQ_U64(hp_countmin_cu_vt.total(cm), N_ITEMS);
        CHECK(hp_countmin_cu_vt.bytes_used(cm) <= BUDGET);
        CHECK(never_under(cm, &ex));
        CHECK(heap_holds_heavy(cm, &ex));
        CHECK(topk_sorted(cm, &k));
        CHECK(k == hp_countmin_heap_cap(cm));
    }
    free(mem);
    hp_exact_free(&ex);
    free(keys);
}

TEST(zipf_never_underestimates)
{
    for (int a = 0; a < 4; a++) run_stream(HP_STREAM_ZIPF, alphas[a]);
}

TEST(adversarial_never_underestimates)
{
    run_stream(HP_STREAM_UNIFORM, 0);
    run_stream(HP_STREAM_SORTED, 1.0);
    run_stream(HP_STREAM_BURSTS, 1.0);
    run_stream(HP_STREAM_ALTERNATE, 0);
}

/* A lone key in an empty sketch is estimated exactly (all its counters are its own). */
TEST(conservative_update_exact_for_lone_key)
{
    static uint8_t mem[4096];
    hp_countmin *cm = hp_countmin_init(mem, sizeof mem, 1);
    REQUIRE(cm != NULL);
    hp_countmin_update(cm, UINT64_MAX, 5);
    hp_countmin_update(cm, UINT64_MAX, 3);
    CHECK_EQ_U64(hp_countmin_estimate(cm, UINT64_MAX), 8);
    hp_estimate e;
    CHECK(hp_countmin_cu_vt.query(cm, UINT64_MAX, &e) == 1);
    CHECK_EQ_U64(e.upper, 8);
    CHECK(hp_countmin_cu_vt.query(cm, 0, &e) == 0);
    CHECK(hp_countmin_cu_vt.init(mem, 64, 1) == NULL);
}

TEST(merge_halves_keeps_guarantee)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, N_ITEMS, UNIVERSE, 1.2, 3);
    hp_exact_map ex;
    hp_exact_fill(&ex, keys, N_ITEMS);
    void *ma = malloc(BUDGET), *mb = malloc(BUDGET), *mc = malloc(BUDGET);
    hp_countmin *a = hp_countmin_init(ma, BUDGET, 5), *b = hp_countmin_init(mb, BUDGET, 5);
    hp_countmin *c = hp_countmin_init(mc, BUDGET, 6);
    for (size_t i = 0; i < N_ITEMS; i++) hp_countmin_update(i < N_ITEMS / 2 ? a : b, keys[i], 1);
    CHECK(hp_countmin_cu_vt.merge(a, c) == -1); /* different seeds: hashes differ */
    CHECK(hp_countmin_cu_vt.merge(a, b) == 0);
    CHECK_EQ_U64(hp_countmin_cu_vt.total(a), N_ITEMS);
    CHECK(never_under(a, &ex));
    size_t k;
    CHECK(topk_sorted(a, &k));
    free(ma); free(mb); free(mc);
    hp_exact_free(&ex);
    free(keys);
}

/* The update skips the heap when it is full and the new estimate is not above its minimum. That
 * must change nothing: a reference heap offered every update's estimate (the estimate right after
 * a conservative update is the raised value) holds the same entries in the same places. Then a
 * merge, and more updates on the merged sketch (heap counts re-estimated). Weights 1..5. */
TEST(heap_skip_changes_nothing)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 200000, 20000, 0.9, 12);
    void *mem = malloc(4096), *mem2 = malloc(4096);
    hp_countmin *cm = hp_countmin_init(mem, 4096, 78), *cm2 = hp_countmin_init(mem2, 4096, 78);
    REQUIRE(cm != NULL && cm2 != NULL);
    uint32_t cap = hp_countmin_heap_cap(cm);
    void *hm = malloc(hp_topheap_bytes(cap));
    hp_topheap *ref = hp_topheap_init(hm, cap);
    size_t diff = 0, over = 0;
    for (size_t i = 0; i < 200000; i++) {
        if (i == 150000) {
            for (size_t j = 0; j < 50000; j++) hp_countmin_update(cm2, keys[j], 1);
            CHECK(hp_countmin_merge(cm, cm2) == 0);
            const hp_topentry *e = hp_topheap_entries(hp_countmin_heap(cm));
            hp_topheap_clear(ref);
            for (uint32_t j = 0; j < hp_countmin_heap(cm)->n; j++) hp_topheap_push(ref, e[j].key, e[j].count);
        }
        hp_countmin_update(cm, keys[i], 1 + i % 5);
        hp_topheap_offer(ref, keys[i], hp_countmin_estimate(cm, keys[i]));
        const hp_topheap *h = hp_countmin_heap(cm);
        if (i % 101 == 0 || i + 1 == 200000) {
            diff += h->n != ref->n;
            for (uint32_t j = 0; j < h->n && j < ref->n; j++)
                diff += hp_topheap_entries(h)[j].key != hp_topheap_entries(ref)[j].key ||
                        hp_topheap_entries(h)[j].count != hp_topheap_entries(ref)[j].count;
            for (uint32_t j = 0; j < h->n; j++)
                over += hp_topheap_entries(h)[j].count > hp_countmin_estimate(cm, hp_topheap_entries(h)[j].key);
        }
    }
    CHECK_EQ_U64(diff, 0);
    CHECK_EQ_U64(over, 0);
    free(hm); free(mem); free(mem2);
    free(keys);
}

/* hp_topheap under random offers from a small key universe (many hits, evictions, index
 * deletions): after every offer the index finds every entry at its slot, heap order holds,
 * no key is held twice, and an offer above the previous floor leaves its key held with a count
 * >= the offer. */
static int heap_consistent(const hp_topheap *h)
{
    const hp_topentry *e = hp_topheap_entries(h);
    for (uint32_t i = 0; i < h->n; i++) {
        if (hp_topheap_find(h, e[i].key) != (long)i) return 0;
        if (i > 0 && e[(i - 1) / 2].count > e[i].count) return 0;
    }
    return h->n <= h->cap;
}

TEST(topheap_random_operations)
{
    static uint64_t mem[512];
    hp_rng rng;
    hp_rng_seed(&rng, 8);
    int ok = 1;
    for (uint32_t cap = 1; cap <= 17; cap += 4) {
        hp_topheap *h = hp_topheap_init(mem, cap);
        REQUIRE(hp_topheap_bytes(cap) <= sizeof mem);
        for (int i = 0; i < 20000 && ok; i++) {
            uint64_t key = hp_rng_below(&rng, 40) * 0x9e3779b97f4a7c15ull, count = 1 + hp_rng_below(&rng, 1000);
            uint64_t floor = hp_topheap_floor(h);
            hp_topheap_offer(h, key, count);
            long pos = hp_topheap_find(h, key);
            if (!heap_consistent(h)) ok = 0;
            if (count > floor && (pos < 0 || hp_topheap_entries(h)[pos].count < count)) ok = 0;
        }
        hp_topentry out[17];
        size_t k = hp_topheap_sorted(h, out, 17);
        CHECK_EQ_U64(k, h->n);
        for (size_t i = 1; i < k; i++) if (out[i].count > out[i - 1].count) ok = 0;
    }
    CHECK(ok);
    CHECK_EQ_U64(hp_topheap_cap_for(hp_topheap_bytes(100)), 100);
}

TEST(serialize_roundtrip_and_corruption)
{
    uint64_t *keys = hp_stream_make(HP_STREAM_ZIPF, 100000, 5000, 1.0, 11);
    void *mem = malloc(4096);
    hp_countmin *cm = hp_countmin_init(mem, 4096, 77);
    REQUIRE(cm != NULL);
    for (size_t i = 0; i < 100000; i++) hp_countmin_update(cm, keys[i], 1 + (i % 3));
    CHECK(hp_vt_roundtrip_ok(&hp_countmin_cu_vt, cm, 4096));
    CHECK(hp_vt_corruption_run(&hp_countmin_cu_vt, cm, 4096, 2000, 1) < 1000000);
    uint8_t buf[8] = {0};
    CHECK(hp_countmin_cu_vt.deserialize(mem, 4096, buf, sizeof buf) == NULL);
    free(mem);
    free(keys);
}

int main(void)
{
    RUN(zipf_never_underestimates);
    RUN(adversarial_never_underestimates);
    RUN(conservative_update_exact_for_lone_key);
    RUN(merge_halves_keeps_guarantee);
    RUN(heap_skip_changes_nothing);
    RUN(topheap_random_operations);
    RUN(serialize_roundtrip_and_corruption);
    if (getenv("HP_BENCH")) {
        hp_bench_vt(&hp_countmin_cu_vt);
    }
    return test_main_end();
}

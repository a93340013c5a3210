/* test_tnv_stream.c — property test of the TNV table's fingerprint lookup (core/summary/tnv.c):
 * on random streams of several shapes its entries (values, counts, table order), clears, query
 * and top-k equal the paper's table written as plain linear scans (the reference below, the
 * semantics of every earlier implementation), after every update. Shapes: uniform 64-bit values
 * (every update a miss), Zipf-like (1/rank), 8 hot values + noise, a cycle one longer than the
 * table, and values whose fingerprints (the top 8 bits of value * 2^64/phi) are all equal or drawn
 * from 2 (every lookup meets false candidates). Sizes 1..200 (fingerprint words partly used),
 * clear intervals 1..2000, weights 1..4. */
#include "core/base/rng.h"
#include "core/summary/tnv.h"
#include "test.h"

#define REF_MAX 256

typedef struct ref_tnv { uint32_t n, k, used, since; uint64_t clears; hp_tnv_entry e[REF_MAX]; } ref_tnv;

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
    r->clears++;
    for (uint32_t a = 1; a < r->used; a++) {
        hp_tnv_entry v = r->e[a];
        uint32_t b = a;
        while (b > 0 && r->e[b - 1].count < v.count) { r->e[b] = r->e[b - 1]; b--; }
        r->e[b] = v;
    }
    if (r->used > r->n - r->n / 2) r->used = r->n - r->n / 2;
}

/* The multiplicative inverse of the Fibonacci constant mod 2^64 (Newton: 6 steps double the bits). */
static uint64_t golden_inverse(void)
{
    uint64_t a = 0x9e3779b97f4a7c15ull, x = a;
    for (int i = 0; i < 6; i++) x *= 2 - a * x;
    return x;
}

/* A value of stream `shape` (0..5) at step i. */
static uint64_t stream_value(int shape, uint64_t i, hp_rng *rng, uint32_t n)
{
    uint64_t r = hp_rng_next(rng);
    switch (shape) {
    case 0: return r;                                                     /* uniform */
    case 1: return 1 + (uint64_t)(1000.0 / (1.0 + (double)(r % 1000)));   /* ~1/rank */
    case 2: return r % 10 ? r % 8 : r;                                    /* 8 hot + noise */
    case 3: return i % (n + 1);                                           /* cycle */
    case 4: return ((0xabull << 56) | (r % 500)) * golden_inverse();      /* one fingerprint */
    default: return ((((r >> 40) & 1) ? 0x11ull : 0xeeull) << 56 | (r % 300)) * golden_inverse();
    }
}

static int same_as_ref(const hp_tnv *t, const ref_tnv *r)
{
    const hp_tnv_entry *e;
    if (hp_tnv_entries(t, &e) != r->used || hp_tnv_clears(t) != r->clears) return 0;
    for (uint32_t j = 0; j < r->used; j++) {
        hp_estimate est;
        if (e[j].value != r->e[j].value || e[j].count != r->e[j].count) return 0;
        if (hp_tnv_vt.query(t, r->e[j].value, &est) != 1 || est.count != r->e[j].count) return 0;
    }
    return 1;
}

TEST(fingerprint_table_matches_plain_scan_on_streams)
{
    static uint8_t mem[16384];
    const uint32_t sizes[] = {1, 7, 8, 9, 50, 64, 200};
    const uint32_t intervals[] = {1, 13, 2000};
    hp_rng rng;
    hp_rng_seed(&rng, 2026);
    int same = 1, absent_ok = 1;
    uint64_t updates = 0;
    for (int shape = 0; shape < 6; shape++)
        for (int a = 0; a < 7; a++)
            for (int b = 0; b < 3; b++) {
                hp_tnv *t = hp_tnv_init(mem, sizeof mem, sizes[a], intervals[b]);
                REQUIRE(t != NULL);
                static ref_tnv r;
                r = (ref_tnv){sizes[a], intervals[b], 0, 0, 0, {{0, 0}}};
                for (uint64_t i = 0; i < 6000 && same; i++, updates++) {
                    uint64_t v = stream_value(shape, i, &rng, sizes[a]);
                    uint64_t w = i % 5 == 0 ? 1 + hp_rng_next(&rng) % 4 : 1;
                    hp_tnv_update(t, v, w);
                    ref_update(&r, v, w);
                    same = same_as_ref(t, &r);
                }
                hp_estimate est; /* a value never streamed (another fingerprint's) is absent */
                absent_ok &= hp_tnv_vt.query(t, ((0x55ull << 56) | 7) * golden_inverse(), &est) == 0;
            }
    CHECK(same);
    CHECK(absent_ok);
    CHECK_EQ_U64(updates, 6ull * 7 * 3 * 6000);
}

TEST(fingerprint_streams_really_collide)
{
    hp_rng rng;
    hp_rng_seed(&rng, 7);
    uint64_t a = stream_value(4, 0, &rng, 50), b = stream_value(4, 1, &rng, 50);
    CHECK(a != b || stream_value(4, 2, &rng, 50) != a);
    CHECK_EQ_U64((a * 0x9e3779b97f4a7c15ull) >> 56, 0xab);
    CHECK_EQ_U64((b * 0x9e3779b97f4a7c15ull) >> 56, 0xab);
}

int main(void)
{
    RUN(fingerprint_table_matches_plain_scan_on_streams);
    RUN(fingerprint_streams_really_collide);
    return test_main_end();
}

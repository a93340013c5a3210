/* test_datastream.c — core/summary/datastream.h on planted streams.
 *
 * The generator interleaves K known reference sequences (lengths 3..40, different frequencies,
 * each occurrence at a random place) with random noise references drawn from a large universe,
 * and records where every occurrence lies. Checks: the detector reports exactly the planted
 * streams (exact sequences; no pure-noise or partial stream), with frequency estimates inside the
 * documented bound [occurrences wholly inside one processed trace, all occurrences + N/m]; the
 * same under bursty feeding (only every n-th window of the trace is seen); merging two threads'
 * states; serialize round trip; corrupt and truncated input rejected; a periodic trace (cycle of
 * windows), references with pcs, and two streams sharing a prefix.
 */
#include "core/summary/datastream.h"
#include "core/base/crc32.h"
#include "core/base/rng.h"
#include "test.h"
#include <string.h>

#define K 5
static const uint32_t plant_len[K] = {3, 5, 12, 20, 40};
static const uint32_t plant_freq[K] = {4000, 2000, 1000, 600, 300};
#define NOISE_MEAN_GAP 20u
#define NOISE_UNIVERSE (1u << 16)
#define MIN_HEAT 5000u /* planted heats are 10000..12000 */

typedef struct trace {
    uint64_t *addr;
    size_t n;
    size_t *occ_start[K]; /* start position of every occurrence of stream k */
    size_t nocc[K];
} trace;

static uint64_t plant_addr(uint32_t k, uint32_t j) { return 0x10000000ull + k * 0x100000ull + j * 8ull; }
static uint64_t noise_addr(hp_rng *r) { return 0x7f0000000000ull + 64 * hp_rng_below(r, NOISE_UNIVERSE); }

/* Occurrences in random order: a shuffled list of stream ids, each followed by a noise gap. */
static void make_trace(trace *t, uint64_t seed)
{
    hp_rng r;
    size_t total_occ = 0, cap = 0, pos = 0;
    hp_rng_seed(&r, seed);
    for (int k = 0; k < K; k++) total_occ += plant_freq[k], cap += (size_t)plant_freq[k] * plant_len[k];
    cap += total_occ * (4 * NOISE_MEAN_GAP);
    uint8_t *order = malloc(total_occ);
    t->addr = malloc(cap * sizeof *t->addr);
    for (size_t i = 0, k = 0, left = plant_freq[0]; i < total_occ; i++, left--) {
        while (!left) left = plant_freq[++k];
        order[i] = (uint8_t)k;
    }
    for (size_t i = total_occ - 1; i > 0; i--) {
        size_t j = hp_rng_below(&r, i + 1);
        uint8_t x = order[i]; order[i] = order[j]; order[j] = x;
    }
    for (int k = 0; k < K; k++) t->occ_start[k] = malloc(plant_freq[k] * sizeof(size_t)), t->nocc[k] = 0;
    for (size_t i = 0; i < total_occ; i++) {
        uint32_t k = order[i], gap = (uint32_t)hp_rng_below(&r, 2 * NOISE_MEAN_GAP) + 1;
        t->occ_start[k][t->nocc[k]++] = pos;
        for (uint32_t j = 0; j < plant_len[k]; j++) t->addr[pos++] = plant_addr(k, j);
        for (uint32_t j = 0; j < gap; j++) t->addr[pos++] = noise_addr(&r);
    }
    t->n = pos;
    free(order);
}

static void free_trace(trace *t)
{
    free(t->addr);
    for (int k = 0; k < K; k++) free(t->occ_start[k]);
}

static hp_ds_config test_config(void)
{
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.counters = 1024;
    c.min_heat = MIN_HEAT;
    return c;
}

static hp_ds_state *new_state(const hp_ds_config *c, void **mem)
{
    size_t n = hp_ds_bytes_for(c);
    *mem = n ? aligned_alloc(64, (n + 63) / 64 * 64) : NULL;
    return *mem ? hp_ds_init(*mem, n, c) : NULL;
}

/* Index of the reported stream equal to planted stream k, or -1. */
static int find_planted(const hp_ds_stream *s, size_t n, uint32_t k)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i].len != plant_len[k]) continue;
        uint32_t j = 0;
        while (j < s[i].len && s[i].addr[j] == plant_addr(k, j)) j++;
        if (j == s[i].len) return (int)i;
    }
    return -1;
}

static int is_planted(const hp_ds_stream *s)
{
    for (uint32_t k = 0; k < K; k++)
        if (find_planted(s, 1, k) == 0) return 1;
    return 0;
}

/* Occurrences of stream k lying wholly inside [lo, hi). */
static size_t occ_inside(const trace *t, uint32_t k, size_t lo, size_t hi)
{
    size_t c = 0;
    for (size_t i = 0; i < t->nocc[k]; i++)
        if (t->occ_start[k][i] >= lo && t->occ_start[k][i] + plant_len[k] <= hi) c++;
    return c;
}

static void feed(hp_ds_state *s, const trace *t, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) hp_ds_access(s, t->addr[i]);
    hp_ds_burst_end(s);
}

#define MAX_OUT 64

/* Every planted stream reported exactly, nothing else; frequency inside [inside, all + slack]. */
static void check_planted(const hp_ds_stream *out, size_t n, const size_t inside[K], const size_t all[K],
                          uint64_t slack, const char *what)
{
    CHECK_EQ_U64(n, K);
    for (uint32_t k = 0; k < K; k++) {
        int i = find_planted(out, n, k);
        CHECK(i >= 0);
        if (i < 0) continue;
        CHECK(out[i].freq >= inside[k]);
        CHECK(out[i].freq <= all[k] + slack);
        CHECK_EQ_U64(out[i].heat, out[i].freq * plant_len[k]);
        printf("  %s: stream %u len %2u: true %5zu (inside %5zu) est %5" PRIu64 " err %" PRIu64 " window %u\n", what,
               k, plant_len[k], all[k], inside[k], out[i].freq, out[i].err, out[i].window);
    }
    for (size_t i = 0; i < n; i++) CHECK(is_planted(&out[i]));
}

TEST(finds_planted_streams_exactly)
{
    trace t;
    void *mem;
    hp_ds_config c = test_config();
    make_trace(&t, 42);
    hp_ds_state *s = new_state(&c, &mem);
    REQUIRE(s);
    feed(s, &t, 0, t.n); /* continuous: the buffer is processed every trace_cap references */
    size_t inside[K], all[K];
    for (uint32_t k = 0; k < K; k++) {
        all[k] = t.nocc[k];
        inside[k] = 0;
        for (size_t lo = 0; lo < t.n; lo += c.trace_cap) inside[k] += occ_inside(&t, k, lo, lo + c.trace_cap);
    }
    hp_ds_stream *out = malloc(MAX_OUT * sizeof *out);
    size_t n = hp_ds_hot(s, out, MAX_OUT);
    check_planted(out, n, inside, all, t.n / c.counters, "continuous");
    CHECK_EQ_U64(s->refs_seen, t.n);
    for (size_t i = 1; i < n; i++) CHECK(out[i - 1].heat >= out[i].heat);
    free(out);
    free(mem);
    free_trace(&t);
}

TEST(bursty_feeding_still_finds_them)
{
    const size_t window = 1000, every = 4;
    trace t;
    void *mem;
    hp_ds_config c = test_config();
    c.min_heat = MIN_HEAT / every / 2;
    make_trace(&t, 7);
    hp_ds_state *s = new_state(&c, &mem);
    REQUIRE(s);
    size_t inside[K] = {0}, straddle_or_in[K] = {0}, all[K];
    for (size_t w = 0; w * window < t.n; w += every) {
        size_t lo = w * window, hi = lo + window < t.n ? lo + window : t.n;
        feed(s, &t, lo, hi);
        for (uint32_t k = 0; k < K; k++) {
            inside[k] += occ_inside(&t, k, lo, hi);
            straddle_or_in[k] += occ_inside(&t, k, lo >= 64 ? lo - 64 : 0, hi + 64);
        }
    }
    for (uint32_t k = 0; k < K; k++) all[k] = t.nocc[k];
    hp_ds_stream *out = malloc(MAX_OUT * sizeof *out);
    size_t n = hp_ds_hot(s, out, MAX_OUT);
    check_planted(out, n, inside, straddle_or_in, s->refs_seen / c.counters, "bursty 1/4");
    for (uint32_t k = 0; k < K; k++) { /* scaled to the whole run: within 25% */
        int i = find_planted(out, n, k);
        if (i < 0) continue;
        double scaled = (double)out[i].freq * (double)t.n / (double)s->refs_seen;
        printf("  bursty 1/4: stream %u scaled estimate %.0f vs true %zu (%.1f%%)\n", k, scaled, all[k],
               100.0 * (scaled - (double)all[k]) / (double)all[k]);
        CHECK(fabs(scaled - (double)all[k]) <= 0.25 * (double)all[k]);
    }
    free(out);
    free(mem);
    free_trace(&t);
}

TEST(merge_of_two_threads)
{
    trace t;
    void *m1, *m2, *m3;
    hp_ds_config c = test_config();
    make_trace(&t, 99);
    hp_ds_state *a = new_state(&c, &m1), *b = new_state(&c, &m2);
    REQUIRE(a && b);
    feed(a, &t, 0, t.n / 2);
    feed(b, &t, t.n / 2, t.n);
    CHECK(hp_ds_merge(a, b) == 0);
    CHECK(hp_ds_merge(a, a) == -1);
    hp_ds_config other = c;
    other.seed++;
    hp_ds_state *o = new_state(&other, &m3);
    CHECK(hp_ds_merge(a, o) == -1);
    hp_ds_stream *out = malloc(MAX_OUT * sizeof *out);
    size_t n = hp_ds_hot(a, out, MAX_OUT), all[K], none[K] = {0};
    for (uint32_t k = 0; k < K; k++) all[k] = t.nocc[k];
    check_planted(out, n, none, all, 2 * t.n / c.counters, "merged");
    for (uint32_t k = 0; k < K; k++) {
        int i = find_planted(out, n, k);
        CHECK(i >= 0 && out[i].freq + 30 >= all[k]); /* a few lost at buffer and thread boundaries */
    }
    CHECK_EQ_U64(a->refs_seen, t.n);
    free(out);
    free(m1), free(m2), free(m3);
    free_trace(&t);
}

/* A small state with a few streams, for the serialization tests. */
static hp_ds_state *small_state(void **mem, uint32_t with_pc)
{
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.counters = 16, c.trace_cap = 256, c.max_window = 8, c.with_pc = with_pc;
    hp_ds_state *s = new_state(&c, mem);
    hp_rng r;
    hp_rng_seed(&r, 5);
    for (int i = 0; s && i < 3000; i++) {
        if (i % 10 < 4) hp_ds_access_pc(s, 0x400000 + (uint64_t)(i % 10), 0x1000 + 8 * (uint64_t)(i % 10));
        else hp_ds_access_pc(s, 0x500000, noise_addr(&r));
    }
    if (s) hp_ds_burst_end(s);
    return s;
}

TEST(serialize_round_trip)
{
    void *mem, *mem2;
    hp_ds_state *s = small_state(&mem, 1);
    REQUIRE(s);
    size_t len = hp_ds_serialized_size(s), budget = hp_ds_bytes_for(&s->cfg);
    uint8_t *buf = malloc(len), *buf2 = malloc(len);
    CHECK_EQ_U64(hp_ds_serialize(s, buf, len), len);
    CHECK_EQ_U64(hp_ds_serialize(s, buf, len - 1), 0);
    hp_ds_config pc;
    CHECK(hp_ds_peek_config(buf, len, &pc) == 0 && hp_ds_bytes_for(&pc) == budget);
    CHECK(hp_ds_peek_config(buf, 20, &pc) == -1);
    mem2 = aligned_alloc(64, (budget + 63) / 64 * 64);
    hp_ds_state *d = hp_ds_deserialize(mem2, budget, buf, len);
    REQUIRE(d);
    CHECK(hp_ds_deserialize(mem2, budget - 1, buf, len) == NULL);
    d = hp_ds_deserialize(mem2, budget, buf, len);
    REQUIRE(d);
    CHECK_EQ_U64(hp_ds_serialize(d, buf2, len), len); /* same size; counters of equal count may reorder */
    CHECK(memcmp(buf, buf2, 64) == 0);                 /* the header */
    hp_ds_stream *o1 = calloc(8, sizeof *o1), *o2 = calloc(8, sizeof *o2);
    size_t n1 = hp_ds_hot(s, o1, 8), n2 = hp_ds_hot(d, o2, 8);
    CHECK_EQ_U64(n1, n2);
    CHECK(n1 >= 1);
    CHECK(memcmp(o1, o2, n1 * sizeof *o1) == 0);
    CHECK_EQ_U64(o1[0].len, 4);
    CHECK_EQ_U64(o1[0].addr[0], 0x1000);
    CHECK_EQ_U64(o1[0].pc[3], 0x400003);
    CHECK_EQ_U64(d->refs_seen, 3000);
    free(o1), free(o2), free(buf), free(buf2), free(mem), free(mem2);
}

/* Rewrites the trailing CRC so that only the content checks can reject. */
static void fix_crc(uint8_t *buf, size_t len)
{
    uint32_t crc = hp_crc32(0, buf, len - 4);
    for (int i = 0; i < 4; i++) buf[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

TEST(corrupt_input_rejected)
{
    void *mem, *mem2;
    hp_ds_state *s = small_state(&mem, 0);
    REQUIRE(s);
    size_t len = hp_ds_serialized_size(s), budget = hp_ds_bytes_for(&s->cfg);
    uint8_t *buf = malloc(len), *bad = malloc(len);
    REQUIRE(hp_ds_serialize(s, buf, len) == len);
    mem2 = aligned_alloc(64, (budget + 63) / 64 * 64);
    size_t accepted = 0;
    for (size_t cut = 0; cut < len; cut++) accepted += hp_ds_deserialize(mem2, budget, buf, cut) != NULL;
    CHECK_EQ_U64(accepted, 0);
    for (size_t i = 0; i < len; i++) { /* every single-byte flip: the CRC catches it */
        memcpy(bad, buf, len);
        bad[i] ^= (uint8_t)(1u << (i % 8));
        accepted += hp_ds_deserialize(mem2, budget, bad, len) != NULL;
    }
    CHECK_EQ_U64(accepted, 0);
    for (size_t i = 4; i + 4 < len; i++) { /* flips behind a valid CRC: content checks, no crash */
        memcpy(bad, buf, len);
        bad[i] ^= 0x41;
        fix_crc(bad, len);
        hp_ds_state *d = hp_ds_deserialize(mem2, budget, bad, len);
        if (d) { /* a flip may leave a valid state (a count, a window total): it must work */
            hp_ds_stream o[4];
            hp_ds_hot(d, o, 4);
            accepted++;
        }
    }
    CHECK(accepted < len / 4);
    memcpy(bad, buf, len);
    bad[len - 12] ^= 1; /* inside the last exemplar's references: its hash no longer matches */
    fix_crc(bad, len);
    CHECK(hp_ds_deserialize(mem2, budget, bad, len) == NULL);
    CHECK(hp_ds_deserialize(mem2, budget, NULL, len) == NULL);
    free(buf), free(bad), free(mem), free(mem2);
}

TEST(periodic_trace_and_config_checks)
{
    void *mem;
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.counters = 64, c.trace_cap = 512, c.min_heat = 100;
    hp_ds_state *s = new_state(&c, &mem);
    REQUIRE(s);
    for (int i = 0; i < 5000; i++) hp_ds_access(s, 0x2000 + 8 * (uint64_t)(i % 3)); /* ABCABC... */
    hp_ds_burst_end(s);
    hp_ds_stream out[8];
    size_t n = hp_ds_hot(s, out, 8);
    CHECK(n >= 1);
    for (size_t i = 0; i < n; i++) {
        CHECK(out[i].len >= 2 && out[i].len <= HP_DS_MAX_STREAM);
        for (uint32_t j = 0; j + 3 < out[i].len; j++) CHECK_EQ_U64(out[i].addr[j], out[i].addr[j + 3]);
    }
    CHECK(hp_ds_windows(s, 2) == 3);
    hp_ds_set_min_heat(s, UINT64_MAX);
    CHECK_EQ_U64(hp_ds_hot(s, out, 8), 0);
    free(mem);
    hp_ds_config bad = c;
    bad.min_window = 3;
    CHECK_EQ_U64(hp_ds_bytes_for(&bad), 0);
    bad = c, bad.max_window = 64;
    CHECK_EQ_U64(hp_ds_bytes_for(&bad), 0);
    bad = c, bad.trace_cap = 10;
    CHECK_EQ_U64(hp_ds_bytes_for(&bad), 0);
    bad = c, bad.min_freq = 1;
    CHECK(hp_ds_config_check(&bad) == -1);
    uint8_t small[64] __attribute__((aligned(8)));
    CHECK(hp_ds_init(small, sizeof small, &c) == NULL);
}

TEST(pc_distinguishes_streams)
{
    void *mem;
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.counters = 64, c.trace_cap = 512, c.with_pc = 1, c.min_heat = 200, c.max_window = 4;
    hp_ds_state *s = new_state(&c, &mem);
    REQUIRE(s);
    hp_rng r;
    hp_rng_seed(&r, 11);
    for (int rep = 0; rep < 300; rep++) { /* same addresses, two pc sequences */
        for (uint64_t j = 0; j < 3; j++) hp_ds_access_pc(s, (rep & 1 ? 0x100 : 0x200) + j, 0x3000 + 8 * j);
        for (int g = 0; g < 5; g++) hp_ds_access_pc(s, 0x999, noise_addr(&r));
    }
    hp_ds_burst_end(s);
    hp_ds_stream out[8];
    size_t n = hp_ds_hot(s, out, 8);
    CHECK_EQ_U64(n, 2);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_U64(out[i].len, 3);
        CHECK(out[i].pc[0] == 0x100 || out[i].pc[0] == 0x200);
        CHECK_EQ_U64(out[i].freq, 150);
    }
    free(mem);
}

/* S1 = P X and S2 = P Y share a 6-reference prefix P: windows of 8 tell them apart, so both are
 * reported exactly, and P itself (hotter than either: it occurs in both) is reported too. */
TEST(streams_sharing_a_prefix)
{
    void *mem;
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.min_heat = 2000;
    hp_ds_state *s = new_state(&c, &mem);
    REQUIRE(s);
    hp_rng r;
    hp_rng_seed(&r, 3);
    for (int i = 0; i < 2000; i++) {
        for (uint64_t j = 0; j < 6; j++) hp_ds_access(s, 0x1000 + 8 * j);
        for (uint64_t j = 0; j < 4; j++) hp_ds_access(s, (i & 1 ? 0x2000 : 0x3000) + 8 * j);
        for (uint64_t g = 1 + hp_rng_below(&r, 20); g; g--) hp_ds_access(s, noise_addr(&r));
    }
    hp_ds_burst_end(s);
    hp_ds_stream out[8];
    size_t n = hp_ds_hot(s, out, 8);
    REQUIRE(n == 3);
    CHECK_EQ_U64(out[0].len, 6); /* P: heat 6 x 2000 */
    CHECK(out[0].freq >= 1999 && out[0].freq <= 2000);
    for (size_t i = 1; i < 3; i++) {
        CHECK_EQ_U64(out[i].len, 10);
        CHECK_EQ_U64(out[i].addr[5], 0x1028);
        CHECK(out[i].addr[6] == 0x2000 || out[i].addr[6] == 0x3000);
        CHECK_EQ_U64(out[i].addr[9], out[i].addr[6] + 24);
        CHECK(out[i].freq >= 998 && out[i].freq <= 1000);
    }
    CHECK(out[1].addr[6] != out[2].addr[6]);
    free(mem);
}

int main(void)
{
    RUN(finds_planted_streams_exactly);
    RUN(bursty_feeding_still_finds_them);
    RUN(merge_of_two_threads);
    RUN(serialize_round_trip);
    RUN(corrupt_input_rejected);
    RUN(periodic_trace_and_config_checks);
    RUN(pc_distinguishes_streams);
    RUN(streams_sharing_a_prefix);
    return test_main_end();
}

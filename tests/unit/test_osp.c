/* test_osp.c — OSP's core pieces against brute force (core/ptype/subpath.h, core/control/osp.h,
 * core/summary/osplist.h, the subpath clause of core/control/spec.h):
 *   - encodings: every rotation of a random sequence -> one enc=exact key; distinct canonical
 *     sequences -> distinct keys; the least rotation equals the brute-force least rotation;
 *     enc=xor equals its documented formula;
 *   - the exhaustive counter: its (key, length) counts equal a brute-force count of every window
 *     of a random sequence, both encodings;
 *   - length laws sum to 1 and draws follow them; skips have mean f;
 *   - the gap floor resolves less than a step of a TSC that advances in steps;
 *   - the sampler + hot-list: the mean of weight / p_length over many seeds equals the exact count
 *     of the hot subpaths of a synthetic block stream, with and without thinning (a small budget);
 *   - thinning keeps each entry's expected weight;
 *   - the spec clause: canonical form, defaults, the one-sentence errors.
 */
#include <math.h>
#include <string.h>
#include "core/base/rng.h"
#include "core/base/hash.h"
#include "core/control/osp.h"
#include "core/control/spec.h"
#include "core/ptype/subpath.h"
#include "core/summary/osplist.h"
#include "test.h"

static int lex_less_rot(const uint32_t *a, size_t n, size_t r1, size_t r2)
{
    for (size_t k = 0; k < n; k++) {
        uint32_t x = a[(r1 + k) % n], y = a[(r2 + k) % n];
        if (x != y) return x < y;
    }
    return 0;
}

TEST(least_rotation_matches_brute_force)
{
    hp_rng r;
    hp_rng_seed(&r, 1);
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t a[40];
        size_t n = 1 + hp_rng_below(&r, 40);
        uint32_t alphabet = 1 + (uint32_t)hp_rng_below(&r, 4);
        for (size_t i = 0; i < n; i++) a[i] = (uint32_t)hp_rng_below(&r, alphabet);
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (lex_less_rot(a, n, i, best)) best = i;
        size_t got = hp_subpath_least_rotation(a, n);
        CHECK(!lex_less_rot(a, n, best, got) && !lex_less_rot(a, n, got, best));
    }
}

TEST(every_rotation_has_one_exact_key)
{
    hp_rng r;
    hp_rng_seed(&r, 2);
    for (int trial = 0; trial < 300; trial++) {
        uint32_t a[64], b[64];
        size_t n = 2 + hp_rng_below(&r, 63);
        for (size_t i = 0; i < n; i++) a[i] = 1 + (uint32_t)hp_rng_below(&r, 6);
        memcpy(b, a, n * sizeof *a);
        uint64_t k0 = hp_subpath_key(HP_SUBPATH_ENC_EXACT, b, n);
        for (size_t rot = 1; rot < n; rot++) {
            for (size_t i = 0; i < n; i++) b[i] = a[(i + rot) % n];
            CHECK_EQ_U64(hp_subpath_key(HP_SUBPATH_ENC_EXACT, b, n), k0);
        }
    }
}

/* Distinct canonical sequences: every sequence of length 1..8 over 3 ids, canonicalized and
 * deduplicated by brute force, has a key of its own. */
TEST(distinct_sequences_have_distinct_exact_keys)
{
    static uint64_t keys[20000];
    static uint32_t seqs[20000][8];
    static uint32_t lens[20000];
    size_t nk = 0;
    for (uint32_t n = 1; n <= 8; n++) {
        uint32_t total = 1;
        for (uint32_t i = 0; i < n; i++) total *= 3;
        for (uint32_t code = 0; code < total; code++) {
            uint32_t s[8], c = code;
            for (uint32_t i = 0; i < n; i++) s[i] = 10 + c % 3, c /= 3;
            uint64_t k = hp_subpath_key(HP_SUBPATH_ENC_EXACT, s, n);
            int dup = 0;
            for (size_t j = 0; j < nk && !dup; j++) {
                int same = lens[j] == n && memcmp(seqs[j], s, n * sizeof *s) == 0;
                if (same) dup = 1;
                else if (keys[j] == k) { CHECK(!"distinct canonical sequences share a key"); dup = 1; }
            }
            if (!dup && nk < 20000) memcpy(seqs[nk], s, n * sizeof *s), lens[nk] = n, keys[nk++] = k;
        }
    }
    CHECK(nk > 300); /* necklaces of length <= 8 over 3 letters: 3+6+11+24+51+130+315+834 */
    CHECK_EQ_U64(nk, 3 + 6 + 11 + 24 + 51 + 130 + 315 + 834);
}

TEST(xor_key_is_its_formula)
{
    uint32_t a[5] = {1, 2, 3, 9, 9};
    uint64_t want = (uint64_t)5 << 40;
    for (int i = 0; i < 5; i++) want ^= hp_mix64(a[i]);
    CHECK_EQ_U64(hp_subpath_key_xor(a, 5), want);
    uint32_t b[5] = {9, 3, 9, 1, 2};
    CHECK_EQ_U64(hp_subpath_key(HP_SUBPATH_ENC_XOR, b, 5), want);
    CHECK(hp_subpath_key_xor(a, 4) != hp_subpath_key_xor(a, 5));
}

/* Brute force: how many windows of length L of seq[0..n) have key k under enc. */
static uint64_t brute_count(const uint32_t *seq, size_t n, uint32_t L, int enc, uint64_t k)
{
    uint64_t c = 0;
    for (size_t i = 0; i + L <= n; i++) {
        uint32_t w[HP_OSP_MAXLEN];
        memcpy(w, seq + i, L * sizeof *w);
        if (hp_subpath_key(enc, w, L) == k) c++;
    }
    return c;
}

#define EXN 3000
TEST(exhaustive_counter_matches_every_window)
{
    static uint32_t seq[EXN];
    static hp_osp_exact x;
    hp_rng r;
    hp_rng_seed(&r, 3);
    for (int enc = 0; enc < 2; enc++) {
        for (size_t i = 0; i < EXN; i++) seq[i] = 1 + (uint32_t)hp_rng_below(&r, 3 + (i / 500) % 3);
        /* tally (key, length) -> count as the counter reports */
        static uint64_t tk[EXN * 6];
        static uint32_t tl[EXN * 6];
        static uint64_t tc[EXN * 6];
        size_t nt = 0;
        hp_osp_exact_init(&x, 16, (uint32_t)enc);
        for (size_t i = 0; i < EXN; i++) {
            hp_osp_window w[HP_OSP_EXACT_MAX_WINDOWS];
            int nw = hp_osp_exact_push(&x, seq[i], w);
            CHECK_EQ_U64(nw, (i + 1 >= 16 ? 4 : i + 1 >= 8 ? 3 : i + 1 >= 4 ? 2 : i + 1 >= 2 ? 1 : 0));
            for (int j = 0; j < nw; j++) {
                size_t t = 0;
                while (t < nt && !(tk[t] == w[j].key && tl[t] == w[j].length)) t++;
                if (t == nt) tk[nt] = w[j].key, tl[nt] = w[j].length, tc[nt++] = 0;
                tc[t]++;
            }
        }
        uint64_t sum = 0;
        for (size_t t = 0; t < nt; t++) {
            CHECK_EQ_U64(tc[t], brute_count(seq, EXN, tl[t], enc, tk[t]));
            sum += tc[t];
        }
        CHECK_EQ_U64(sum, (EXN - 1) + (EXN - 3) + (EXN - 7) + (EXN - 15));
        /* the stored sequence of the last window of each length gives back its key */
        for (uint32_t L = 2; L <= 16; L *= 2) {
            uint32_t s[16];
            hp_osp_exact_seq(&x, L, s);
            uint32_t w[16];
            memcpy(w, seq + EXN - L, L * sizeof *w);
            CHECK_EQ_U64(hp_subpath_key(enc, s, L), hp_subpath_key(enc, w, L));
        }
    }
}

TEST(length_laws_sum_to_one_and_draws_follow_them)
{
    hp_rng r;
    hp_rng_seed(&r, 4);
    uint32_t laws[4][2] = {{HP_OSP_LEN_POW2, 32}, {HP_OSP_LEN_UNIFORM, 64}, {HP_OSP_LEN_ANY, 1024},
                           {HP_OSP_LEN_POW2_3_5, 32}};
    for (int li = 0; li < 4; li++) {
        hp_osp_lawp l;
        hp_osp_law_init(&l, laws[li][0], laws[li][1]);
        double sum = 0, mean = 0;
        for (uint32_t L = 0; L <= laws[li][1] + 1; L++) sum += hp_osp_p_length(&l, L), mean += L * hp_osp_p_length(&l, L);
        CHECK_NEAR(sum, 1.0, 1e-12);
        CHECK_NEAR(mean, l.mean, 1e-9);
        static uint32_t hits[HP_OSP_MAXLEN + 1];
        memset(hits, 0, sizeof hits);
        const int N = 200000;
        for (int i = 0; i < N; i++) hits[hp_osp_draw_length(&l, &r)]++;
        for (uint32_t L = 0; L <= laws[li][1]; L++) {
            double p = hp_osp_p_length(&l, L);
            CHECK(fabs(hits[L] / (double)N - p) <= 5 * sqrt(p * (1 - p) / N) + 1e-9);
        }
    }
    hp_osp_lawp l;
    hp_osp_law_init(&l, HP_OSP_LEN_POW2, 32);
    CHECK_NEAR(hp_osp_p_length(&l, 2), 0.5 / (1 - 1.0 / 32), 1e-12);
    hp_osp_law_init(&l, HP_OSP_LEN_POW2_3_5, 8);
    CHECK_NEAR(hp_osp_p_length(&l, 3), 0.25 / (0.5 + 0.25 + 0.125 + 0.25 + 0.125), 1e-12);
}

TEST(skips_have_mean_f_and_f_grows_with_tau)
{
    hp_rng r;
    hp_rng_seed(&r, 5);
    double f = 64, sum = 0;
    const int N = 200000;
    for (int i = 0; i < N; i++) sum += (double)hp_osp_draw_skip(&r, f);
    CHECK(fabs(sum / N - f) < 5 * sqrt(f * (f + 1) / N));
    CHECK_NEAR(hp_osp_f(64, 1), 64, 0);
    CHECK_NEAR(hp_osp_f(64, 4), 256, 0);
    uint32_t cost[4] = {64, 32, 0, 1000};
    CHECK_NEAR(hp_osp_cost_accept(cost, 4, 64), (64 + 32 + 1 + 64) / (4.0 * 64), 1e-12);
}

/* The floor of gaps read off a TSC that advances in steps of Q ticks (a VM's: 21 here): a gap of
 * true length d, started at a uniform phase, reads as a whole number of steps. The floor must be
 * the mean true length of the gaps (an interrupted one excluded) to a fraction of a step, for any
 * true floor; the median of the readings (the statistic used before) is one of two steps and
 * missed by up to half a step, more than a sub-ns block's whole time. */
TEST(gap_floor_resolves_less_than_a_tsc_step)
{
    enum { N = 2048, Q = 21 };
    static uint64_t g[N];
    hp_rng r;
    hp_rng_seed(&r, 11);
    double worst = 0, worst_median = 0;
    for (int trial = 0; trial < 40; trial++) {
        double base = 40 + 40 * hp_rng_double(&r), truth = 0;
        int n = 0;
        for (int i = 0; i < N; i++) {
            double d = base + 3 * hp_rng_double(&r), start = Q * 1000 * hp_rng_double(&r);
            if (i % 500 == 7) d = 20000; /* an interrupt */
            else truth += d, n++;
            g[i] = (uint64_t)(floor((start + d) / Q) - floor(start / Q)) * Q;
        }
        truth /= n;
        double est = hp_osp_gap_floor(g, N); /* sorts g */
        worst = fmax(worst, fabs(est - truth));
        worst_median = fmax(worst_median, fabs((double)g[N / 2] - truth));
    }
    CHECK(worst < 1.5);
    CHECK(worst_median > 5); /* what the median gave: the reason for the mean */
    uint64_t one = 63;
    CHECK_NEAR(hp_osp_gap_floor(&one, 1), 63, 0);
    CHECK_NEAR(hp_osp_gap_floor(NULL, 0), 0, 0);
}

/* A synthetic program: a loop of 6 blocks with an inner branch (ids 1..9), a cold excursion. */
static uint32_t next_block(uint32_t b, hp_rng *r)
{
    switch (b) {
    case 1: return 2;
    case 2: return hp_rng_below(r, 4) ? 3 : 4;
    case 3: return 5;
    case 4: return 5;
    case 5: return hp_rng_below(r, 10) ? 6 : 7;
    case 6: return 1;
    case 7: return hp_rng_below(r, 2) ? 8 : 9;
    case 8: return 1;
    default: return 1;
    }
}

#define SN 100000
/* (REQUIRE evaluates its condition twice: no side effects in it.) */
/* Mean over SEEDS of weight / p_length of the 6 hottest exact subpaths; each within tol. The list
 * takes the admission rule `counting`, whose f grows as blocks x `grow` / HP_OSP_SAMPLE_BUDGET
 * (grow scales this short stream up to a long run's f); *rms gets the root mean square over seeds
 * of the hottest subpath's relative error. */
/* prefixes=on as the runtime offers it (runtime/pt/subpath_rec.c): each prefix the law draws,
 * with P(length >= its length); else the sample alone with P(its length). */
static int g_prefixes;
static void offer_sample(hp_osp_list *l, hp_osp_sampler *s, const hp_osp_lawp *law)
{
    double w = hp_osp_sample_weight(law, s->f), tail;
    if (!g_prefixes) {
        uint64_t k = hp_subpath_key(HP_SUBPATH_ENC_XOR, s->ids, s->length);
        hp_osp_list_offer(l, k, s->length, s->ids, w, hp_osp_p_length(law, s->length));
        return;
    }
    for (uint32_t len = hp_osp_prefix_next(law, s->length, 0, &tail); len; len = hp_osp_prefix_next(law, s->length, len, &tail))
        hp_osp_list_offer(l, hp_subpath_key(HP_SUBPATH_ENC_XOR, s->ids, len), len, s->ids, w, tail);
}

static void check_unbiased(size_t mem, int SEEDS, double tol, int counting, double grow, double *rms)
{
    static uint32_t stream[SN];
    static hp_osp_exact x;
    static uint8_t listmem[1 << 20];
    hp_rng r;
    hp_rng_seed(&r, 6);
    stream[0] = 1;
    for (size_t i = 1; i < SN; i++) stream[i] = next_block(stream[i - 1], &r);
    /* exact: the hot list with a budget big enough for everything */
    hp_osp_list *ex = hp_osp_list_init(listmem, sizeof listmem, 1, 0);
    hp_osp_exact_init(&x, 8, HP_SUBPATH_ENC_XOR);
    for (size_t i = 0; i < SN; i++) {
        hp_osp_window w[HP_OSP_EXACT_MAX_WINDOWS];
        int nw = hp_osp_exact_push(&x, stream[i], w);
        for (int j = 0; j < nw; j++) {
            int ok = hp_osp_list_add(ex, w[j].key, w[j].length, NULL, 1, 1, 1);
            REQUIRE(ok);
        }
    }
    REQUIRE(ex->n > 10);
    uint64_t hk[6], hc[6];
    uint32_t hl[6];
    for (int h = 0; h < 6; h++) { /* the 6 hottest */
        hc[h] = 0;
        for (uint32_t i = 0; i < ex->n; i++) {
            int taken = 0;
            for (int g = 0; g < h; g++) taken |= hk[g] == ex->e[i].key;
            if (!taken && ex->e[i].count > hc[h]) hk[h] = ex->e[i].key, hc[h] = ex->e[i].count, hl[h] = ex->e[i].length;
        }
    }
    uint64_t exact_copy[6];
    memcpy(exact_copy, hc, sizeof hc);
    double est[6] = {0};
    hp_osp_lawp law;
    hp_osp_law_init(&law, HP_OSP_LEN_POW2, 8);
    static uint8_t smem[1 << 20];
    uint64_t thinned = 0;
    double sq_err = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        static hp_osp_sampler s;
        hp_osp_list *l = hp_osp_list_init_rule(smem, mem, 100 + (uint64_t)seed, 0, counting);
        REQUIRE(l);
        uint32_t rule = counting ? HP_OSP_LIST_COUNTING : HP_OSP_LIST_CONCISE;
        double f = hp_osp_f_rule(16, l->tau, rule, 0);
        hp_osp_sampler_init(&s, 1000 + (uint64_t)seed, f, &law);
        for (size_t i = 0; i < SN; i++) {
            if (!hp_osp_sampler_block(&s, stream[i])) continue;
            offer_sample(l, &s, &law);
            hp_osp_sampler_next(&s, hp_osp_f_rule(16, l->tau, rule, (double)i * grow), &law);
        }
        thinned += l->thinnings;
        for (int h = 0; h < 6; h++) {
            const hp_osp_entry *e = hp_osp_list_find(l, hk[h]);
            double one = e ? hp_osp_list_weight(l, e) / e->p_length : 0;
            est[h] += one / SEEDS;
            if (h == 0) sq_err += pow(one / (double)exact_copy[0] - 1, 2) / SEEDS;
        }
    }
    if (mem < 4096) CHECK(thinned >= (uint64_t)SEEDS); /* every run thinned */
    for (int h = 0; h < 6; h++) {
        CHECK(fabs(est[h] / (double)exact_copy[h] - 1) <= tol);
        if (fabs(est[h] / (double)exact_copy[h] - 1) > tol)
            fprintf(stderr, "  subpath %d (length %u): exact %llu, mean estimate %.1f\n", h, hl[h],
                    (unsigned long long)exact_copy[h], est[h]);
    }
    if (rms) *rms = sqrt(sq_err);
}

TEST(estimates_are_unbiased_without_thinning) { check_unbiased(1 << 20, 40, 0.02, 0, 0, NULL); }
TEST(estimates_are_unbiased_with_thinning) { check_unbiased(3072, 600, 0.05, 0, 0, NULL); }
TEST(counting_estimates_are_unbiased_without_thinning) { check_unbiased(1 << 20, 40, 0.02, 1, 0, NULL); }
TEST(counting_estimates_are_unbiased_with_thinning) { check_unbiased(3072, 300, 0.05, 1, 0, NULL); }
/* f growing from 16 to ~200 over the stream (samples of unequal weight, as in a long run): no
 * thinning; tau 4 (the hottest counts ~50 tau); tau 16 (~13 tau: the admission term is then a
 * few percent of the estimate, and so is its error) */
TEST(counting_estimates_are_unbiased_as_f_grows)
{
    check_unbiased(1 << 20, 100, 0.03, 1, 128, NULL);
    check_unbiased(6144, 300, 0.03, 1, 128, NULL);
    check_unbiased(4096, 300, 0.05, 1, 128, NULL);
}

/* prefixes=on: unbiased (with and without thinning, as f grows), and the hottest subpath errs
 * less than with the sample's own length alone (it is counted P(L >= l) / P(L = l) times as often) */
TEST(prefix_offers_are_unbiased_and_err_less)
{
    g_prefixes = 1;
    double with, without;
    check_unbiased(1 << 20, 40, 0.02, 1, 0, &with);
    check_unbiased(3072, 300, 0.05, 1, 0, NULL);
    check_unbiased(6144, 300, 0.03, 1, 128, NULL);
    check_unbiased(3072, 300, 0.05, 0, 0, NULL);
    g_prefixes = 0;
    check_unbiased(1 << 20, 40, 0.02, 1, 0, &without);
    CHECK(with < 0.9 * without);
    if (!(with < 0.9 * without)) fprintf(stderr, "  rms error with prefixes %.4f, without %.4f\n", with, without);
}

/* hp_osp_prefix_next against the law itself, exhaustively: the lengths <= L the law draws,
 * ascending, each with P(length >= it) = the sum of P over the longer lengths */
TEST(prefix_lengths_and_tails_match_the_law)
{
    uint32_t laws[5][2] = {{HP_OSP_LEN_POW2, 32}, {HP_OSP_LEN_UNIFORM, 64}, {HP_OSP_LEN_ANY, 1024},
                           {HP_OSP_LEN_POW2_3_5, 32}, {HP_OSP_LEN_POW2, 1024}};
    for (int li = 0; li < 5; li++) {
        hp_osp_lawp l;
        hp_osp_law_init(&l, laws[li][0], laws[li][1]);
        for (uint32_t L = 2; L <= laws[li][1]; L++) {
            if (hp_osp_p_length(&l, L) <= 0) continue;
            double got;
            uint32_t next = hp_osp_prefix_next(&l, L, 0, &got), last = 0;
            for (uint32_t len = 2; len <= L; len++) {
                if (hp_osp_p_length(&l, len) <= 0) continue;
                double tail = 0;
                for (uint32_t m = len; m <= laws[li][1]; m++) tail += hp_osp_p_length(&l, m);
                REQUIRE(next != 0);
                CHECK_EQ_U64(next, len);
                CHECK_NEAR(got, tail, 1e-9);
                last = next;
                next = hp_osp_prefix_next(&l, L, next, &got);
            }
            CHECK_EQ_U64(next, 0); /* nothing after the law's last length <= L */
            CHECK_EQ_U64(last, L);
        }
    }
}

/* The point of counting samples: with a list that thinned (tau > 1) a hot subpath's estimate
 * errs less than under concise samples, each rule run as the runtime runs it (concise: f grows
 * with tau; counting: f stays minf). Unbiasedness is the tests above (tolerance here: loose). */
TEST(counting_samples_err_less_than_concise_when_thinned)
{
    double concise = 0, counting = 0;
    check_unbiased(3072, 100, 0.5, 0, 0, &concise);
    check_unbiased(3072, 100, 0.5, 1, 0, &counting);
    fprintf(stderr, "  hottest subpath, rms relative error: concise %.4f, counting %.4f\n", concise, counting);
    CHECK(counting < 0.7 * concise);
}

/* Gibbons–Matias thinning from tau to tau' costs a hot key tau' - tau samples on average, which
 * hp_osp_list_weight's (tau - 1) x mean adds back: its expected weight stays. */
/* A hot key keeps its count and weight through thinning (its estimate stays exact: Gibbons–
 * Matias' procedure took ~tau' - tau counts off it each time and added back a guess); a key of a
 * few counts is dropped as often as under their procedure and its expected weight is kept. */
TEST(counting_thinning_keeps_hot_keys_and_expected_weight)
{
    static uint8_t mem[1 << 16];
    double weight = 0, dropped = 0;
    const int N = 20000;
    for (int seed = 0; seed < N; seed++) {
        hp_osp_list *l = hp_osp_list_init_rule(mem, sizeof mem, (uint64_t)seed, 0, 1);
        int ok = hp_osp_list_add(l, 7, 2, NULL, 1000, 3000.0, 0.5); /* (REQUIRE evaluates twice) */
        ok &= hp_osp_list_add(l, 8, 2, NULL, 2, 6.0, 0.5);
        REQUIRE(ok);
        hp_osp_list_thin(l);
        hp_osp_list_thin(l);
        CHECK_NEAR(l->tau, 4, 0);
        const hp_osp_entry *e = hp_osp_list_find(l, 7), *small = hp_osp_list_find(l, 8);
        REQUIRE(e);
        if (seed < 100) CHECK(e->count == 1000 && fabs(hp_osp_list_weight(l, e) - 3000.0) < 1e-6);
        weight += small ? hp_osp_list_weight(l, small) / N : 0;
        dropped += !small;
    }
    /* count 2: dropped at the first thinning w.p. (1/2)(1/2) = 1/4, else at the second w.p.
     * (1/2)(3/4) = 3/8: 1 - (3/4)(5/8) = 17/32 in all; expected weight 6 */
    CHECK_NEAR(dropped / N, 17.0 / 32, 5 * sqrt(0.25 / N));
    CHECK_NEAR(weight, 6.0, 5 * 6 * 1.3 / sqrt(N));
}

/* A held key is counted at every offer however high tau is; a new one only at 1 in tau. */
TEST(counting_counts_every_offer_of_a_held_key)
{
    static uint8_t mem[1 << 14];
    hp_osp_list *l = hp_osp_list_init_rule(mem, sizeof mem, 3, 0, 1);
    REQUIRE(l);
    REQUIRE(hp_osp_list_add(l, 5, 2, NULL, 1, 1, 0.5));
    for (int i = 0; i < 5; i++) hp_osp_list_thin(l);
    REQUIRE(hp_osp_list_find(l, 5) || l->n == 0);
    if (!hp_osp_list_find(l, 5)) REQUIRE(hp_osp_list_add(l, 5, 2, NULL, 1, 1, 0.5));
    uint64_t before = hp_osp_list_find(l, 5)->count;
    for (int i = 0; i < 1000; i++) hp_osp_list_offer(l, 5, 2, NULL, 1, 0.5);
    CHECK_EQ_U64(hp_osp_list_find(l, 5)->count, before + 1000);
    int admitted = 0;
    for (uint64_t k = 100; k < 3300; k++) admitted += hp_osp_list_offer(l, k, 2, NULL, 1, 0.5);
    CHECK(admitted > 100 / 2 && admitted < 100 * 2); /* tau = 32: ~100 of 3200 */
}

TEST(thinning_keeps_expected_weight)
{
    static uint8_t mem[1 << 16];
    double sum = 0;
    const int N = 4000;
    for (int seed = 0; seed < N; seed++) {
        hp_osp_list *l = hp_osp_list_init(mem, sizeof mem, (uint64_t)seed, 0);
        int ok = hp_osp_list_add(l, 7, 2, NULL, 10, 30.0, 0.5);
        REQUIRE(ok);
        hp_osp_list_thin(l);
        hp_osp_list_thin(l);
        const hp_osp_entry *e = hp_osp_list_find(l, 7);
        if (e) sum += e->weight;
        CHECK_NEAR(l->tau, 4, 0);
    }
    CHECK_NEAR(sum / N, 30.0, 5 * 16.5 / sqrt(N));
}

TEST(list_stores_sequences_and_counts_collisions)
{
    static uint8_t mem[1 << 14];
    hp_osp_list *l = hp_osp_list_init(mem, sizeof mem, 1, 1);
    REQUIRE(l);
    uint32_t a[3] = {1, 2, 3}, b[3] = {1, 2, 4};
    CHECK(hp_osp_list_add(l, 99, 3, a, 1, 1, 1));
    CHECK(hp_osp_list_add(l, 99, 3, a, 1, 1, 1));
    CHECK(!hp_osp_list_add(l, 99, 3, b, 1, 1, 1));
    CHECK_EQ_U64(l->collisions, 1);
    const hp_osp_entry *e = hp_osp_list_find(l, 99);
    REQUIRE(e);
    CHECK_EQ_U64(e->count, 2);
    CHECK(memcmp(hp_osp_list_seq(l, e), a, sizeof a) == 0);
    CHECK(hp_osp_list_bytes_used(l) <= sizeof mem);
    CHECK(hp_osp_list_init(mem, 100, 1, 0) == NULL);
}

static int spec_fails(const char *text, const char *want)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    hp_osp_params o;
    char err[256] = "";
    int rc = hp_sample_spec_parse_osp(text, p, &o, err, sizeof err);
    if (rc == 0 || !strstr(err, want)) fprintf(stderr, "  '%s' -> rc %d, '%s'\n", text, rc, err);
    return rc == -1 && strstr(err, want) != NULL;
}

TEST(subpath_clause_grammar)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    hp_osp_params o;
    char err[256], text[256];
    REQUIRE(hp_sample_spec_parse_osp("subpath", p, &o, err, sizeof err) == 0);
    CHECK(o.enabled);
    hp_osp_params_format(text, sizeof text, &o);
    CHECK(strcmp(text, "mem=65536,len=pow2,maxlen=32,enc=xor,minf=64,weight=count,list=counting,prefixes=on") == 0);
    REQUIRE(hp_sample_spec_parse_osp("methods;subpaths:mem=2K,len=any,enc=exact,minf=8,weight=cost,list=concise,skiponly=1", p, &o,
                                     err, sizeof err) == 0);
    CHECK(p[HP_BURSTY_METHODS].enabled);
    hp_osp_params_format(text, sizeof text, &o);
    CHECK(strcmp(text, "mem=2048,len=any,maxlen=1024,enc=exact,minf=8,weight=cost,list=concise,prefixes=off,skiponly=1") == 0);
    REQUIRE(hp_sample_spec_parse_osp("subpath:prefixes=on,len=any", p, &o, err, sizeof err) == 0);
    CHECK(o.prefixes == 1); /* given: kept with len=any */
    REQUIRE(hp_sample_spec_parse_osp("subpath:prefixes=off", p, &o, err, sizeof err) == 0);
    CHECK(o.prefixes == 0);
    CHECK(spec_fails("subpath:prefixes=1", "subpath: prefixes must be on or off, not '1'"));
    REQUIRE(hp_sample_spec_parse_osp("subpath:mem=1M,len=uniform,maxlen=64", p, &o, err, sizeof err) == 0);
    CHECK_EQ_U64(o.mem, 1u << 20);
    CHECK_EQ_U64(o.maxlen, 64);
    /* the canonical form parses back to itself */
    hp_osp_params q;
    hp_osp_params_default(&q);
    REQUIRE(hp_osp_params_parse(text, strlen(text), &q, err, sizeof err) == 0);
    char again[256];
    hp_osp_params_format(again, sizeof again, &q);
    CHECK(strcmp(text, again) == 0);
    REQUIRE(hp_sample_spec_parse_osp("methods", p, &o, err, sizeof err) == 0);
    CHECK(!o.enabled);
    CHECK(spec_fails("subpath:mem=1", "subpath:mem=1: too small: at least 1K"));
    CHECK(spec_fails("subpath:enc=foo", "subpath: unknown enc 'foo' (xor or exact)"));
    CHECK(spec_fails("subpath:list=foo", "subpath: unknown list 'foo' (counting or concise)"));
    CHECK(spec_fails("subpath:maxlen=3,len=pow2", "not a power of two"));
    CHECK(spec_fails("subpath:maxlen=2000", "out of range"));
    CHECK(spec_fails("subpath:len=zigzag", "unknown len"));
    CHECK(spec_fails("subpath:colour=3", "unknown key"));
    CHECK(spec_fails("subpath:", "no parameters"));
    /* the HPS-only parser keeps refusing it */
    CHECK(hp_sample_spec_parse("subpath", p, err, sizeof err) == -1);
}

int main(void)
{
    RUN(least_rotation_matches_brute_force);
    RUN(every_rotation_has_one_exact_key);
    RUN(distinct_sequences_have_distinct_exact_keys);
    RUN(xor_key_is_its_formula);
    RUN(exhaustive_counter_matches_every_window);
    RUN(length_laws_sum_to_one_and_draws_follow_them);
    RUN(skips_have_mean_f_and_f_grows_with_tau);
    RUN(gap_floor_resolves_less_than_a_tsc_step);
    RUN(estimates_are_unbiased_without_thinning);
    RUN(estimates_are_unbiased_with_thinning);
    RUN(counting_estimates_are_unbiased_without_thinning);
    RUN(counting_estimates_are_unbiased_with_thinning);
    RUN(counting_estimates_are_unbiased_as_f_grows);
    RUN(prefix_offers_are_unbiased_and_err_less);
    RUN(prefix_lengths_and_tails_match_the_law);
    RUN(counting_samples_err_less_than_concise_when_thinned);
    RUN(counting_thinning_keeps_hot_keys_and_expected_weight);
    RUN(counting_counts_every_offer_of_a_held_key);
    RUN(thinning_keeps_expected_weight);
    RUN(list_stores_sequences_and_counts_collisions);
    RUN(subpath_clause_grammar);
    return test_main_end();
}

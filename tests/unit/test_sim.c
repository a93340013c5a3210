/* test_sim.c — the trace codec and the sim engines (src/sim/).
 * Checks:
 *  - codec: pack/unpack round trip on extreme values; a two-thread trace written and decoded
 *    gives the same tuples in order, kind, flags, program; every truncation of the file is
 *    refused; a flipped byte in the header, a chunk or the end record is refused;
 *  - mhsim: a synthetic stream with planted candidates (key A at 5% in every interval, key B at
 *    3% in odd intervals, noise of distinct keys): the exact intervals hold exactly the planted
 *    candidates; a generous design (1 table, counters >> distinct keys) scores E = 0 and so does
 *    the paper's 4 x 2K misses none and errs < 1% on this easy stream; the grid enumerates every combination once; grid
 *    checks refuse --tables 0, Z not divisible, T too wide for the bits; parallel == serial;
 *  - Figure 4-6 statistics: distinct tuples and candidates per interval (mean, min, max) and the
 *    candidate change rate equal a brute force (sort each interval, count runs; set difference
 *    by membership tests) on random multi-thread streams;
 *  - --variant rebalanced: the grid doubles, each variant row has the rebalanced parameters and
 *    an area no larger than its design; --acc with it, or a bad value, is refused;
 *  - hpssim: period 0 samples every event (renormalized overlap 100%, frequency 1); a sparse
 *    period samples B/(B+S) of the boundary events. */
#include <stdlib.h>
#include <string.h>
#include "sim/hpssim.h"
#include "sim/mhsim.h"
#include "sim/trace.h"
#include "core/base/rng.h"
#include "test.h"

static uint8_t *encode(hp_trace_writer *w, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    char err[200];
    int rc = hp_trace_writer_finish(w, f, err, sizeof err);
    fclose(f);
    if (rc) { free(buf); return NULL; }
    return (uint8_t *)buf;
}

/* A two-thread trace: thread 7 gets n tuples, thread 9 gets n / 3. */
static uint8_t *sample_trace(size_t n, size_t *len)
{
    hp_trace_writer *w = hp_trace_writer_new(HP_TRACE_EDGES, "prog", 1000000);
    hp_trace_tuple *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i].a = 0x400000 + (i * 7919) % 4096, t[i].b = i % 5 == 0 ? UINT64_MAX - i : i * i;
    char err[200];
    int rc = hp_trace_writer_add(w, 7, t, n / 2, err, sizeof err) | hp_trace_writer_add(w, 9, t, n / 3, err, sizeof err) |
             hp_trace_writer_add(w, 7, t + n / 2, n - n / 2, err, sizeof err);
    hp_trace_writer_flag(w, HP_TRACE_CUT);
    uint8_t *buf = rc ? NULL : encode(w, len);
    hp_trace_writer_free(w);
    free(t);
    return buf;
}

TEST(pack_round_trip)
{
    hp_trace_tuple in[5] = {{0, 0}, {UINT64_MAX, 1}, {1, UINT64_MAX}, {0x7fffffffffffffffull, 0x8000000000000000ull}, {42, 42}};
    hp_trace_tuple out[5];
    uint8_t buf[5 * 20];
    size_t n = hp_trace_pack(in, 5, buf);
    REQUIRE(n > 0 && n <= sizeof buf);
    CHECK(hp_trace_unpack(buf, n, out, 5) == 0);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(hp_trace_unpack(buf, n - 1, out, 5) == -1);
    CHECK(hp_trace_unpack(buf, n, out, 4) == -1);
}

TEST(trace_round_trip)
{
    size_t len, n = 150000; /* thread 7 spans three chunks */
    uint8_t *buf = sample_trace(n, &len);
    REQUIRE(buf != NULL);
    hp_trace tr;
    char err[300];
    int rc_ = hp_trace_decode(buf, len, &tr, err, sizeof err);
    REQUIRE(rc_ == 0);
    CHECK_EQ_U64(tr.kind, HP_TRACE_EDGES);
    CHECK_EQ_U64(tr.flags, HP_TRACE_CUT);
    CHECK_EQ_U64(tr.events, n + n / 3);
    CHECK(strcmp(tr.program, "prog") == 0);
    REQUIRE(tr.nthreads == 2);
    const hp_trace_thread *a = tr.threads[0].tid == 7 ? &tr.threads[0] : &tr.threads[1];
    const hp_trace_thread *b = tr.threads[0].tid == 7 ? &tr.threads[1] : &tr.threads[0];
    CHECK_EQ_U64(a->n, n);
    CHECK_EQ_U64(b->n, n / 3);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= a->t[i].a == 0x400000 + (i * 7919) % 4096 && a->t[i].b == (i % 5 == 0 ? UINT64_MAX - i : i * i);
    CHECK(same);
    CHECK(len < (n + n / 3) * 16 / 2); /* the coding pays: under half of the raw 16 bytes a tuple */
    hp_trace_free(&tr);
    free(buf);
}

TEST(trace_truncation_refused)
{
    size_t len;
    uint8_t *buf = sample_trace(3000, &len);
    REQUIRE(buf != NULL);
    int refused = 0, tried = 0;
    char err[300];
    for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 97) {
        hp_trace tr;
        tried++;
        if (hp_trace_decode(buf, cut, &tr, err, sizeof err) == -1) refused++;
        else hp_trace_free(&tr);
    }
    CHECK_EQ_U64(refused, tried);
    hp_trace tr;
    CHECK(hp_trace_decode(buf, len - 1, &tr, err, sizeof err) == -1 && strstr(err, "trunc") != NULL);
    free(buf);
}

TEST(trace_corruption_refused)
{
    size_t len;
    uint8_t *buf = sample_trace(3000, &len);
    REQUIRE(buf != NULL);
    size_t at[] = {3, 12, 30, 60, len / 2, len - 30, len - 10, len - 2};
    char err[300];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        hp_trace tr;
        buf[at[i]] ^= 0x10;
        int rc = hp_trace_decode(buf, len, &tr, err, sizeof err);
        CHECK(rc == -1);
        if (rc == 0) hp_trace_free(&tr);
        buf[at[i]] ^= 0x10;
    }
    hp_trace tr;
    int rc_ = hp_trace_decode(buf, len, &tr, err, sizeof err);
    REQUIRE(rc_ == 0); /* untouched again */
    hp_trace_free(&tr);
    free(buf);
}

/* ---- mhsim ---- */

#define KEY_A 0x1111111100000001ull
#define KEY_B 0x2222222200000002ull

/* Intervals of 1000: A 50 times in each, B 30 times in odd ones, the rest distinct noise. */
static uint64_t *planted(size_t intervals, size_t *n)
{
    *n = intervals * 1000;
    uint64_t *k = malloc(*n * sizeof *k), noise = 1;
    for (size_t iv = 0; iv < intervals; iv++)
        for (size_t i = 0; i < 1000; i++) {
            uint64_t key = i % 20 == 0 ? KEY_A : (iv % 2 && i % 20 == 1 && i < 600) ? KEY_B : 0x5000000000000000ull + noise++;
            k[iv * 1000 + i] = key;
        }
    return k;
}

static hp_mhsim_grid default_grid(void)
{
    hp_mhsim_grid g;
    memset(&g, 0, sizeof g);
    g.tables.v[0] = 4, g.tables.n = 1;
    g.counters.v[0] = 2048, g.counters.n = 1;
    g.conservative.v[0] = 1, g.conservative.n = 1;
    g.reset.n = 1, g.retain.v[0] = 1, g.retain.n = 1, g.shield.v[0] = 1, g.shield.n = 1;
    g.interval = 1000, g.threshold = 0.02, g.seed = 1;
    return g;
}

TEST(exact_intervals_planted)
{
    size_t n;
    uint64_t *k = planted(6, &n);
    hp_mhsim_input in;
    char err[200];
    int rc_ = hp_mhsim_prepare_keys(&k, &n, 1, 1000, 0.02, &in, err, sizeof err);
    REQUIRE(rc_ == 0);
    CHECK_EQ_U64(in.T, 20);
    REQUIRE(in.threads[0].nintervals == 6);
    for (size_t iv = 0; iv < 6; iv++) {
        const hp_mhsim_thread *th = &in.threads[0];
        size_t cands = 0, a = 0, b = 0;
        for (size_t i = th->start[iv]; i < th->start[iv + 1]; i++) {
            if (th->items[i].weight >= 20) cands++;
            if (th->items[i].key == KEY_A) a = (size_t)th->items[i].weight;
            if (th->items[i].key == KEY_B) b = (size_t)th->items[i].weight;
        }
        CHECK_EQ_U64(cands, iv % 2 ? 2 : 1);
        CHECK_EQ_U64(th->ncand[iv], cands);
        CHECK_EQ_U64(a, 50);
        CHECK_EQ_U64(b, iv % 2 ? 30 : 0);
    }
    hp_mhsim_input_free(&in);
    free(k);
}

TEST(generous_design_scores_zero)
{
    size_t n;
    uint64_t *k = planted(6, &n);
    hp_mhsim_input in;
    char err[200];
    int rc_ = hp_mhsim_prepare_keys(&k, &n, 1, 1000, 0.02, &in, err, sizeof err);
    REQUIRE(rc_ == 0);
    hp_mhsim_grid g = default_grid();
    hp_multihash_params p;
    hp_mhsim_grid_params(&g, 0, &p);
    p.n_tables = 1, p.total_counters = 1 << 22, p.counter_bits = 32; /* ~6K keys in 4M counters */
    hp_mhsim_result r;
    REQUIRE(hp_mhsim_replay(&in, &p, &r) == 0);
    CHECK_EQ_U64(r.intervals, 6);
    CHECK_EQ_U64(r.candidates, 9);
    CHECK_NEAR(r.e, 0, 1e-12);
    hp_mhsim_grid_params(&g, 0, &p); /* the paper's 4 x 2K: every candidate found, counts may run high */
    REQUIRE(hp_mhsim_replay(&in, &p, &r) == 0);
    CHECK(r.e < 0.01);
    CHECK_NEAR(r.fn, 0, 1e-12);
    CHECK(r.area == hp_multihash_area_bytes(&p));
    CHECK(r.fp_bound > 0 && r.fp_bound < 1);
    hp_mhsim_input_free(&in);
    free(k);
}

TEST(grid_enumerates_all)
{
    hp_mhsim_grid g = default_grid();
    uint32_t tables[] = {1, 2, 4, 8, 16};
    for (int i = 0; i < 5; i++) g.tables.v[i] = tables[i];
    g.tables.n = 5;
    g.conservative.v[0] = 0, g.conservative.v[1] = 1, g.conservative.n = 2;
    g.reset.v[0] = 0, g.reset.v[1] = 1, g.reset.n = 2;
    g.bits.v[0] = 8, g.bits.v[1] = 16, g.bits.n = 2;
    size_t total = hp_mhsim_grid_size(&g);
    CHECK_EQ_U64(total, 5 * 2 * 2 * 2);
    int seen[5][2][2][2] = {{{{0}}}};
    for (size_t i = 0; i < total; i++) {
        hp_multihash_params p;
        hp_mhsim_grid_params(&g, i, &p);
        int t = 0;
        while (tables[t] != p.n_tables) t++;
        seen[t][p.conservative][p.reset][p.counter_bits == 16]++;
    }
    int all_once = 1;
    for (int a = 0; a < 5; a++) for (int b = 0; b < 2; b++) for (int c = 0; c < 2; c++) for (int d = 0; d < 2; d++) all_once &= seen[a][b][c][d] == 1;
    CHECK(all_once);
    char err[300];
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == 0);
    g.tables.v[0] = 0;
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "--tables 0"));
    g.tables.v[0] = 3;
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "divisible"));
    g.tables.v[0] = 1;
    g.bits.v[0] = 4; /* T = 20 > 15 */
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "cannot hold"));
}

TEST(parallel_equals_serial)
{
    size_t n;
    uint64_t *k = planted(8, &n);
    hp_mhsim_input in;
    char err[200];
    int rc_ = hp_mhsim_prepare_keys(&k, &n, 1, 1000, 0.02, &in, err, sizeof err);
    REQUIRE(rc_ == 0);
    hp_mhsim_grid g = default_grid();
    uint32_t tables[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) g.tables.v[i] = tables[i];
    g.tables.n = 4;
    g.counters.v[0] = 64, g.counters.v[1] = 256, g.counters.n = 2;
    size_t total = hp_mhsim_grid_size(&g);
    hp_mhsim_result *a = calloc(total, sizeof *a), *b = calloc(total, sizeof *b);
    int ra = hp_mhsim_run(&in, &g, a, 1, NULL), rb = hp_mhsim_run(&in, &g, b, 3, NULL);
    CHECK(ra == 0 && rb == 0);
    int same = 1;
    for (size_t i = 0; i < total; i++) same &= a[i].e == b[i].e && a[i].fp == b[i].fp && a[i].area == b[i].area;
    CHECK(same);
    free(a), free(b);
    hp_mhsim_input_free(&in);
    free(k);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

TEST(interval_stats_brute_force)
{
    hp_rng rng;
    hp_rng_seed(&rng, 77);
    for (int round = 0; round < 5; round++) {
        size_t nth = 1 + hp_rng_below(&rng, 3), L = 50 + hp_rng_below(&rng, 200), nk[3];
        uint64_t *keys[3];
        double t = 0.02 + 0.01 * (double)hp_rng_below(&rng, 5);
        for (size_t i = 0; i < nth; i++) {
            nk[i] = L * (1 + hp_rng_below(&rng, 6)) + hp_rng_below(&rng, L); /* a partial tail */
            keys[i] = malloc(nk[i] * sizeof(uint64_t));
            uint64_t spread = 2 + hp_rng_below(&rng, 300);
            for (size_t j = 0; j < nk[i]; j++) keys[i][j] = hp_rng_below(&rng, 4) ? hp_rng_below(&rng, 5) : 100 + hp_rng_below(&rng, spread);
        }
        hp_mhsim_input in;
        char err[200];
        int rc_ = hp_mhsim_prepare_keys(keys, nk, nth, L, t, &in, err, sizeof err); /* REQUIRE evaluates twice */
        REQUIRE(rc_ == 0);
        hp_mhsim_istats s = hp_mhsim_interval_stats(&in);
        /* brute force */
        uint64_t n = 0, dsum = 0, csum = 0, dmin = UINT64_MAX, dmax = 0, cmin = UINT64_MAX, cmax = 0;
        uint64_t *tmp = malloc(L * sizeof *tmp), *cur = malloc(L * sizeof *cur), *prev = malloc(L * sizeof *prev);
        double change_sum = 0;
        size_t pairs = 0;
        for (size_t i = 0; i < nth; i++)
            for (size_t k = 0, nprev = 0; (k + 1) * L <= nk[i]; k++) {
                memcpy(tmp, keys[i] + k * L, L * sizeof *tmp);
                qsort(tmp, L, sizeof *tmp, cmp_u64);
                uint64_t d = 0, c = 0;
                for (size_t a = 0, b; a < L; a = b) {
                    for (b = a; b < L && tmp[b] == tmp[a]; b++) {}
                    d++;
                    if (b - a >= in.T) cur[c++] = tmp[a];
                }
                if (k > 0) { /* |A xor B| / |A or B| by membership tests */
                    size_t both = 0;
                    for (size_t x = 0; x < c; x++)
                        for (size_t y = 0; y < nprev; y++) both += cur[x] == prev[y];
                    size_t uni = c + nprev - both;
                    change_sum += uni ? (double)(uni - both) / (double)uni : 0;
                    pairs++;
                }
                memcpy(prev, cur, c * sizeof *cur), nprev = c;
                n++, dsum += d, csum += c;
                if (d < dmin) dmin = d;
                if (d > dmax) dmax = d;
                if (c < cmin) cmin = c;
                if (c > cmax) cmax = c;
            }
        CHECK_EQ_U64(s.intervals, n);
        CHECK_EQ_U64(s.distinct_min, dmin);
        CHECK_EQ_U64(s.distinct_max, dmax);
        CHECK_EQ_U64(s.cand_min, cmin);
        CHECK_EQ_U64(s.cand_max, cmax);
        CHECK_NEAR(s.distinct_mean, (double)dsum / (double)n, 1e-9);
        CHECK_NEAR(s.cand_mean, (double)csum / (double)n, 1e-9);
        CHECK(cmax > 0 && dmax > cmax);
        CHECK_NEAR(s.change_mean, pairs ? change_sum / (double)pairs : 0, 1e-9);
        free(tmp), free(cur), free(prev);
        hp_mhsim_input_free(&in);
        for (size_t i = 0; i < nth; i++) free(keys[i]);
    }
}

TEST(variant_axis)
{
    hp_mhsim_grid g = default_grid();
    g.tables.v[1] = 1, g.tables.n = 2;
    g.counters.v[0] = 512, g.counters.v[1] = 2048, g.counters.n = 2;
    size_t plain = hp_mhsim_grid_size(&g);
    g.variant.v[0] = 0, g.variant.v[1] = 1, g.variant.n = 2;
    char err[300];
    REQUIRE(hp_mhsim_grid_check(&g, err, sizeof err) == 0);
    CHECK_EQ_U64(hp_mhsim_grid_size(&g), 2 * plain);
    int ok = 1;
    for (size_t i = 0; i + 1 < hp_mhsim_grid_size(&g); i += 2) {
        hp_multihash_params d, r, want;
        hp_mhsim_grid_params(&g, i, &d);
        hp_mhsim_grid_params(&g, i + 1, &r);
        ok &= d.acc_entries == 0 && hp_multihash_rebalance(&d, 2, 1, &want) == 0 && memcmp(&r, &want, sizeof r) == 0;
        ok &= hp_multihash_area_bytes(&r) <= hp_multihash_area_bytes(&d) && r.total_counters > d.total_counters;
    }
    CHECK(ok);
    g.acc.v[0] = 10, g.acc.n = 1;
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "--acc"));
    g.acc.v[0] = 51, g.variant.n = 1, g.variant.v[0] = 0; /* ceil(1/0.02) = 50 */
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "at most"));
    g.acc.n = 0, g.variant.v[0] = 3;
    CHECK(hp_mhsim_grid_check(&g, err, sizeof err) == -1 && strstr(err, "variant"));
}

/* ---- hpssim ---- */

static hp_trace calls_trace(void)
{
    hp_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.kind = HP_TRACE_CALLS;
    tr.nthreads = 1;
    tr.threads = calloc(1, sizeof *tr.threads);
    hp_trace_thread *th = &tr.threads[0];
    th->n = 100000;
    th->t = malloc(th->n * sizeof *th->t);
    for (size_t i = 0; i < th->n; i++) {
        uint64_t fn = 0x1000 + 16 * (i % 7 == 0 ? 1 : i % 3);
        th->t[i].a = fn, th->t[i].b = i % 4 == 3 ? 0 : 0x9000 + (i % 5);
    }
    tr.events = th->n;
    return tr;
}

TEST(hps_period_zero_is_exact)
{
    hp_trace tr = calls_trace();
    hp_hpssim_input in;
    char err[200];
    int rc_ = hp_hpssim_prepare(&tr, &in, err, sizeof err);
    REQUIRE(rc_ == 0);
    CHECK_EQ_U64(in.nmethods, 3);
    hp_hpssim_result r;
    REQUIRE(hp_hpssim_replay(&in, 0, 1, 0, 1, &r) == 0);
    CHECK_NEAR(r.methods_renorm, 1, 1e-9);
    CHECK_NEAR(r.pairs_renorm, 1, 1e-9);
    CHECK_NEAR(r.frequency, 1, 1e-12);
    REQUIRE(hp_hpssim_replay(&in, 99, 1, 0, 1, &r) == 0);
    CHECK_NEAR(r.frequency, 0.01, 0.0005);
    CHECK(r.methods_renorm > 0.8 && r.methods_renorm <= 1);
    hp_hpssim_input_free(&in);
    tr.kind = HP_TRACE_VALUES;
    CHECK(hp_hpssim_prepare(&tr, &in, err, sizeof err) == -1 && strstr(err, "calls trace"));
    hp_trace_free(&tr);
}

int main(void)
{
    RUN(pack_round_trip);
    RUN(trace_round_trip);
    RUN(trace_truncation_refused);
    RUN(trace_corruption_refused);
    RUN(exact_intervals_planted);
    RUN(generous_design_scores_zero);
    RUN(grid_enumerates_all);
    RUN(parallel_equals_serial);
    RUN(interval_stats_brute_force);
    RUN(variant_axis);
    RUN(hps_period_zero_is_exact);
    return test_main_end();
}

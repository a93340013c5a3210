/* test_bursty.c — the bursty-sampling controller (src/core/control/bursty.h) against an independent
 * simulator of the HPS productions (hps-hybrid-profiling-support.txt, Figures 4 and 5).
 *
 * The simulator below is the paper's machine written out literally, one event at a time, with no
 * shared countdown: per type a sampling counter c1 and a burst counter c2 that count up to their
 * overflow thresholds (OF1 = c1 reached S, OF2 = c2 reached B - 1), the productions P1..P6 with
 * CC1/CC2/CC3, and Figure 5's rule "record when OF1 is set as the event matches". Jitter redraws
 * S at each CC3 from an hp_rng with the same seed and the documented formula. Checks:
 *   - event-by-event equality of the sampled sets over many parameter sets, jitter, poll values;
 *   - exact frequency B/(B+S) over whole cycles without jitter, statistical bounds with jitter;
 *   - sampled counts scaled by 1/frequency against exhaustive counts on a Zipf stream of calls;
 *   - run-time changes take effect where documented (next CC3; switches after the slow path);
 *   - a disabled type samples nothing, enabling resumes; seqlock snapshots under a racing writer.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include "core/control/bursty.h"
#include "test.h"
#include "zipf.h"

#define NT HP_BURSTY_NTYPES

/* ---- the independent simulator -------------------------------------------------------------- */

typedef struct sim_type {
    int enabled;
    uint32_t S, B, j;        /* configured */
    uint32_t S_cur, B_cur;   /* loaded by the last set_1 / set_2 (CC3) */
    uint32_t c1, c2;         /* sampling counter, burst counter (counts of inc_1 / inc_2) */
} sim_type;

typedef struct sim {
    sim_type t[NT];
    hp_rng rng;
    uint32_t pending_in;     /* boundary events until pending switches apply (0: none) */
    uint32_t pending_enabled, pending_restart;
    uint64_t now;            /* boundary events so far */
    uint64_t cc3_at[NT];     /* the event of each type's last CC3, + 1 (0: none) */
} sim;

static int sim_of1(const sim_type *t) { return t->c1 == t->S_cur; }
static int sim_of2(const sim_type *t) { return t->c2 == t->B_cur - 1; }

/* CC3: set_1(sampleFreq) (jittered), set_2(burstLength): both counters reloaded, OF1/OF2 down.
 * A lower type with the same S, B and j whose CC3 was at this very event, with S' > 0, lends its
 * S' (the controller's documented sharing: such types stay in step). */
static void sim_cc3(sim *m, sim_type *t)
{
    int i = (int)(t - m->t), twin = -1;
    for (int u = 0; u < i && twin < 0; u++) {
        const sim_type *o = &m->t[u];
        if (o->enabled && m->cc3_at[u] == m->now + 1 && o->S == t->S && o->B == t->B && o->j == t->j && o->S_cur)
            twin = u;
    }
    m->cc3_at[i] = m->now + 1;
    uint32_t w = (uint32_t)((uint64_t)t->S * t->j / 100);
    if (twin >= 0) t->S_cur = m->t[twin].S_cur;
    else t->S_cur = w ? t->S - w + (uint32_t)hp_rng_below(&m->rng, 2ull * w + 1) : t->S;
    t->B_cur = t->B;
    t->c1 = t->c2 = 0;
}

static void sim_init(sim *m, const hp_bursty_params p[NT], uint64_t seed)
{
    memset(m, 0, sizeof *m);
    hp_rng_seed(&m->rng, seed);
    for (int i = 0; i < NT; i++) {
        sim_type *t = &m->t[i];
        t->S = p[i].period, t->B = p[i].burst, t->j = p[i].jitter_pct, t->enabled = (int)p[i].enabled;
        if (t->enabled) sim_cc3(m, t);
    }
}

static uint32_t sim_on(const sim *m)
{
    uint32_t on = 0;
    for (int i = 0; i < NT; i++)
        if (m->t[i].enabled && sim_of1(&m->t[i])) on |= 1u << i;
    return on;
}

static void sim_apply_switches(sim *m)
{
    for (int i = 0; i < NT; i++) {
        sim_type *t = &m->t[i];
        int now = (m->pending_enabled >> i) & 1, restart = (m->pending_restart >> i) & 1;
        if (!now) t->enabled = 0;
        else if (!t->enabled || restart) { t->enabled = 1; sim_cc3(m, t); }
    }
    m->pending_restart = 0;
}

/* One call or back-edge through Figure 4; returns the types with OF1 set as it matched. */
static uint32_t sim_boundary(sim *m)
{
    uint32_t on = 0;
    for (int i = 0; i < NT; i++) {
        sim_type *t = &m->t[i];
        if (!t->enabled) continue;
        if (!sim_of1(t)) { t->c1++; continue; }   /* P1/P2 -> CC1: inc_1 */
        on |= 1u << i;
        if (!sim_of2(t)) t->c2++;                  /* P3/P4 -> CC2: inc_2 */
        else sim_cc3(m, t);                        /* P5/P6 -> CC3 */
    }
    if (m->pending_in && --m->pending_in == 0) sim_apply_switches(m);
    m->now++;
    return on;
}

/* Figure 5: which profile types record which events (edges: every branch edge). */
static uint32_t sim_interest(int kind)
{
    static const uint32_t table[4] = {
        [HP_BURSTY_CALL] = 1u << HP_BURSTY_METHODS | 1u << HP_BURSTY_CALL_PAIRS,
        [HP_BURSTY_BACKEDGE] = 1u << HP_BURSTY_METHODS | 1u << HP_BURSTY_EDGES,
        [HP_BURSTY_EDGE] = 1u << HP_BURSTY_EDGES,
        [HP_BURSTY_MEM] = 1u << HP_BURSTY_DATA_STREAMS,
    };
    return table[kind];
}

static int is_boundary(int kind) { return kind == HP_BURSTY_CALL || kind == HP_BURSTY_BACKEDGE; }

/* ---- scripted streams and the comparison ---------------------------------------------------- */

static uint8_t *make_kinds(size_t n, uint64_t seed)
{
    uint8_t *k = malloc(n);
    hp_rng r;
    hp_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = hp_rng_below(&r, 10); /* 30% calls, 30% back-edges, 20% edges, 20% memory */
        k[i] = u < 3 ? HP_BURSTY_CALL : u < 6 ? HP_BURSTY_BACKEDGE : u < 8 ? HP_BURSTY_EDGE : HP_BURSTY_MEM;
    }
    return k;
}

/* Runs events [from, to) through both; returns the number of events whose sets differ. Even
 * events use hp_bursty_event (filtered by interest), odd ones the raw masks. */
static size_t compare_run(hp_bursty_state *st, sim *m, const uint8_t *kinds, size_t from, size_t to)
{
    size_t bad = 0;
    for (size_t i = from; i < to; i++) {
        int k = kinds[i];
        uint32_t want = is_boundary(k) ? sim_boundary(m) : sim_on(m), got;
        if (i % 2 == 0) {
            got = hp_bursty_event(st, (enum hp_bursty_kind)k);
            want &= sim_interest(k);
        } else {
            got = is_boundary(k) ? hp_bursty_boundary(st) : hp_bursty_on(st);
        }
        if (got != want && bad++ < 3)
            fprintf(stderr, "    event %zu kind %d: got %#x want %#x\n", i, k, got, want);
    }
    return bad;
}

/* The types the controller under test may fold (bursty.h "Folded bursts"): the tests that
 * compare with the simulator run again with folds (the *_folded runs in main): every boundary
 * event and every flag between them must be the same as without. */
static uint32_t g_fold_types;

static void controller_init(hp_bursty_state *st, hp_bursty_config *cfg, uint64_t seed)
{
    hp_bursty_init(st, cfg, seed);
    hp_bursty_set_fold(st, g_fold_types);
}

static void publish_all(hp_bursty_config *cfg, const hp_bursty_params p[NT], uint32_t poll)
{
    hp_bursty_config_init(cfg);
    CHECK(hp_bursty_config_set_all(cfg, p) == 0);
    CHECK(hp_bursty_config_set_poll(cfg, poll) == 0);
}

static hp_bursty_params params(uint32_t S, uint32_t B, uint32_t j, uint32_t enabled)
{
    return (hp_bursty_params){.period = S, .burst = B, .jitter_pct = j, .enabled = enabled};
}

/* ---- Figure 4 patterns ------------------------------------------------------------------------ */

static const uint32_t bursts[] = {1, 10, 50, 100};
static const uint32_t periods[] = {99, 499, 999};

TEST(figure4_pattern_matches_simulator)
{
    const uint32_t jitters[] = {0, 20};
    const uint32_t polls[] = {1, 7, HP_BURSTY_DEFAULT_POLL};
    size_t n = 40000, combos = 0, bad = 0;
    uint8_t *kinds = make_kinds(n, 11);
    for (int bi = 0; bi < 4; bi++)
        for (int si = 0; si < 3; si++)
            for (int ji = 0; ji < 2; ji++)
                for (int pi = 0; pi < 3; pi++) {
                    /* every type enabled at once, each with its own (S, B) from the grid */
                    hp_bursty_params p[NT];
                    for (int t = 0; t < NT; t++)
                        p[t] = params(periods[(si + t) % 3], bursts[(bi + t) % 4], jitters[ji], 1);
                    hp_bursty_config cfg;
                    publish_all(&cfg, p, polls[pi]);
                    uint64_t seed = 1000 + (uint64_t)combos;
                    hp_bursty_state st;
                    sim m;
                    controller_init(&st, &cfg, seed);
                    sim_init(&m, p, seed);
                    size_t b = compare_run(&st, &m, kinds, 0, n);
                    if (b) fprintf(stderr, "  B=%u S=%u j=%u poll=%u: %zu mismatches\n", p[0].burst,
                                   p[0].period, p[0].jitter_pct, polls[pi], b);
                    bad += b;
                    combos++;
                }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(combos, 72);
    free(kinds);
}

/* Every subset of the types enabled, with equal settings on some (twins that share draws across a
 * disabled type between them) and other settings on the rest; halfway, the highest enabled type
 * restarts, so equal types run out of step (with bursts longer than off phases, a type still in
 * its burst must not lend its draw). The controller visits only the enabled types, and its
 * schedule stays the simulator's. */
static hp_bursty_params subset_params(int variant, int t, uint32_t mask)
{
    uint32_t on = (mask >> t) & 1;
    if (variant == 2) return params(4, 7, 50, on);             /* bursts longer than off phases */
    if (variant == 1 && (t & 1)) return params(49 + 10u * (uint32_t)t, 2, 10, on); /* own schedule */
    return params(99, 1, 30, on);
}

TEST(every_enabled_subset_matches_simulator)
{
    size_t n = 30000, bad = 0, combos = 0, sampled = 0;
    uint8_t *kinds = make_kinds(n, 21);
    for (uint32_t mask = 1; mask <= HP_BURSTY_ALL; mask++)
        for (int variant = 0; variant < 3; variant++) {
            hp_bursty_params p[NT];
            for (int t = 0; t < NT; t++) p[t] = subset_params(variant, t, mask);
            hp_bursty_config cfg;
            publish_all(&cfg, p, variant == 1 ? 7 : HP_BURSTY_DEFAULT_POLL);
            hp_bursty_state st;
            sim m;
            uint64_t seed = 300 + mask * 3 + (uint64_t)variant;
            controller_init(&st, &cfg, seed);
            sim_init(&m, p, seed);
            size_t b = compare_run(&st, &m, kinds, 0, n / 2);
            int top = 31 - __builtin_clz(mask);
            CHECK(hp_bursty_config_restart(&cfg, (enum hp_bursty_type)top) == 0);
            m.pending_restart |= 1u << top;
            m.pending_enabled = mask;
            m.pending_in = hp_bursty_events_until_sync(&st);
            b += compare_run(&st, &m, kinds, n / 2, n);
            if (b) fprintf(stderr, "  enabled %#x variant %d: %zu mismatches\n", mask, variant, b);
            bad += b;
            for (int t = 0; t < NT; t++) sampled += st.t[t].sampled;
            combos++;
        }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(combos, 45);
    CHECK(sampled > 0);
    free(kinds);
}

/* A type's observed frequency is within 5% of B/(B+S) (over >= 1000 cycles). */
static int got_share_ok(const hp_bursty_state *st, enum hp_bursty_type t)
{
    double f = hp_bursty_observed_frequency(st, t), want = hp_bursty_frequency(st->t[t].burst, st->t[t].period);
    return fabs(f - want) <= 0.05 * want;
}

/* Types with equal settings share their jittered off phases: on at exactly the same events, so one
 * burst serves them all (also against the simulator, which shares the draws the same way); a type
 * with another period keeps its own schedule; each type's frequency stays B/(B+S). */
TEST(equal_settings_share_bursts)
{
    for (uint32_t j = 0; j <= 50; j += 50) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) p[t] = params(999, 1, j, 1);
        p[HP_BURSTY_EDGES] = params(499, 1, j, 1);
        hp_bursty_config cfg;
        publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
        hp_bursty_state st;
        sim m;
        controller_init(&st, &cfg, 5 + j);
        sim_init(&m, p, 5 + j);
        size_t n = 2000000, apart = 0, edges_apart = 0, both = 0;
        uint8_t *kinds = make_kinds(n, 3);
        for (size_t i = 0; i < n; i++) {
            uint32_t want = is_boundary(kinds[i]) ? sim_boundary(&m) : sim_on(&m);
            uint32_t got = is_boundary(kinds[i]) ? hp_bursty_boundary(&st) : hp_bursty_on(&st);
            CHECK(got == want);
            uint32_t a = (got >> HP_BURSTY_METHODS) & 1, b = (got >> HP_BURSTY_CALL_PAIRS) & 1;
            apart += a != b, both += a & b;
            edges_apart += a != ((got >> HP_BURSTY_EDGES) & 1);
            if (got != want) break;
        }
        CHECK_EQ_U64(apart, 0);
        CHECK((got_share_ok(&st, HP_BURSTY_METHODS) && got_share_ok(&st, HP_BURSTY_CALL_PAIRS)));
        CHECK(both > 0);
        CHECK(edges_apart > 0);
        free(kinds);
    }
}

TEST(figure4_corner_parameters)
{
    /* S = 0 (always on), S = 1, B = 1, and a type alone; one type per run */
    const uint32_t Ss[] = {0, 1, 2, 3}, Bs[] = {1, 2, 3};
    size_t n = 5000, bad = 0;
    uint8_t *kinds = make_kinds(n, 12);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < NT; t++) {
                hp_bursty_params p[NT];
                for (int i = 0; i < NT; i++) p[i] = params(99, 1, 0, 0);
                p[t] = params(Ss[a], Bs[b], 0, 1);
                hp_bursty_config cfg;
                publish_all(&cfg, p, 3);
                hp_bursty_state st;
                sim m;
                controller_init(&st, &cfg, 5);
                sim_init(&m, p, 5);
                bad += compare_run(&st, &m, kinds, 0, n);
            }
    CHECK_EQ_U64(bad, 0);
    free(kinds);
}

/* The states the controller reports walk through Figure 4's: OFF for S events, BURST for B - 1,
 * BURST_DONE for the last event of the burst (P5/P6). */
TEST(phases_follow_figure4)
{
    hp_bursty_params p[NT];
    for (int i = 0; i < NT; i++) p[i] = params(99, 1, 0, 0);
    p[HP_BURSTY_CALL_PAIRS] = params(5, 3, 0, 1);
    hp_bursty_config cfg;
    publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
    hp_bursty_state st;
    controller_init(&st, &cfg, 1);
    const int want[] = {1, 1, 1, 1, 1, 2, 2, 3}; /* before each of 8 events of one cycle */
    for (int cycle = 0; cycle < 3; cycle++)
        for (int e = 0; e < 8; e++) {
            CHECK_EQ_U64(hp_bursty_phase(&st, HP_BURSTY_CALL_PAIRS), want[e]);
            uint32_t on = hp_bursty_boundary(&st);
            CHECK_EQ_U64(on, want[e] == 1 ? 0 : HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS));
        }
    CHECK_EQ_U64(hp_bursty_phase(&st, HP_BURSTY_METHODS), HP_BURSTY_PHASE_DISABLED);
}

/* ---- frequency -------------------------------------------------------------------------------- */

TEST(exact_frequency_over_whole_cycles)
{
    for (int bi = 0; bi < 4; bi++)
        for (int si = 0; si < 3; si++) {
            uint32_t B = bursts[bi], S = periods[si], K = 7;
            hp_bursty_params p[NT];
            for (int t = 0; t < NT; t++) p[t] = params(S, B, 0, 1);
            hp_bursty_config cfg;
            publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
            hp_bursty_state st;
            controller_init(&st, &cfg, 3);
            uint64_t sampled_boundary = 0, sampled_mem = 0;
            for (uint64_t i = 0; i < (uint64_t)K * (B + S); i++) {
                sampled_boundary += (hp_bursty_boundary(&st) >> HP_BURSTY_METHODS) & 1;
                sampled_mem += hp_bursty_event(&st, HP_BURSTY_MEM) != 0; /* one per interval */
            }
            CHECK_EQ_U64(sampled_boundary, (uint64_t)K * B);
            CHECK_EQ_U64(sampled_mem, (uint64_t)K * B);
            for (int t = 0; t < NT; t++) {
                uint64_t e, s;
                hp_bursty_counts(&st, (enum hp_bursty_type)t, &e, &s);
                CHECK_EQ_U64(e, (uint64_t)K * (B + S));
                CHECK_EQ_U64(s, (uint64_t)K * B);
                CHECK_NEAR(hp_bursty_observed_frequency(&st, (enum hp_bursty_type)t), hp_bursty_frequency(B, S), 1e-15);
            }
            CHECK_EQ_U64(hp_bursty_phase(&st, HP_BURSTY_EDGES), HP_BURSTY_PHASE_OFF);
        }
}

/* Off-phase lengths with jitter: within S ± w, spread over the range, mean S; the sampled fraction
 * over whole cycles within the bounds that the variance of the off lengths gives. */
TEST(jitter_fraction_within_bounds)
{
    const uint32_t jitters[] = {10, 50, 99};
    for (int ji = 0; ji < 3; ji++)
        for (int bi = 0; bi < 4; bi++) {
            uint32_t S = 999, B = bursts[bi], j = jitters[ji], w = S * j / 100, cycles = 3000;
            hp_bursty_params p[NT];
            for (int t = 0; t < NT; t++) p[t] = params(99, 1, 0, 0);
            p[HP_BURSTY_METHODS] = params(S, B, j, 1);
            hp_bursty_config cfg;
            publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
            hp_bursty_state st;
            controller_init(&st, &cfg, 77 + (uint64_t)ji * 4 + (uint64_t)bi);
            uint64_t off_total = 0, on_total = 0, run = 0, done = 0, bad_on = 0;
            uint32_t lo = UINT32_MAX, hi = 0;
            int prev_on = 0;
            while (done < cycles) {
                int on = hp_bursty_boundary(&st) != 0;
                if (on != prev_on && run) {
                    if (!on) { /* a burst just ended: one whole cycle seen */
                        bad_on += run != B;
                        on_total += run;
                        done++;
                    } else {
                        lo = run < lo ? (uint32_t)run : lo;
                        hi = run > hi ? (uint32_t)run : hi;
                        off_total += run;
                    }
                    run = 0;
                }
                prev_on = on;
                run++;
            }
            CHECK_EQ_U64(bad_on, 0);
            CHECK(lo >= S - w && hi <= S + w);
            CHECK(lo <= S - w + w / 10 + 1 && hi + w / 10 + 1 >= S + w); /* the range is used */
            /* off lengths are U{S-w..S+w}: variance w(w+1)/3; 5 sigma on their sum */
            double sd = sqrt((double)done * w * (w + 1) / 3.0), mean_sum = (double)done * S;
            CHECK(fabs((double)off_total - mean_sum) <= 5 * sd);
            double f = (double)on_total / (double)(on_total + off_total);
            double f_lo = (double)on_total / (on_total + mean_sum + 5 * sd);
            double f_hi = (double)on_total / (on_total + mean_sum - 5 * sd);
            CHECK(f >= f_lo && f <= f_hi);
            CHECK_NEAR(f, hp_bursty_frequency(B, S), 0.03 * hp_bursty_frequency(B, S));
        }
}

/* ---- estimate scaling ------------------------------------------------------------------------- */

TEST(estimate_api_matches_metrics)
{
    CHECK_NEAR(hp_bursty_frequency(1, 99), 0.01, 1e-15);
    CHECK_NEAR(hp_bursty_frequency(100, 9900), 0.01, 1e-15);
    CHECK_NEAR(hp_bursty_scale(10, 990), 100.0, 1e-12);
    CHECK_NEAR(hp_bursty_frequency(5, 0), 1.0, 0);
    hp_osp_bound a = hp_bursty_estimate(400, 0.01, 0.95), b = hp_osp_count_bound(400, 0.01, 1.0, 0.95, 0);
    CHECK_NEAR(a.estimate, 40000.0, 1e-6);
    CHECK(a.estimate == b.estimate && a.error == b.error && a.lower == b.lower && a.upper == b.upper);
    CHECK(hp_bursty_estimate(0, 0.01, 0.95).upper == INFINITY);
}

/* A Zipf stream of calls over 2000 functions: hot-method samples scaled by 1/frequency estimate
 * every function's exhaustive count within the Chernoff interval (with far more than the stated
 * confidence: the bound is conservative), and the total exactly over whole cycles. */
TEST(scaled_counts_estimate_exhaustive_counts)
{
    const struct { uint32_t S, B; } cfgs[] = {{990, 10}, {99, 1}, {9900, 100}, {4950, 50}};
    size_t n = 2000000;
    hp_zipf z;
    hp_zipf_init(&z, 2000, 1.0);
    for (int c = 0; c < 4; c++) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) p[t] = params(99, 1, 0, 0);
        p[HP_BURSTY_METHODS] = params(cfgs[c].S, cfgs[c].B, 0, 1);
        hp_bursty_config cfg;
        publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
        hp_bursty_state st;
        controller_init(&st, &cfg, 9);
        hp_rng r;
        hp_rng_seed(&r, 100 + (uint64_t)c);
        hp_exact_map exact, sampled;
        hp_exact_init(&exact, 4096);
        hp_exact_init(&sampled, 4096);
        for (size_t i = 0; i < n; i++) {
            uint64_t fn = hp_zipf_rank(&z, &r);
            hp_exact_add(&exact, fn, 1);
            if (hp_bursty_event(&st, HP_BURSTY_CALL) & HP_BURSTY_BIT(HP_BURSTY_METHODS)) hp_exact_add(&sampled, fn, 1);
        }
        double f = hp_bursty_frequency(cfgs[c].B, cfgs[c].S);
        CHECK_NEAR(sampled.total * hp_bursty_scale(cfgs[c].B, cfgs[c].S), (double)n, 1e-6);
        size_t considered = 0, inside = 0;
        hp_metric_item *ex = malloc((exact.mask + 1) * sizeof *ex), *est = malloc((exact.mask + 1) * sizeof *est);
        hp_metric_item *scratch = malloc(2 * (exact.mask + 1) * sizeof *scratch);
        size_t nex = 0, nest = 0;
        for (size_t s = 0; s <= exact.mask; s++) {
            if (!exact.used[s]) continue;
            uint64_t key = exact.keys[s], x = hp_exact_get(&sampled, key);
            ex[nex++] = (hp_metric_item){key, (double)exact.counts[s]};
            if (x) est[nest++] = (hp_metric_item){key, (double)x / f};
            if (x < 10) continue;
            hp_osp_bound bd = hp_bursty_estimate(x, f, 0.95);
            considered++;
            inside += (double)exact.counts[s] >= bd.lower && (double)exact.counts[s] <= bd.upper;
        }
        CHECK(considered >= 20);
        CHECK((double)inside >= 0.95 * (double)considered);
        /* HPS's own accuracy metric, as a sanity floor (1 = identical relative contributions) */
        double ov = hp_overlap(ex, nex, est, nest, HP_OVERLAP_PAPER_COVERAGE, HP_OVERLAP_RENORMALIZED, scratch);
        if (ov < 0.8) fprintf(stderr, "  S=%u B=%u overlap %.3f\n", cfgs[c].S, cfgs[c].B, ov);
        CHECK(ov >= 0.8);
        free(ex), free(est), free(scratch);
        hp_exact_free(&exact);
        hp_exact_free(&sampled);
    }
    hp_zipf_free(&z);
}

/* ---- run-time changes ------------------------------------------------------------------------- */

/* Index of the event after which the thread's slow path will have run (publication before event i). */
static size_t observation_event(const hp_bursty_state *st, const uint8_t *kinds, size_t i, size_t n)
{
    uint32_t left = hp_bursty_events_until_sync(st);
    for (; i < n; i++)
        if (is_boundary(kinds[i]) && --left == 0) return i;
    return n;
}

/* Period and burst changes mid-stream: the simulator applies them at the next CC3 (configured
 * values change at once; each cycle loads its own), and the controller must agree event by event. */
TEST(parameter_change_applies_at_next_reset)
{
    size_t n = 120000, bad = 0;
    uint8_t *kinds = make_kinds(n, 13);
    for (int v = 0; v < 6; v++) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) p[t] = params(periods[t % 3], bursts[t], v % 2 ? 30 : 0, 1);
        hp_bursty_config cfg;
        publish_all(&cfg, p, v < 2 ? 1 : HP_BURSTY_DEFAULT_POLL);
        hp_bursty_state st;
        sim m;
        controller_init(&st, &cfg, 40 + (uint64_t)v);
        sim_init(&m, p, 40 + (uint64_t)v);
        size_t at = 0;
        for (int change = 0; change < 6; change++) {
            size_t next = at + 7000 + (size_t)change * 3331 + (size_t)v * 17;
            bad += compare_run(&st, &m, kinds, at, next);
            at = next;
            int t = (change + v) % NT;
            hp_bursty_params q = params(periods[(change + 1) % 3] / (1 + (uint32_t)change % 2),
                                        bursts[(change + 2) % 4], v % 2 ? 10u * (uint32_t)change : 0, 1);
            CHECK(hp_bursty_config_set(&cfg, (enum hp_bursty_type)t, &q) == 0);
            m.t[t].S = q.period, m.t[t].B = q.burst, m.t[t].j = q.jitter_pct;
        }
        bad += compare_run(&st, &m, kinds, at, n);
    }
    CHECK_EQ_U64(bad, 0);
    free(kinds);
}

/* The same rule checked directly on run lengths (no simulator): the cycle in progress at the
 * change keeps S = 99, B = 10; every later cycle has S = 499, B = 50. */
TEST(parameter_change_run_lengths)
{
    for (int where = 0; where < 4; where++) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) p[t] = params(99, 1, 0, 0);
        p[HP_BURSTY_METHODS] = params(99, 10, 0, 1);
        hp_bursty_config cfg;
        publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
        hp_bursty_state st;
        controller_init(&st, &cfg, 1);
        /* change before event 3*109 + {0, 50, 99, 108}: start of a cycle, mid off phase,
         * first event of a burst, last event of a burst */
        const uint32_t offs[] = {0, 50, 99, 108};
        uint64_t change_at = 3 * 109 + offs[where], i = 0;
        /* the cycle in progress ends with its CC3; offset 0: that cycle was loaded at event
         * change_at - 1, before the change, so it too keeps the old values */
        uint64_t first_new_cycle = (change_at / 109 + 1) * 109;
        int bad = 0;
        for (; i < first_new_cycle + 5 * 549; i++) {
            if (i == change_at) {
                hp_bursty_params q = params(499, 50, 0, 1);
                CHECK(hp_bursty_config_set(&cfg, HP_BURSTY_METHODS, &q) == 0);
            }
            int on = hp_bursty_boundary(&st) != 0, want;
            if (i < first_new_cycle) want = i % 109 >= 99;
            else want = (i - first_new_cycle) % 549 >= 499;
            bad += on != want;
        }
        CHECK_EQ_U64(bad, 0);
    }
}

/* Disable, enable and restart while running: they apply right after the thread's next slow
 * path, which hp_bursty_events_until_sync predicts; with poll = 1 that is the next boundary event. */
TEST(switches_apply_after_next_slow_path)
{
    size_t n = 200000, bad = 0;
    uint8_t *kinds = make_kinds(n, 14);
    const uint32_t polls[] = {1, 64, HP_BURSTY_DEFAULT_POLL};
    for (int pi = 0; pi < 3; pi++) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) p[t] = params(periods[t % 3], bursts[(t + pi) % 4], 25, 1);
        hp_bursty_config cfg;
        publish_all(&cfg, p, polls[pi]);
        hp_bursty_state st;
        sim m;
        controller_init(&st, &cfg, 60 + (uint64_t)pi);
        sim_init(&m, p, 60 + (uint64_t)pi);
        uint32_t enabled = HP_BURSTY_ALL;
        size_t at = 0;
        for (int step = 0; step < 12; step++) {
            size_t next = at + 8000 + (size_t)step * 613;
            bad += compare_run(&st, &m, kinds, at, next);
            at = next;
            CHECK_EQ_U64(m.pending_in, 0); /* the previous switch has been observed */
            int t = (step * 3 + pi) % NT, op = step % 3; /* 0: toggle, 1: restart, 2: toggle */
            if (op == 1) {
                CHECK(hp_bursty_config_restart(&cfg, (enum hp_bursty_type)t) == 0);
                m.pending_restart |= 1u << t;
            } else {
                enabled ^= 1u << t;
                CHECK(hp_bursty_config_enable(&cfg, (enum hp_bursty_type)t, (enabled >> t) & 1) == 0);
            }
            m.pending_enabled = enabled;
            uint32_t until = hp_bursty_events_until_sync(&st);
            CHECK(until >= 1 && until <= polls[pi]);
            if (polls[pi] == 1) CHECK_EQ_U64(until, 1);
            m.pending_in = until;
        }
        bad += compare_run(&st, &m, kinds, at, n);
    }
    CHECK_EQ_U64(bad, 0);
    free(kinds);
}

/* A disabled type samples nothing (and counts no exposure); enabling it resumes a fresh cycle. */
TEST(disabled_type_samples_nothing)
{
    hp_bursty_params p[NT];
    for (int t = 0; t < NT; t++) p[t] = params(9, 1, 0, 0);
    p[HP_BURSTY_EDGES] = params(9, 1, 0, 1);
    hp_bursty_config cfg;
    publish_all(&cfg, p, 100);
    hp_bursty_state st;
    controller_init(&st, &cfg, 2);
    uint8_t *kinds = make_kinds(200000, 15);
    uint32_t seen = 0;
    for (size_t i = 0; i < 100000; i++) seen |= hp_bursty_event(&st, (enum hp_bursty_kind)kinds[i]);
    CHECK_EQ_U64(seen, HP_BURSTY_BIT(HP_BURSTY_EDGES));
    uint64_t e, s;
    hp_bursty_counts(&st, HP_BURSTY_DATA_STREAMS, &e, &s);
    CHECK(e == 0 && s == 0);
    /* disable everything: after the observation point, nothing at all */
    for (int t = 0; t < NT; t++) CHECK(hp_bursty_config_enable(&cfg, (enum hp_bursty_type)t, 0) == 0);
    size_t obs = observation_event(&st, kinds, 100000, 200000);
    CHECK(obs < 100000 + 300);
    seen = 0;
    for (size_t i = 100000; i < 200000; i++) {
        uint32_t got = hp_bursty_event(&st, (enum hp_bursty_kind)kinds[i]);
        if (i > obs) seen |= got | hp_bursty_on(&st);
    }
    CHECK_EQ_U64(seen, 0);
    CHECK_EQ_U64(hp_bursty_phase(&st, HP_BURSTY_EDGES), HP_BURSTY_PHASE_DISABLED);
    /* enable data streams: the observation event ends, then S = 9 off events, then 1 on */
    CHECK(hp_bursty_config_enable(&cfg, HP_BURSTY_DATA_STREAMS, 1) == 0);
    uint32_t until = hp_bursty_events_until_sync(&st);
    CHECK(until <= 100);
    for (uint32_t i = 0; i < until; i++) CHECK_EQ_U64(hp_bursty_boundary(&st), 0);
    for (int cycle = 0; cycle < 5; cycle++)
        for (int i = 0; i < 10; i++) {
            uint32_t on = hp_bursty_boundary(&st);
            CHECK_EQ_U64(on, i == 9 ? HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS) : 0);
        }
    free(kinds);
}

/* ---- configuration ---------------------------------------------------------------------------- */

TEST(config_validation_and_generations)
{
    hp_bursty_config cfg;
    hp_bursty_config_init(&cfg);
    hp_bursty_params q;
    CHECK(hp_bursty_config_get(&cfg, HP_BURSTY_DATA_STREAMS, &q) == 0);
    CHECK(q.period == 9900 && q.burst == 100 && q.jitter_pct == HP_BURSTY_DEFAULT_JITTER && q.enabled == 0);
    CHECK(hp_bursty_config_get(&cfg, HP_BURSTY_METHODS, &q) == 0);
    CHECK(q.period == 99 && q.burst == 1);
    hp_bursty_params badp[] = {params(99, 0, 0, 1), params(99, 1, 100, 1), params(HP_BURSTY_MAX_COUNT + 1, 1, 0, 1),
                               params(99, HP_BURSTY_MAX_COUNT + 1, 0, 1), params(99, 1, 0, 2)};
    for (int i = 0; i < 5; i++) CHECK(hp_bursty_config_set(&cfg, HP_BURSTY_EDGES, &badp[i]) == -1);
    CHECK(hp_bursty_config_set(&cfg, (enum hp_bursty_type)NT, &q) == -1);
    CHECK(hp_bursty_config_set_poll(&cfg, 0) == -1);
    CHECK_EQ_U64(atomic_load(&cfg.generation), 0); /* rejected calls publish nothing */
    hp_bursty_params good = params(0, 7, 99, 1);
    CHECK(hp_bursty_config_set(&cfg, HP_BURSTY_EDGES, &good) == 0);
    CHECK(hp_bursty_config_enable(&cfg, HP_BURSTY_METHODS, 1) == 0);
    CHECK_EQ_U64(atomic_load(&cfg.generation), 4);
    CHECK(hp_bursty_config_get(&cfg, HP_BURSTY_EDGES, &q) == 0);
    CHECK(q.period == 0 && q.burst == 7 && q.jitter_pct == 99 && q.enabled == 1);
    CHECK(hp_bursty_config_get(&cfg, HP_BURSTY_METHODS, &q) == 0 && q.enabled == 1);
}

/* Seqlock: a writer flips one type between (S=99, B=1) and (S=9900, B=100) as fast as it can while
 * a thread runs events; every cycle the thread completes has one of the two pairs, never a mix. */
typedef struct race { hp_bursty_config *cfg; atomic_int stop; atomic_uint_fast64_t writes; } race;

static void *race_writer(void *arg)
{
    race *r = arg;
    hp_bursty_params a = params(99, 1, 0, 1), b = params(9900, 100, 0, 1);
    while (!atomic_load(&r->stop)) {
        uint64_t w = atomic_load(&r->writes);
        hp_bursty_config_set(r->cfg, HP_BURSTY_DATA_STREAMS, w % 2 ? &a : &b);
        atomic_store(&r->writes, w + 1);
        sched_yield(); /* a seqlock reader never spins: a writer that never pauses starves it */
    }
    return NULL;
}

TEST(config_snapshots_are_consistent_under_a_racing_writer)
{
    hp_bursty_params p[NT];
    for (int t = 0; t < NT; t++) p[t] = params(99, 1, 0, 0);
    p[HP_BURSTY_DATA_STREAMS] = params(99, 1, 0, 1);
    hp_bursty_config cfg;
    publish_all(&cfg, p, 1);
    race r = {.cfg = &cfg};
    atomic_init(&r.stop, 0);
    atomic_init(&r.writes, 0);
    hp_bursty_state st; /* before the writer starts: init adopts the config only if no write is in progress */
    controller_init(&st, &cfg, 4);
    pthread_t th;
    int created = pthread_create(&th, NULL, race_writer, &r); /* REQUIRE evaluates twice */
    REQUIRE(created == 0);
    /* On a loaded machine (ASan, 2 cores busy) the writer may not run before the events end: wait
     * for its first writes so that the race is exercised (the check of writes below then holds). */
    while (atomic_load(&r.writes) < 2) sched_yield();
    uint64_t run = 0, off = 0, cycles = 0, mixed = 0, small = 0, big = 0;
    int prev = 0;
    for (size_t i = 0; i < 3000000; i++) {
        int on = hp_bursty_boundary(&st) != 0;
        if (on != prev && run) {
            if (on) off = run;
            else if (cycles++ > 0) { /* the first cycle began before any write */
                if (off == 99 && run == 1) small++;
                else if (off == 9900 && run == 100) big++;
                else mixed++;
            }
            run = 0;
        }
        prev = on;
        run++;
    }
    atomic_store(&r.stop, 1);
    pthread_join(th, NULL);
    CHECK_EQ_U64(mixed, 0);
    CHECK_EQ_U64(small + big + 1, cycles);
    CHECK(small > 0 || big > 0);
    CHECK(atomic_load(&r.writes) > 0);
}

#define FOLDS_OF_METHODS_AND_PAIRS (HP_BURSTY_BIT(HP_BURSTY_METHODS) | HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS))
#define FOLDED(name, types)                                                                        \
    TEST(name##_folded)                                                                            \
    {                                                                                              \
        g_fold_types = (types);                                                                    \
        name();                                                                                    \
        g_fold_types = 0;                                                                          \
    }
FOLDED(figure4_pattern_matches_simulator, HP_BURSTY_ALL)
FOLDED(equal_settings_share_bursts, HP_BURSTY_ALL)
FOLDED(figure4_corner_parameters, HP_BURSTY_ALL)
FOLDED(phases_follow_figure4, HP_BURSTY_ALL)
FOLDED(exact_frequency_over_whole_cycles, HP_BURSTY_ALL)
FOLDED(parameter_change_applies_at_next_reset, HP_BURSTY_ALL)
FOLDED(switches_apply_after_next_slow_path, FOLDS_OF_METHODS_AND_PAIRS)
FOLDED(every_enabled_subset_matches_simulator, FOLDS_OF_METHODS_AND_PAIRS)
FOLDED(disabled_type_samples_nothing, HP_BURSTY_ALL)

/* Folding methods and call pairs at B = 1: one slow path per burst instead of two (the
 * countdown runs out once per cycle), the same flags at every event as the unfolded controller,
 * and a type outside the fold (edges, its own period) keeps its two. */
TEST(folded_bursts_take_one_slow_path)
{
    hp_bursty_params p[NT];
    for (int t = 0; t < NT; t++) p[t] = params(999, 1, 50, t <= HP_BURSTY_CALL_PAIRS);
    hp_bursty_config cfg;
    publish_all(&cfg, p, HP_BURSTY_DEFAULT_POLL);
    hp_bursty_state plain, folded;
    hp_bursty_init(&plain, &cfg, 8);
    hp_bursty_init(&folded, &cfg, 8);
    hp_bursty_set_fold(&folded, FOLDS_OF_METHODS_AND_PAIRS);
    size_t n = 1000000, differ = 0, slow_plain = 0, slow_folded = 0, cycles = 0;
    for (size_t i = 0; i < n; i++) {
        slow_plain += plain.countdown == 1, slow_folded += folded.countdown == 1;
        uint32_t a = hp_bursty_boundary(&plain), b = hp_bursty_boundary(&folded);
        differ += a != b;
        cycles += a != 0;
    }
    CHECK_EQ_U64(differ, 0);
    CHECK(cycles > 800 && cycles < 1200);
    CHECK(slow_plain >= 2 * cycles && slow_plain <= 2 * cycles + 1); /* (a cycle cut by the end) */
    CHECK(slow_folded >= cycles && slow_folded <= cycles + 1);
    /* edges with their own period: not folded, so the same as plain */
    p[HP_BURSTY_EDGES] = params(499, 1, 0, 1);
    CHECK(hp_bursty_config_set_all(&cfg, p) == 0);
    hp_bursty_init(&plain, &cfg, 9);
    hp_bursty_init(&folded, &cfg, 9);
    hp_bursty_set_fold(&folded, FOLDS_OF_METHODS_AND_PAIRS);
    differ = 0;
    size_t edge_slow = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t edges_ending = folded.countdown == 1 && !folded.folded && !folded.on_mask;
        edge_slow += edges_ending;
        differ += hp_bursty_boundary(&plain) != hp_bursty_boundary(&folded);
    }
    CHECK_EQ_U64(differ, 0);
    CHECK(edge_slow >= n / 500 - 10); /* the edges' off-phase ends still take their own slow path */
}

/* Types in lockstep take a shortcut through the slow path (bursty.c lockstep_slow). Against the
 * same controller kept on the general path (lockstep cleared before every event), with and
 * without folds, equal and unequal settings and a parameter change halfway: the whole state is
 * the same after every event (every type's phase, cycle and counts, the flags, the arming). */
static int same_state(const hp_bursty_state *a, const hp_bursty_state *b)
{
    if (a->countdown != b->countdown || a->armed != b->armed || a->on_mask != b->on_mask || a->folded != b->folded)
        return 0;
    for (int t = 0; t < NT; t++) {
        const hp_bursty_type_state *x = &a->t[t], *y = &b->t[t];
        if (x->left != y->left || x->cycle_period != y->cycle_period || x->cycle_burst != y->cycle_burst ||
            x->events != y->events || x->sampled != y->sampled)
            return 0;
    }
    return 1;
}

TEST(lockstep_shortcut_keeps_the_general_state)
{
    size_t n = 200000, bad = 0, shortcuts = 0;
    for (int v = 0; v < 8; v++) {
        hp_bursty_params p[NT];
        uint32_t S = v & 2 ? 0 : 99 + 400u * (uint32_t)(v & 1), B = v & 4 ? 3 : 1;
        for (int t = 0; t < NT; t++) p[t] = params(S, B, 40, t != HP_BURSTY_EDGES || v >= 4);
        hp_bursty_config cfg;
        publish_all(&cfg, p, v & 1 ? 700 : HP_BURSTY_DEFAULT_POLL);
        hp_bursty_state fast, general;
        hp_bursty_init(&fast, &cfg, 70 + (uint64_t)v);
        hp_bursty_init(&general, &cfg, 70 + (uint64_t)v);
        uint32_t fold = v & 1 ? HP_BURSTY_ALL : 0;
        hp_bursty_set_fold(&fast, fold);
        hp_bursty_set_fold(&general, fold);
        for (size_t i = 0; i < n; i++) {
            if (i == n / 2) { /* new settings apply at each type's next reset: out of step a while */
                p[HP_BURSTY_CALL_PAIRS] = params(S + 50, B, 40, 1);
                CHECK(hp_bursty_config_set_all(&cfg, p) == 0);
            }
            shortcuts += fast.lockstep && fast.countdown == 1;
            general.lockstep = 0;
            uint32_t a = hp_bursty_boundary(&fast), b = hp_bursty_boundary(&general);
            if ((a != b || !same_state(&fast, &general)) && bad++ < 3)
                fprintf(stderr, "  variant %d event %zu: the states differ\n", v, i);
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(shortcuts > 1000);
}

int main(void)
{
    RUN(figure4_pattern_matches_simulator);
    RUN(equal_settings_share_bursts);
    RUN(figure4_corner_parameters);
    RUN(phases_follow_figure4);
    RUN(exact_frequency_over_whole_cycles);
    RUN(jitter_fraction_within_bounds);
    RUN(estimate_api_matches_metrics);
    RUN(scaled_counts_estimate_exhaustive_counts);
    RUN(parameter_change_applies_at_next_reset);
    RUN(parameter_change_run_lengths);
    RUN(switches_apply_after_next_slow_path);
    RUN(every_enabled_subset_matches_simulator);
    RUN(disabled_type_samples_nothing);
    RUN(config_validation_and_generations);
    RUN(config_snapshots_are_consistent_under_a_racing_writer);
    RUN(figure4_pattern_matches_simulator_folded);
    RUN(equal_settings_share_bursts_folded);
    RUN(figure4_corner_parameters_folded);
    RUN(phases_follow_figure4_folded);
    RUN(exact_frequency_over_whole_cycles_folded);
    RUN(parameter_change_applies_at_next_reset_folded);
    RUN(switches_apply_after_next_slow_path_folded);
    RUN(every_enabled_subset_matches_simulator_folded);
    RUN(disabled_type_samples_nothing_folded);
    RUN(folded_bursts_take_one_slow_path);
    RUN(lockstep_shortcut_keeps_the_general_state);
    return test_main_end();
}

/* test_window_plan.c — the patched-burst schedule (src/core/control/window_plan.h) against its definition:
 *   - the schedule type is the enabled, asked-for type of highest B/(B+S), lowest index on ties;
 *   - W = max(B, min_window) and W/(W+S') equals B/(B+S) up to S' rounding;
 *   - over many windows every type records in a share of the run that matches its own frequency
 *     (windows in which it records x W units / all units, the exhaustive count of the plan);
 *   - disabled or not-asked-for types never record; no enabled type: -1 and a zeroed plan.
 * Random parameter sets from a fixed seed (property test); edge values listed by hand.
 */
#include <math.h>
#include <string.h>
#include "core/base/rng.h"
#include "core/control/window_plan.h"
#include "test.h"

#define NT HP_BURSTY_NTYPES

static hp_bursty_params P(uint32_t period, uint32_t burst, uint32_t enabled)
{
    hp_bursty_params p = {period, burst, 0, enabled};
    return p;
}

TEST(hps_defaults_give_one_window_per_cycle)
{
    hp_bursty_params p[NT] = {P(999, 1, 1), P(999, 1, 1), P(1000, 1, 0), P(9900, 100, 0)};
    hp_window_plan w;
    REQUIRE(hp_window_plan_make(p, HP_BURSTY_ALL, 100, &w) == 0);
    CHECK_EQ_U64(w.type, HP_BURSTY_METHODS); /* tie with call pairs: lowest index */
    CHECK_EQ_U64(w.window, 100);
    CHECK_EQ_U64(w.off_units, 99900);
    CHECK_EQ_U64(w.every[HP_BURSTY_METHODS], 1);
    CHECK_EQ_U64(w.every[HP_BURSTY_CALL_PAIRS], 1);
    CHECK_EQ_U64(w.every[HP_BURSTY_EDGES], 0);
    CHECK_EQ_U64(hp_window_plan_mask(&w, 7), HP_BURSTY_BIT(0) | HP_BURSTY_BIT(1));
}

TEST(lower_frequency_types_record_in_every_kth_window)
{
    /* methods 1/100, data streams 1/1000: streams in every 10th window */
    hp_bursty_params p[NT] = {P(99, 1, 1), P(0, 1, 0), P(0, 1, 0), P(99900, 100, 1)};
    hp_window_plan w;
    REQUIRE(hp_window_plan_make(p, HP_BURSTY_ALL, 50, &w) == 0);
    CHECK_EQ_U64(w.type, HP_BURSTY_METHODS);
    CHECK_EQ_U64(w.window, 50);
    CHECK_EQ_U64(w.off_units, 4950);
    CHECK_EQ_U64(w.every[HP_BURSTY_DATA_STREAMS], 10);
    CHECK(!(hp_window_plan_mask(&w, 9) & HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS)));
    CHECK(hp_window_plan_mask(&w, 10) & HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS));
}

TEST(types_not_asked_for_or_disabled_never_record)
{
    hp_bursty_params p[NT] = {P(9, 1, 1), P(0, 1, 1), P(5, 5, 0), P(1, 1, 1)};
    hp_window_plan w;
    REQUIRE(hp_window_plan_make(p, HP_BURSTY_BIT(HP_BURSTY_METHODS), 1, &w) == 0);
    CHECK_EQ_U64(w.type, HP_BURSTY_METHODS); /* call pairs (S = 0) are more frequent but not asked */
    CHECK_EQ_U64(w.window, 1);
    CHECK_EQ_U64(w.off_units, 9);
    for (uint64_t n = 1; n < 50; n++) CHECK_EQ_U64(hp_window_plan_mask(&w, n), HP_BURSTY_BIT(HP_BURSTY_METHODS));
    hp_bursty_params none[NT] = {P(9, 1, 0), P(9, 1, 0), P(9, 1, 0), P(9, 1, 0)};
    memset(&w, 0xab, sizeof w);
    CHECK(hp_window_plan_make(none, HP_BURSTY_ALL, 100, &w) == -1);
    CHECK_EQ_U64(w.window, 0);
    CHECK_EQ_U64(hp_window_plan_mask(&w, 3), 0);
}

TEST(exhaustive_period_zero_means_no_off_phase)
{
    hp_bursty_params p[NT] = {P(0, 1, 1), P(999, 1, 1), P(0, 1, 0), P(0, 1, 0)};
    hp_window_plan w;
    REQUIRE(hp_window_plan_make(p, HP_BURSTY_ALL, 100, &w) == 0);
    CHECK_EQ_U64(w.off_units, 0);
    CHECK_EQ_U64(w.every[HP_BURSTY_CALL_PAIRS], 1000);
}

/* Property: random plans; each type's recorded share of units over N windows (the exhaustive
 * count of what the plan records) is its own frequency, within the rounding of S' and k. */
TEST(random_plans_match_each_types_frequency)
{
    hp_rng rng;
    hp_rng_seed(&rng, 20261122);
    for (int round = 0; round < 400; round++) {
        hp_bursty_params p[NT];
        for (int t = 0; t < NT; t++) {
            uint32_t b = 1 + (uint32_t)hp_rng_below(&rng, 200);
            uint32_t s = (uint32_t)hp_rng_below(&rng, 100000);
            p[t] = P(s, b, hp_rng_below(&rng, 3) != 0);
        }
        uint32_t min_window = 1 + (uint32_t)hp_rng_below(&rng, 1000);
        hp_window_plan w;
        int any = 0;
        for (int t = 0; t < NT; t++) any |= (int)p[t].enabled;
        if (hp_window_plan_make(p, HP_BURSTY_ALL, min_window, &w) != 0) {
            CHECK(!any);
            continue;
        }
        REQUIRE(any);
        CHECK(w.window >= w.burst && w.window >= min_window);
        CHECK_EQ_U64(w.every[w.type], 1);
        double f = hp_bursty_frequency(p[w.type].burst, p[w.type].period);
        for (int t = 0; t < NT; t++) CHECK(!p[t].enabled || hp_bursty_frequency(p[t].burst, p[t].period) <= f);
        double cycle = (double)w.window + (double)w.off_units;
        CHECK(fabs((double)w.window / cycle - f) <= f * (0.5 / (double)w.window + 1e-9) + 0.5 / cycle);
        const uint64_t N = 20000;
        for (int t = 0; t < NT; t++) {
            uint64_t windows = 0;
            for (uint64_t n = 1; n <= N; n++) windows += hp_window_plan_mask(&w, n) >> t & 1u;
            if (!p[t].enabled) {
                CHECK_EQ_U64(windows, 0);
                continue;
            }
            double ft = hp_bursty_frequency(p[t].burst, p[t].period);
            double share = (double)windows * (double)w.window / ((double)N * cycle);
            double k = f / ft;
            if (k > HP_WINDOW_PLAN_MAX_EVERY || (double)N / w.every[t] < 20) continue; /* too few windows */
            /* share / ft = k / every: every = k rounded (|k / every - 1| <= 0.5 / every), or 1 for
             * k < 1.5 (<= 0.5); plus the whole windows of N / every counted */
            double tol = 0.5 / (double)w.every[t] + (double)w.every[t] / (double)N;
            CHECK(fabs(share / ft - 1.0) <= tol + 0.01);
        }
    }
}

int main(void)
{
    RUN(hps_defaults_give_one_window_per_cycle);
    RUN(lower_frequency_types_record_in_every_kth_window);
    RUN(types_not_asked_for_or_disabled_never_record);
    RUN(exhaustive_period_zero_means_no_off_phase);
    RUN(random_plans_match_each_types_frequency);
    return test_main_end();
}

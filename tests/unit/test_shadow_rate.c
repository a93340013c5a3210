/* test_shadow_rate.c — a shadow's calibrated native event rate (core/metrics/shadow.h): the
 * fastest window wins (slower ones carry copy-on-write faults); windows too short or empty are
 * ignored; the trampolines' cost per event comes off a window's time, but never more than
 * 1 - 1/HP_SHADOW_RATE_MAX_CUT of it; the native time of N events is N over the rate; no window:
 * 0. */
#include "core/metrics/shadow.h"
#include "test.h"

TEST(fastest_window_wins)
{
    hp_shadow_rate r = {0, 0};
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&r, 1000), 0.0, 1e-12);
    hp_shadow_rate_window(&r, 1000, 1000000, 0);   /* 1 per us */
    hp_shadow_rate_window(&r, 3000, 1000000, 0);   /* 3 per us: the fastest */
    hp_shadow_rate_window(&r, 2000, 1000000, 0);
    hp_shadow_rate_window(&r, 900, 100, 0);        /* too short: ignored */
    hp_shadow_rate_window(&r, 0, 5000000, 0);      /* empty: ignored */
    CHECK_EQ_U64(r.best_events, 3000);
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&r, 3000), 1000000.0, 1e-6);
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&r, 30), 10000.0, 1e-6);
}

TEST(count_cost_comes_off_bounded)
{
    hp_shadow_rate r = {0, 0};
    hp_shadow_rate_window(&r, 1000000, 2000000, 0.5); /* 2 ns an event, 0.5 of it counting */
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&r, 1000), 1500.0, 1e-6);
    hp_shadow_rate dense = {0, 0};
    hp_shadow_rate_window(&dense, 1000000, 1000000, 0.9); /* the cut would leave 0.1 ns: capped */
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&dense, 1000), 1000.0 / HP_SHADOW_RATE_MAX_CUT, 1e-6);
    hp_shadow_rate neg = {0, 0};
    hp_shadow_rate_window(&neg, 1000000, 1000000, -3.0); /* a negative measurement counts as 0 */
    CHECK_NEAR(hp_shadow_rate_native_ns_of(&neg, 1000), 1000.0, 1e-6);
}

int main(void)
{
    RUN(fastest_window_wins);
    RUN(count_cost_comes_off_bounded);
    return test_main_end();
}

/* test_rt_window.c — the runtime's glue between the shared sampling configuration and the
 * patched-burst schedule (runtime/ctl/bursts.c: hp_pb_schedule_from_config over hp_g.bcfg), and
 * between the HOTPROF_* settings and that schedule (config.c -> hp_g.bcfg -> schedule), linked
 * alone (libhotprof_rtparts.a: no constructor, no control thread):
 *   - for random sampling configurations the runtime's schedule is exactly
 *     core/control/window_plan's plan of the same parameters (property test);
 *   - a run-time change through the configuration's setters (what hotprof_sample_set/enable do)
 *     is what the next schedule sees; disabling every asked-for type gives -1;
 *   - HOTPROF_SAMPLE / HOTPROF_WINDOW parsed by config.c give the schedule the docs promise;
 *   - before any control thread started, the patched-burst INFO is empty.
 */
#include <string.h>
#include "core/base/rng.h"
#include "core/control/spec.h"
#include "core/control/window_plan.h"
#include "runtime/config.h"
#include "runtime/ctl/ctl.h"
#include "test.h"

static int same_plan(const hp_window_plan *a, const hp_window_plan *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

TEST(schedule_is_the_plan_of_the_shared_configuration)
{
    hp_rng r;
    hp_rng_seed(&r, 21);
    int mismatches = 0, none = 0;
    for (int i = 0; i < 3000; i++) {
        hp_bursty_params p[HP_BURSTY_NTYPES];
        for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
            p[t].period = (uint32_t)(hp_rng_below(&r, 4) ? hp_rng_below(&r, 100000) : 0);
            p[t].burst = (uint32_t)(1 + hp_rng_below(&r, 1000));
            p[t].jitter_pct = (uint32_t)hp_rng_below(&r, 100);
            p[t].enabled = (uint32_t)hp_rng_below(&r, 2);
        }
        uint32_t types = (uint32_t)hp_rng_below(&r, 1u << HP_BURSTY_NTYPES);
        uint32_t min_window = (uint32_t)(1 + hp_rng_below(&r, 500));
        hp_bursty_config_init(&hp_g.bcfg);
        REQUIRE(hp_bursty_config_set_all(&hp_g.bcfg, p) == 0);
        hp_pb_schedule got;
        hp_window_plan want;
        int rc_got = hp_pb_schedule_from_config(&got, min_window, types);
        int rc_want = hp_window_plan_make(p, types, min_window, &want);
        if (rc_got != rc_want || (rc_got == 0 && !same_plan(&got, &want))) mismatches++;
        none += rc_got != 0;
    }
    CHECK_EQ_U64(mismatches, 0);
    CHECK(none > 0 && none < 3000); /* both outcomes were exercised */
}

TEST(run_time_changes_reach_the_next_schedule)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    hp_sample_defaults(p);
    p[HP_BURSTY_METHODS].enabled = 1;
    hp_bursty_config_init(&hp_g.bcfg);
    REQUIRE(hp_bursty_config_set_all(&hp_g.bcfg, p) == 0);
    hp_pb_schedule s;
    REQUIRE(hp_pb_schedule_from_config(&s, 100, HP_BURSTY_ALL) == 0);
    CHECK_EQ_U64(s.type, HP_BURSTY_METHODS);
    CHECK_EQ_U64(s.window, 100);
    CHECK_EQ_U64(s.off_units, 100000); /* W * S / B = 100 * 1000 / 1 */
    hp_bursty_params m = {4900, 100, 0, 1};
    REQUIRE(hp_bursty_config_set(&hp_g.bcfg, HP_BURSTY_METHODS, &m) == 0);
    REQUIRE(hp_pb_schedule_from_config(&s, 100, HP_BURSTY_ALL) == 0);
    CHECK_EQ_U64(s.burst, 100);
    CHECK_EQ_U64(s.window, 100);
    CHECK_EQ_U64(s.off_units, 4900);
    REQUIRE(hp_bursty_config_enable(&hp_g.bcfg, HP_BURSTY_METHODS, 0) == 0);
    CHECK(hp_pb_schedule_from_config(&s, 100, HP_BURSTY_ALL) == -1);
    REQUIRE(hp_bursty_config_enable(&hp_g.bcfg, HP_BURSTY_EDGES, 1) == 0);
    CHECK(hp_pb_schedule_from_config(&s, 100, HP_BURSTY_BIT(HP_BURSTY_METHODS)) == -1); /* XRay: methods only */
    REQUIRE(hp_pb_schedule_from_config(&s, 100, HP_BURSTY_ALL) == 0);
    CHECK_EQ_U64(s.type, HP_BURSTY_EDGES);
}

TEST(settings_to_schedule)
{
    char *env[] = {"HOTPROF_SAMPLE=methods:period=990,burst=10;edges:period=9990,burst=10", "HOTPROF_WINDOW=40", NULL};
    hp_rt_config c;
    REQUIRE(hp_rt_config_from_envp(&c, env) == 0);
    REQUIRE(c.mode == HP_RUN_BURSTY);
    hp_bursty_config_init(&hp_g.bcfg);
    REQUIRE(hp_bursty_config_set_all(&hp_g.bcfg, c.sample) == 0);
    hp_pb_schedule s;
    REQUIRE(hp_pb_schedule_from_config(&s, c.window, HP_BURSTY_ALL) == 0);
    CHECK_EQ_U64(s.type, HP_BURSTY_METHODS); /* 1% beats 0.1% */
    CHECK_EQ_U64(s.window, 40);              /* max(B = 10, HOTPROF_WINDOW = 40) */
    CHECK_EQ_U64(s.off_units, 3960);         /* 40 * 990 / 10: W/(W+S') = B/(B+S) */
    CHECK_EQ_U64(s.every[HP_BURSTY_METHODS], 1);
    CHECK_EQ_U64(s.every[HP_BURSTY_EDGES], 10);
    CHECK_EQ_U64(s.every[HP_BURSTY_CALL_PAIRS], 0);
}

TEST(no_backend_no_info)
{
    char buf[256];
    CHECK_EQ_U64(hp_pb_info(buf, sizeof buf), 0);
}

int main(void)
{
    RUN(schedule_is_the_plan_of_the_shared_configuration);
    RUN(run_time_changes_reach_the_next_schedule);
    RUN(settings_to_schedule);
    RUN(no_backend_no_info);
    return test_main_end();
}

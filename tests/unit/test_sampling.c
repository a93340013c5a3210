/* test_sampling.c — core/sampling: the bursty spec grammar (HOTPROF_SAMPLE, --sample, INFO
 * sample.<type>): good specs, defaults for keys left out, later clauses win, every kind of bad
 * spec refused with a message, and format/parse round trips. */
#include "core/control/sampling.h"
#include "test.h"
#include <string.h>

static int bad(const char *spec, const char *msg_part)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    char err[256] = "";
    return hp_sample_spec_parse(spec, p, err, sizeof err) == -1 && strstr(err, msg_part) != NULL;
}

TEST(good_specs)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    char err[256];
    REQUIRE(hp_sample_spec_parse("methods:period=1000,burst=1;callpairs:period=1000,burst=1;"
                                 "edges:period=5000,burst=10,jitter=20", p, err, sizeof err) == 0);
    CHECK(p[HP_BURSTY_METHODS].enabled && p[HP_BURSTY_CALL_PAIRS].enabled && p[HP_BURSTY_EDGES].enabled);
    CHECK(!p[HP_BURSTY_DATA_STREAMS].enabled);
    CHECK_EQ_U64(p[HP_BURSTY_EDGES].period, 5000);
    CHECK_EQ_U64(p[HP_BURSTY_EDGES].burst, 10);
    CHECK_EQ_U64(p[HP_BURSTY_EDGES].jitter_pct, 20);
    REQUIRE(hp_sample_spec_parse("datastream;methods:jitter=5;methods:burst=3;", p, err, sizeof err) == 0);
    CHECK(p[HP_BURSTY_DATA_STREAMS].enabled);
    CHECK_EQ_U64(p[HP_BURSTY_DATA_STREAMS].period, HP_SAMPLE_DEFAULT_PERIOD);
    CHECK_EQ_U64(p[HP_BURSTY_METHODS].burst, 3); /* the later clause wins as a whole */
    CHECK_EQ_U64(p[HP_BURSTY_METHODS].jitter_pct, 0);
    REQUIRE(hp_sample_spec_parse("methods:period=0,burst=1073741824,jitter=99", p, err, sizeof err) == 0);
    CHECK_EQ_U64(p[HP_BURSTY_METHODS].burst, HP_BURSTY_MAX_COUNT);
    CHECK_EQ_U64(hp_sample_type_parse("callpairs", 9), HP_BURSTY_CALL_PAIRS);
    CHECK(hp_sample_type_parse("call", 4) == -1);
    CHECK(hp_sample_type_name(4) == NULL && strcmp(hp_sample_type_name(3), "datastream") == 0);
}

TEST(bad_specs_are_refused_with_a_reason)
{
    CHECK(bad("", "empty"));
    CHECK(bad("bogus", "unknown sample type 'bogus'"));
    CHECK(bad("methods:", "no parameters"));
    CHECK(bad("methods:period", "not KEY=NUMBER"));
    CHECK(bad("methods:period=", "not a non-negative number"));
    CHECK(bad("methods:period=-1", "not a non-negative number"));
    CHECK(bad("methods:period=1e3", "not a non-negative number"));
    CHECK(bad("methods:period=99999999999", "not a non-negative number"));
    CHECK(bad("methods:perio=3", "unknown key 'perio'"));
    CHECK(bad("methods:burst=0", "burst must be"));
    CHECK(bad("methods:period=1073741825", "period must be"));
    CHECK(bad("methods:jitter=100", "jitter must be"));
    CHECK(bad("methods:period=9,", "ends with a comma"));
    CHECK(bad("methods;;edges", "empty clause"));
    CHECK(bad("methods: period=9", "unknown key ' period'")); /* no whitespace allowed */
}

TEST(format_and_parse_round_trip)
{
    hp_bursty_params p = {4242, 17, 33, 1}, q = {1, 1, 0, 0};
    char buf[96], err[128];
    size_t n = hp_sample_params_format(buf, sizeof buf, &p);
    CHECK(strcmp(buf, "period=4242,burst=17,jitter=33") == 0 && n == strlen(buf));
    REQUIRE(hp_sample_params_parse(buf, n, &q, err, sizeof err) == 0);
    CHECK(q.period == 4242 && q.burst == 17 && q.jitter_pct == 33 && q.enabled == 0); /* enabled kept */
    char tiny[8];
    CHECK_EQ_U64(hp_sample_params_format(tiny, sizeof tiny, &p), 7);
    CHECK(strcmp(tiny, "period=") == 0);
}

int main(void)
{
    RUN(good_specs);
    RUN(bad_specs_are_refused_with_a_reason);
    RUN(format_and_parse_round_trip);
    return test_main_end();
}

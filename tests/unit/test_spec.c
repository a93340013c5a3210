/* test_spec.c — core/control/spec: the bursty spec grammar (HOTPROF_SAMPLE, --sample, INFO
 * sample.<type>): good specs, defaults for keys left out, later clauses win, every kind of bad
 * spec refused with a message, and format/parse round trips; the scalar settings (numbers
 * against strtoull as oracle, seed, mode, bursts, window, flags). */
#include "core/control/spec.h"
#include "core/summary/multihash.h"
#include "test.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
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
    CHECK_EQ_U64(p[HP_BURSTY_METHODS].jitter_pct, HP_SAMPLE_DEFAULT_JITTER); /* the default, not the earlier clause's 5 */
    REQUIRE(hp_sample_spec_parse("methods:period=0,burst=1073741824,jitter=99", p, err, sizeof err) == 0);
    CHECK_EQ_U64(p[HP_BURSTY_METHODS].burst, HP_BURSTY_MAX_COUNT);
    CHECK_EQ_U64(hp_sample_type_parse("callpairs", 9), HP_BURSTY_CALL_PAIRS);
    CHECK(hp_sample_type_parse("call", 4) == -1);
    CHECK_EQ_U64(hp_sample_type_parse("calls", 5), HP_BURSTY_METHODS); /* the registry's synonym */
    CHECK(hp_sample_type_parse("blocks", 6) == -1);                     /* a type not sampled by bursts */
    REQUIRE(hp_sample_spec_parse("calls:period=7", p, err, sizeof err) == 0);
    CHECK(p[HP_BURSTY_METHODS].enabled && p[HP_BURSTY_METHODS].period == 7);
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

/* The oracle: strtoull on a string that has only digits (or 0x + hex digits) and no overflow. */
static int oracle_u64(const char *t, uint64_t *out)
{
    size_t i = (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) ? 2 : 0;
    int hex = i == 2;
    if (!t[i]) return -1;
    for (size_t j = i; t[j]; j++)
        if (!(hex ? isxdigit((unsigned char)t[j]) : isdigit((unsigned char)t[j]))) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(t, &end, hex ? 16 : 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

TEST(numbers_match_the_exhaustive_oracle)
{
    static const char alphabet[] = "0123456789abfxX-+ ";
    uint64_t state = 12345;
    char text[24];
    for (int round = 0; round < 200000; round++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = 1 + (state >> 59) % 22;
        uint64_t r = state;
        for (size_t i = 0; i < len; i++, r = r * 2862933555777941757ull + 3037000493ull)
            text[i] = alphabet[(r >> 40) % (sizeof alphabet - 1)];
        text[len] = 0;
        if (round % 3 == 0) text[0] = '0', text[1] = 'x';
        uint64_t got = 0, want = 0;
        int rc = hp_spec_u64(text, 0, UINT64_MAX, &got), wrc = oracle_u64(text, &want);
        CHECK(rc == wrc);
        if (rc == 0 && wrc == 0) CHECK_EQ_U64(got, want);
        if (rc != wrc) { fprintf(stderr, "  text '%s'\n", text); return; }
    }
}

TEST(seed_refuses_what_strtoull_would_alter)
{
    uint64_t v = 7;
    char err[128];
    CHECK(hp_spec_seed("abc", &v, err, sizeof err) == -1 && strstr(err, "abc"));
    CHECK(hp_spec_seed("-5", &v, err, sizeof err) == -1);
    CHECK(hp_spec_seed("18446744073709551616", &v, err, sizeof err) == -1); /* 2^64 overflows */
    CHECK(hp_spec_seed("", &v, err, sizeof err) == -1);
    CHECK(hp_spec_seed(" 5", &v, err, sizeof err) == -1);
    CHECK(hp_spec_seed("18446744073709551615", &v, err, sizeof err) == 0 && v == UINT64_MAX);
    CHECK(hp_spec_seed("0x10", &v, err, sizeof err) == 0 && v == 16);
}

TEST(words_and_ranges)
{
    int m = -1;
    uint32_t w = 0;
    char err[128];
    CHECK(hp_spec_mode("bursty", &m, err, sizeof err) == 0 && m == HP_RUN_BURSTY);
    CHECK(hp_spec_mode("Bursty", &m, err, sizeof err) == -1 && strstr(err, "Bursty"));
    CHECK(hp_spec_bursts("live", &m, err, sizeof err) == 0 && m == HP_BURSTS_LIVE);
    CHECK(hp_spec_bursts("fast", &m, err, sizeof err) == -1);
    CHECK(hp_spec_window("100", &w, err, sizeof err) == 0 && w == 100);
    CHECK(hp_spec_window("0", &w, err, sizeof err) == -1);
    CHECK(hp_spec_window("1073741825", &w, err, sizeof err) == -1);
    CHECK(hp_spec_flag("", &m, err, sizeof err) == 0 && m == 0);
    CHECK(hp_spec_flag("1", &m, err, sizeof err) == 0 && m == 1);
    CHECK(hp_spec_flag("yes", &m, err, sizeof err) == -1);
    for (int i = 0; i < 3; i++) {
        CHECK(hp_spec_mode(hp_spec_mode_name(i), &m, err, sizeof err) == 0 && m == i);
        CHECK(hp_spec_bursts(hp_spec_bursts_name(i), &m, err, sizeof err) == 0 && m == i);
    }
}

/* ---- interval clauses (STREAM:summary=multihash,...) ---- */

static int iv_bad(const char *spec, const char *msg_part)
{
    hp_iv_params iv[HP_IV_NSTREAMS];
    char err[256] = "";
    int rc = hp_iv_spec_parse(spec, iv, err, sizeof err);
    if (rc == 0 || !strstr(err, msg_part)) fprintf(stderr, "  '%s': rc %d, '%s'\n", spec, rc, err);
    return rc == -1 && strstr(err, msg_part) != NULL;
}

TEST(interval_clauses)
{
    hp_iv_params iv[HP_IV_NSTREAMS], back[HP_IV_NSTREAMS];
    char err[256], text[400];
    REQUIRE(hp_iv_spec_parse("value:summary=multihash", iv, err, sizeof err) == 0);
    CHECK(iv[HP_IV_VALUE].enabled && !iv[HP_IV_EDGES].enabled);
    CHECK(iv[HP_IV_VALUE].n_tables == 4 && iv[HP_IV_VALUE].total_counters == 2048 && iv[HP_IV_VALUE].conservative == 1);
    CHECK(iv[HP_IV_VALUE].reset == 0 && iv[HP_IV_VALUE].retain == 1 && iv[HP_IV_VALUE].shield == 1);
    CHECK_EQ_U64(iv[HP_IV_VALUE].interval, 10000);
    CHECK_EQ_U64(hp_iv_threshold_count(&iv[HP_IV_VALUE]), 100);
    CHECK_EQ_U64(hp_iv_counter_bits(&iv[HP_IV_VALUE]), 7); /* 100 needs 7 bits */
    REQUIRE(hp_iv_spec_parse("edges:summary=multihash,interval=1000000,threshold=0.1%,tables=8,exact=1;value:summary=multihash,threshold=0.001",
                             iv, err, sizeof err) == 0);
    CHECK_EQ_U64(hp_iv_threshold_count(&iv[HP_IV_EDGES]), 1000);
    CHECK(iv[HP_IV_EDGES].exact == 1 && iv[HP_IV_EDGES].n_tables == 8);
    CHECK(iv[HP_IV_EDGES].threshold == iv[HP_IV_VALUE].threshold); /* "0.1%" and "0.001": one double */
    hp_iv_params_format(text, sizeof text, HP_IV_EDGES, &iv[HP_IV_EDGES]);
    REQUIRE(hp_iv_spec_parse(text, back, err, sizeof err) == 0);
    CHECK(back[HP_IV_EDGES].threshold == iv[HP_IV_EDGES].threshold && back[HP_IV_EDGES].interval == iv[HP_IV_EDGES].interval);
    CHECK(back[HP_IV_EDGES].counter_bits == hp_iv_counter_bits(&iv[HP_IV_EDGES]));
    CHECK(hp_iv_clause_is("value:summary=multihash", 23) && !hp_iv_clause_is("edges:period=10", 15));
    CHECK(iv_bad("value:summary=multihash,colour=1", "unknown key"));
    CHECK(iv_bad("value:summary=multihash,interval=0", "interval must be"));
    CHECK(iv_bad("value:summary=multihash,bits=4", "cannot hold the threshold"));
    CHECK(iv_bad("value:summary=multihash,tables=3", "not divisible"));
    CHECK(iv_bad("value:summary=multihash,threshold=0%", "threshold"));
    CHECK(iv_bad("value:summary=multihash,threshold=101%", "threshold"));
    CHECK(iv_bad("value:summary=concise", "only interval summary"));
    /* the value profile's summaries are not interval clauses (core/control/pathval_spec.h) */
    CHECK(!hp_iv_clause_is("value:summary=tnv", 17) && !hp_iv_clause_is("value:summary=gm,sites=64", 25));
    CHECK(hp_iv_clause_is("value:summary=tnvx", 18) && hp_iv_clause_is("value:tables=4,summary=multihash", 32));
    CHECK(iv_bad("methods:summary=multihash", "value or edges"));
    CHECK(iv_bad("value:summary=multihash,", "ends with a comma"));
    CHECK(iv_bad("value:summary=multihash,exact=2", "0 or 1"));
    CHECK(iv_bad("", "empty"));
}

TEST(interval_variants)
{
    hp_iv_params iv[HP_IV_NSTREAMS], back[HP_IV_NSTREAMS];
    char err[256], text[400];
    hp_multihash_params mp;
    REQUIRE(hp_iv_spec_parse("value:summary=multihash", iv, err, sizeof err) == 0);
    CHECK_EQ_U64(iv[HP_IV_VALUE].variant, HP_MH_VARIANT_REBALANCED); /* the measured better default */
    for (int v = 0; v < 3; v++) {
        char clause[80];
        snprintf(clause, sizeof clause, "edges:summary=multihash,variant=%s", hp_iv_variant_name(v));
        REQUIRE(hp_iv_spec_parse(clause, iv, err, sizeof err) == 0);
        CHECK_EQ_U64(iv[HP_IV_EDGES].variant, v);
        hp_iv_params_format(text, sizeof text, HP_IV_EDGES, &iv[HP_IV_EDGES]);
        CHECK(strstr(text, hp_iv_variant_name(v)) != NULL);
        REQUIRE(hp_iv_spec_parse(text, back, err, sizeof err) == 0);
        CHECK_EQ_U64(back[HP_IV_EDGES].variant, v);
        REQUIRE(hp_iv_multihash_params(&iv[HP_IV_EDGES], 9, &mp) == 0);
        hp_multihash_params design = {4, 2048, 7, 0.01, 10000, 1, 1, 0, 1, 9, 0, 0}, want = design;
        uint32_t ad, zd;
        if (v != HP_MH_VARIANT_PAPER) REQUIRE(hp_multihash_variant_divisors(v, &ad, &zd) == 0 && hp_multihash_rebalance(&design, ad, zd, &want) == 0);
        /* paper: the design as given, acc 0: today's structure */
        CHECK(mp.n_tables == want.n_tables && mp.total_counters == want.total_counters && mp.counter_bits == want.counter_bits);
        CHECK(mp.threshold == want.threshold && mp.interval_length == want.interval_length && mp.seed == want.seed);
        CHECK(mp.shield == want.shield && mp.retain == want.retain && mp.reset == want.reset && mp.conservative == want.conservative);
        CHECK(mp.fast_hash == want.fast_hash && mp.acc_entries == want.acc_entries);
        CHECK(v == HP_MH_VARIANT_PAPER ? mp.acc_entries == 0 : mp.acc_entries > 0);
    }
    REQUIRE(hp_iv_multihash_params(&iv[HP_IV_EDGES], 9, &mp) == 0);
    CHECK(hp_multihash_area_bytes(&mp) * 2 <= 2792 + 1); /* half: half of the 4 x 2K design's 2792 B */
    CHECK(iv_bad("value:summary=multihash,variant=quarter", "paper, rebalanced or half"));
    CHECK(iv_bad("value:summary=multihash,tables=64,counters=64,interval=1,threshold=100%,variant=half", "no room for 64 counters"));
}

int main(void)
{
    RUN(interval_clauses);
    RUN(interval_variants);
    RUN(good_specs);
    RUN(bad_specs_are_refused_with_a_reason);
    RUN(format_and_parse_round_trip);
    RUN(numbers_match_the_exhaustive_oracle);
    RUN(seed_refuses_what_strtoull_would_alter);
    RUN(words_and_ranges);
    return test_main_end();
}

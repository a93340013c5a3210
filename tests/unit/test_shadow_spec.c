/* test_shadow_spec.c — core/control/shadow_spec.c, the grammar of HOTPROF_SHADOW and of `hotprof
 * run --mode shadow`'s options:
 *   - defaults (NULL and empty text) and their canonical form;
 *   - parse(format(s)) == s over many generated settings (loads on a grid of the range, sample
 *     sizes with and without suffixes, every real-time signal);
 *   - suffixes K, M, G are decimal; the range limits are accepted, one step beyond refused;
 *   - every error (each key out of range or malformed, unknown keys, no '=', a trailing ',')
 *     gives -1 with a sentence that quotes the text.
 */
#include <stdio.h>
#include <string.h>
#include "core/control/shadow_spec.h"
#include "test.h"

TEST(defaults)
{
    hp_shadow_spec s, e;
    char err[200], buf[200];
    REQUIRE(hp_shadow_spec_parse(NULL, &s, err, sizeof err) == 0);
    REQUIRE(hp_shadow_spec_parse("", &e, err, sizeof err) == 0);
    CHECK(s.load == e.load && s.sample == e.sample && s.signal == e.signal);
    CHECK_NEAR(s.load, 0.25, 1e-12);
    CHECK_EQ_U64(s.sample, 10000000u);
    CHECK_EQ_U64(s.signal, 40);
    hp_shadow_spec_format(buf, sizeof buf, &s);
    CHECK(strcmp(buf, "load=0.25,sample=10000000,signal=40,slice=50") == 0);
}

TEST(round_trip)
{
    static const char *const sig[] = {"USR1", "USR2", "ALRM", "VTALRM", "PROF", "RTMIN", "RTMIN+6", "RTMIN+30"};
    int n = 0;
    for (int l = 1; l <= 32; l++)
        for (uint64_t sample = 1; sample < (1ull << 40); sample = sample * 7 + 3)
            for (size_t k = 0; k < sizeof sig / sizeof sig[0]; k++, n++) {
                hp_shadow_spec s = {.load = l / 16.0, .sample = sample}, back;
                char err[200], buf[200];
                REQUIRE(hp_shadow_signal_parse(sig[k], &s.signal, err, sizeof err) == 0);
                hp_shadow_spec_format(buf, sizeof buf, &s);
                REQUIRE(hp_shadow_spec_parse(buf, &back, err, sizeof err) == 0);
                CHECK(back.load == s.load && back.sample == s.sample && back.signal == s.signal);
            }
    CHECK(n > 1000);
}

TEST(suffixes_and_limits)
{
    uint64_t v;
    double d;
    char err[200];
    CHECK(hp_shadow_sample_parse("10M", &v, err, sizeof err) == 0 && v == 10000000u);
    CHECK(hp_shadow_sample_parse("3K", &v, err, sizeof err) == 0 && v == 3000u);
    CHECK(hp_shadow_sample_parse("2G", &v, err, sizeof err) == 0 && v == 2000000000u);
    CHECK(hp_shadow_sample_parse("1099511627776", &v, err, sizeof err) == 0 && v == (1ull << 40));
    CHECK(hp_shadow_sample_parse("1099511627777", &v, err, sizeof err) == -1);
    CHECK(hp_shadow_sample_parse("1100G", &v, err, sizeof err) == -1);
    CHECK(hp_shadow_load_parse("0.0625", &d, err, sizeof err) == 0 && d == 0.0625);
    CHECK(hp_shadow_load_parse("2", &d, err, sizeof err) == 0 && d == 2.0);
    CHECK(hp_shadow_load_parse("2.0", &d, err, sizeof err) == 0 && d == 2.0);
    CHECK(hp_shadow_load_parse("0.0624", &d, err, sizeof err) == -1);
    CHECK(hp_shadow_load_parse("2.0001", &d, err, sizeof err) == -1);
    hp_shadow_spec s;
    CHECK(hp_shadow_spec_parse("sample=5,sample=7", &s, err, sizeof err) == 0 && s.sample == 7); /* the later one */
    CHECK(hp_shadow_spec_parse("slice=0", &s, err, sizeof err) == 0 && s.slice_ms == 0); /* no limit */
    CHECK(hp_shadow_spec_parse("slice=60000", &s, err, sizeof err) == 0 && s.slice_ms == 60000);
    CHECK(hp_shadow_spec_parse("slice=60001", &s, err, sizeof err) == -1 && strstr(err, "'60001'"));
    CHECK(hp_shadow_slice_parse("20", &s.slice_ms, err, sizeof err) == 0 && s.slice_ms == 20);
    CHECK(hp_shadow_slice_parse("2.5", &s.slice_ms, err, sizeof err) == -1 && strstr(err, "milliseconds"));
}

TEST(every_error_is_one_sentence)
{
    static const struct { const char *text, *shown; } bad[] = {
        {"load=0", "'0'"}, {"load=9", "'9'"}, {"load=", "''"}, {"load=.5", "'.5'"}, {"load=0.", "'0.'"},
        {"load=-1", "'-1'"}, {"load=1e0", "'1e0'"}, {"sample=0", "'0'"}, {"sample=", "''"}, {"sample=K", "'K'"},
        {"sample=10m", "'10m'"}, {"sample=-5", "'-5'"}, {"sample=1.5M", "'1.5M'"}, {"signal=KILL", "'KILL'"},
        {"signal=9", "'9'"}, {"signal=", "''"}, {"speed=3", "'speed'"}, {"load", "'load'"},
        {"load=1,", "''"}, {"load=1,,sample=2", "''"}, {"slice=", "''"}, {"slice=-1", "'-1'"}, {"slice=9999999", "'9999999'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hp_shadow_spec s;
        char err[200] = "";
        int rc = hp_shadow_spec_parse(bad[i].text, &s, err, sizeof err);
        CHECK(rc == -1);
        CHECK(strstr(err, bad[i].shown) != NULL);
        CHECK(strchr(err, '\n') == NULL);
        if (rc != -1 || !strstr(err, bad[i].shown)) fprintf(stderr, "  %s -> %s\n", bad[i].text, err);
    }
}

int main(void)
{
    RUN(defaults);
    RUN(round_trip);
    RUN(suffixes_and_limits);
    RUN(every_error_is_one_sentence);
    return test_main_end();
}

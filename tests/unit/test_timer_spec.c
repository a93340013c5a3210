/* test_timer_spec.c — core/control/timer_spec.c, the grammar of HOTPROF_TIMER and of the timer
 * options of `hotprof run`:
 *   - defaults (empty and NULL text);
 *   - parse(format(s)) == s over many generated settings (every engine, many L/K, frequencies,
 *     depths, debias values and every allowed signal);
 *   - the clock key: auto, perf, posix, its default (auto) and its refusals;
 *   - signal names and numbers (SIG prefix, RTMIN+N, RTMAX-N) and the refused ones;
 *   - every error: each key out of range or malformed, unknown keys, no '=', a trailing ',',
 *     each gives -1 with a sentence naming the key and the text.
 */
#include <string.h>
#include "core/base/rng.h"
#include "core/control/timer_spec.h"
#include "test.h"

TEST(defaults)
{
    hp_timer_spec s;
    char err[200];
    REQUIRE(hp_timer_spec_parse(NULL, &s, err, sizeof err) == 0);
    CHECK_EQ_U64(s.freq, HP_TIMER_DEFAULT_FREQ);
    CHECK_EQ_U64(s.len, 0);
    CHECK_EQ_U64(s.engine, HP_TIMER_ENGINE_OOL);
    CHECK_EQ_U64(s.debias, 0);
    CHECK_EQ_U64(s.signal, HP_TIMER_DEFAULT_SIGNAL);
    CHECK_EQ_U64(s.depth, HP_TIMER_DEFAULT_DEPTH);
    hp_timer_spec e;
    REQUIRE(hp_timer_spec_parse("", &e, err, sizeof err) == 0);
    CHECK(memcmp(&s, &e, sizeof s) == 0);
    char buf[200];
    hp_timer_spec_format(buf, sizeof buf, &s);
    CHECK_EQ_U64(s.clock, HP_TIMER_CLOCK_AUTO);
    CHECK(strcmp(buf, "freq=1000,engine=ool,debias=0,signal=39,depth=64,clock=auto") == 0);
}

TEST(keys_set_their_fields)
{
    hp_timer_spec s;
    char err[200];
    REQUIRE(hp_timer_spec_parse("freq=250,values=4/2,engine=tf,debias=8,signal=PROF,depth=16", &s, err, sizeof err) == 0);
    CHECK_EQ_U64(s.freq, 250);
    CHECK_EQ_U64(s.len, 4);
    CHECK_EQ_U64(s.every, 2);
    CHECK_EQ_U64(s.engine, HP_TIMER_ENGINE_TF);
    CHECK_EQ_U64(s.debias, 8);
    CHECK_EQ_U64(s.signal, 27);
    CHECK_EQ_U64(s.depth, 16);
    REQUIRE(hp_timer_spec_parse("values=4/2,values=off,freq=5,freq=7", &s, err, sizeof err) == 0);
    CHECK_EQ_U64(s.len, 0);
    CHECK_EQ_U64(s.freq, 7);
}

static int rand_signal(hp_rng *r)
{
    static const int plain[] = {10, 12, 14, 26, 27};
    uint64_t i = hp_rng_next(r) % 36;
    return i < 5 ? plain[i] : HP_TIMER_SIGRTMIN + (int)(i - 5);
}

TEST(format_parse_round_trip)
{
    hp_rng r;
    hp_rng_seed(&r, 12345);
    char buf[200], err[200];
    for (int i = 0; i < 5000; i++) {
        hp_timer_spec s = {.freq = 1 + (uint32_t)(hp_rng_next(&r) % HP_TIMER_MAX_FREQ),
                           .len = (uint32_t)(hp_rng_next(&r) % (HP_TIMER_MAX_LEN + 1)),
                           .engine = (int)(hp_rng_next(&r) % 3),
                           .debias = (uint32_t)(hp_rng_next(&r) % (HP_TIMER_MAX_DEBIAS + 1)),
                           .signal = rand_signal(&r),
                           .depth = 1 + (uint32_t)(hp_rng_next(&r) % 256),
                           .clock = (int)(hp_rng_next(&r) % 3)};
        s.every = s.len ? 1 + (uint32_t)(hp_rng_next(&r) % HP_TIMER_MAX_EVERY) : 0;
        size_t n = hp_timer_spec_format(buf, sizeof buf, &s);
        CHECK(n == strlen(buf));
        hp_timer_spec t;
        if (hp_timer_spec_parse(buf, &t, err, sizeof err) != 0 || memcmp(&s, &t, sizeof s) != 0) {
            CHECK(!"round trip");
            fprintf(stderr, "  %s: %s\n", buf, err);
            return;
        }
    }
    CHECK(1);
}

TEST(clock_key)
{
    static const struct { const char *text; int clock; } ok[] = {
        {"clock=auto", HP_TIMER_CLOCK_AUTO}, {"clock=perf", HP_TIMER_CLOCK_PERF}, {"clock=posix", HP_TIMER_CLOCK_POSIX},
        {"clock=posix,freq=9,clock=perf", HP_TIMER_CLOCK_PERF},
    };
    hp_timer_spec s;
    char err[200], buf[200];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK(hp_timer_spec_parse(ok[i].text, &s, err, sizeof err) == 0 && s.clock == ok[i].clock);
        hp_timer_spec_format(buf, sizeof buf, &s);
        CHECK(strstr(buf, hp_timer_clock_name(ok[i].clock)) != NULL);
    }
    int c = -1;
    CHECK(hp_timer_clock_parse("perf", &c, err, sizeof err) == 0 && c == HP_TIMER_CLOCK_PERF);
    CHECK(strcmp(hp_timer_clock_name(HP_TIMER_CLOCK_POSIX), "posix") == 0);
    CHECK(strcmp(hp_timer_clock_name(7), "?") == 0);
    static const char *const bad[] = {"hrtimer", "", "PERF", "perf ", "posi", "autoo"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(hp_timer_clock_parse(bad[i], &c, err, sizeof err) == -1);
        CHECK(strstr(err, "clock wants auto, perf or posix") == err);
    }
}

TEST(signal_names)
{
    int sig = 0;
    char err[200], name[32];
    static const struct { const char *text; int signo; } ok[] = {
        {"PROF", 27}, {"SIGPROF", 27}, {"27", 27}, {"USR1", 10}, {"SIGUSR2", 12}, {"ALRM", 14},
        {"VTALRM", 26}, {"RTMIN", 34}, {"RTMIN+5", 39}, {"SIGRTMIN+30", 64}, {"RTMAX", 64}, {"SIGRTMAX-2", 62}, {"40", 40},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK(hp_timer_signal_parse(ok[i].text, &sig, err, sizeof err) == 0 && sig == ok[i].signo);
        hp_timer_signal_name(name, sizeof name, ok[i].signo);
        CHECK(hp_timer_signal_parse(name, &sig, err, sizeof err) == 0 && sig == ok[i].signo);
    }
    static const char *const bad[] = {"SEGV", "KILL", "9", "11", "0", "65", "RTMIN+31", "RTMIN-1", "RTMAX+1",
                                      "SIG", "", "prof", "RTMIN+", "33", "32", "TRAP"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(hp_timer_signal_parse(bad[i], &sig, err, sizeof err) == -1);
        CHECK(strstr(err, "signal wants") != NULL);
    }
}

TEST(every_error_is_one_sentence_naming_the_key)
{
    static const struct { const char *text, *key, *shown; } bad[] = {
        {"values=0/0", "values wants", "0/0"}, {"values=65/1", "values wants", "65/1"},
        {"values=4/0", "values wants", "4/0"}, {"values=4", "values wants", "'4'"},
        {"values=/2", "values wants", "/2"}, {"values=4/2x", "values wants", "4/2x"},
        {"values=4/1000001", "values wants", "1000001"}, {"freq=0", "freq wants", "'0'"},
        {"freq=100001", "freq wants", "100001"}, {"freq=-5", "freq wants", "-5"}, {"freq=", "freq wants", "''"},
        {"engine=jit", "engine wants", "jit"}, {"debias=65", "debias wants", "65"},
        {"depth=0", "depth wants", "'0'"}, {"depth=257", "depth wants", "257"},
        {"signal=SEGV", "signal wants", "SEGV"}, {"clock=tsc", "clock wants", "tsc"}, {"speed=3", "HOTPROF_TIMER wants", "speed"},
        {"freq", "HOTPROF_TIMER wants", "freq"}, {"freq=5,", "HOTPROF_TIMER wants", "freq=5,"},
        {"freq=5,,depth=3", "HOTPROF_TIMER wants", "''"}, {"freq = 5", "HOTPROF_TIMER wants", "freq "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hp_timer_spec s;
        char err[200] = "";
        int rc = hp_timer_spec_parse(bad[i].text, &s, err, sizeof err);
        CHECK(rc == -1);
        CHECK(strstr(err, bad[i].key) == err);
        CHECK(strstr(err, bad[i].shown) != NULL);
        if (rc != -1 || strstr(err, bad[i].key) != err) fprintf(stderr, "  %s -> %s\n", bad[i].text, err);
    }
    uint32_t l, k;
    char err[200];
    CHECK(hp_timer_values_parse("0/0", &l, &k, err, sizeof err) == -1 && strstr(err, "L/K"));
    CHECK(hp_timer_values_parse("4/2", &l, &k, err, sizeof err) == 0 && l == 4 && k == 2);
    CHECK(hp_timer_values_parse("64/1", &l, &k, err, sizeof err) == 0 && l == 64 && k == 1);
}

int main(void)
{
    RUN(defaults);
    RUN(keys_set_their_fields);
    RUN(format_parse_round_trip);
    RUN(clock_key);
    RUN(signal_names);
    RUN(every_error_is_one_sentence_naming_the_key);
    return test_main_end();
}

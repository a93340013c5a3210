/* test_rt_config.c — runtime/config.c, every HOTPROF_* variable read once into hp_rt_config,
 * linked alone (libhotprof_rtparts.a: no runtime constructor runs):
 *   - defaults with an empty environment; what each variable sets;
 *   - what a bad value does, per variable (config.h's table): HOTPROF_SAMPLE and HOTPROF_SEED stop
 *     profiling with one message (issue 8, defect 8), the others fall back;
 *   - each variable is read at most once per parse (a counting getenv);
 *   - HOTPROF_TIMER: read into c.timer in timer mode only; a bad one stops profiling;
 *   - HOTPROF_SEED against an oracle (property test): a decimal or 0x-hex u64 with nothing else is
 *     accepted with its value, every other text (signs, spaces, junk, overflow) is rejected.
 */
#include <string.h>
#include "core/base/rng.h"
#include "core/control/spec.h"
#include "runtime/config.h"
#include "test.h"

static int parse(hp_rt_config *c, const char *const *vars)
{
    return hp_rt_config_from_envp(c, (char *const *)vars);
}

TEST(empty_environment_gives_the_defaults)
{
    const char *env[] = {NULL};
    hp_rt_config c;
    REQUIRE(parse(&c, env) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_EXHAUSTIVE);
    CHECK(c.mode_unknown == NULL);
    CHECK_EQ_U64(c.quiet, 0);
    CHECK_EQ_U64(c.follow_fork, 0);
    CHECK(strcmp(c.output, HP_SPEC_DEFAULT_OUTPUT) == 0);
    CHECK_EQ_U64(c.seed_given, 0);
    CHECK_EQ_U64(c.claimed_given, 0);
    CHECK_EQ_U64(c.bursts, HP_BURSTS_AUTO);
    CHECK_EQ_U64(c.bursts_unknown, 0);
    CHECK_EQ_U64(c.window, HP_SPEC_DEFAULT_WINDOW);
    CHECK_EQ_U64(c.xray, HP_XRAY_WISH_AUTO);
    CHECK(c.error[0] == 0);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        CHECK_EQ_U64(c.sample[t].enabled, (HP_SAMPLE_DEFAULT_TYPES >> t) & 1);
        CHECK_EQ_U64(c.sample[t].period, HP_SAMPLE_DEFAULT_PERIOD);
        CHECK_EQ_U64(c.sample[t].burst, HP_SAMPLE_DEFAULT_BURST);
    }
}

TEST(each_variable_sets_its_field)
{
    const char *env[] = {"HOTPROF_MODE=bursty", "HOTPROF_QUIET=1", "HOTPROF_FOLLOW_FORK=1",
                         "HOTPROF_OUTPUT=out.%p", "HOTPROF_SEED=0x10", "HOTPROF_CLAIMED=123",
                         "HOTPROF_SAMPLE=edges:period=50,burst=5,jitter=10", "HOTPROF_BURSTS=live",
                         "HOTPROF_WINDOW=7", "HOTPROF_XRAY=1", "OTHER=x", NULL};
    hp_rt_config c;
    REQUIRE(parse(&c, env) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_BURSTY);
    CHECK_EQ_U64(c.quiet, 1);
    CHECK_EQ_U64(c.follow_fork, 1);
    CHECK(strcmp(c.output, "out.%p") == 0);
    CHECK_EQ_U64(c.seed_given, 1);
    CHECK_EQ_U64(c.seed, 16);
    CHECK_EQ_U64(c.claimed_given, 1);
    CHECK_EQ_U64(c.claimed, 123);
    CHECK_EQ_U64(c.sample[HP_BURSTY_METHODS].enabled, 0); /* a spec names exactly its types */
    CHECK_EQ_U64(c.sample[HP_BURSTY_EDGES].enabled, 1);
    CHECK_EQ_U64(c.sample[HP_BURSTY_EDGES].period, 50);
    CHECK_EQ_U64(c.sample[HP_BURSTY_EDGES].burst, 5);
    CHECK_EQ_U64(c.sample[HP_BURSTY_EDGES].jitter_pct, 10);
    CHECK_EQ_U64(c.bursts, HP_BURSTS_LIVE);
    CHECK_EQ_U64(c.window, 7);
    CHECK_EQ_U64(c.xray, HP_XRAY_WISH_REQUIRED);
}

TEST(mode_follows_sample_when_unset_and_unknown_modes_are_named)
{
    hp_rt_config c;
    const char *sample_only[] = {"HOTPROF_SAMPLE=methods", NULL};
    REQUIRE(parse(&c, sample_only) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_BURSTY);
    const char *empty_mode[] = {"HOTPROF_MODE=", "HOTPROF_SAMPLE=methods", NULL};
    REQUIRE(parse(&c, empty_mode) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_BURSTY);
    const char *exh[] = {"HOTPROF_MODE=exhaustive", "HOTPROF_SAMPLE=methods", NULL};
    REQUIRE(parse(&c, exh) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_EXHAUSTIVE);
    const char *off[] = {"HOTPROF_MODE=off", NULL};
    REQUIRE(parse(&c, off) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_OFF);
    const char *odd[] = {"HOTPROF_MODE=fast", NULL};
    REQUIRE(parse(&c, odd) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_EXHAUSTIVE);
    CHECK(c.mode_unknown && strcmp(c.mode_unknown, "fast") == 0);
}

TEST(bad_sample_stops_profiling_only_when_it_is_used)
{
    hp_rt_config c;
    const char *bursty[] = {"HOTPROF_SAMPLE=methods:period=x", NULL};
    CHECK(parse(&c, bursty) == -1);
    CHECK(strncmp(c.error, "hotprof: bad HOTPROF_SAMPLE: ", 29) == 0);
    CHECK(strstr(c.error, "(not profiling)") != NULL);
    const char *exh[] = {"HOTPROF_MODE=exhaustive", "HOTPROF_SAMPLE=methods:period=x", NULL};
    CHECK(parse(&c, exh) == 0); /* exhaustive does not read the spec */
    CHECK(c.error[0] == 0);
}

TEST(bad_seed_stops_profiling_in_every_recording_mode)
{
    static const char *const bad[] = {"abc", "-5", "+5", "18446744073709551616", "12abc", " 5", "0x", "5 ",
                                      "0x1ffffffffffffffff"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char var[64];
        snprintf(var, sizeof var, "HOTPROF_SEED=%s", bad[i]);
        const char *env[] = {var, NULL};
        const char *bursty[] = {var, "HOTPROF_MODE=bursty", NULL};
        const char *off[] = {var, "HOTPROF_MODE=off", NULL};
        hp_rt_config c;
        CHECK(parse(&c, env) == -1);
        CHECK(strncmp(c.error, "hotprof: bad HOTPROF_SEED: ", 27) == 0);
        CHECK(strstr(c.error, bad[i]) != NULL);
        CHECK_EQ_U64(c.seed_given, 0);
        CHECK(parse(&c, bursty) == -1);
        CHECK(parse(&c, off) == 0); /* off reads nothing it does not use */
    }
    const char *empty[] = {"HOTPROF_SEED=", NULL};
    hp_rt_config c;
    CHECK(parse(&c, empty) == 0); /* empty is unset: a random seed */
    CHECK_EQ_U64(c.seed_given, 0);
}

TEST(lax_settings_fall_back_as_before)
{
    hp_rt_config c;
    const char *a[] = {"HOTPROF_BURSTS=fast", "HOTPROF_WINDOW=0", "HOTPROF_XRAY=maybe", "HOTPROF_QUIET=yes",
                       "HOTPROF_FOLLOW_FORK=0", "HOTPROF_CLAIMED=x", NULL};
    REQUIRE(parse(&c, a) == 0);
    CHECK_EQ_U64(c.bursts, HP_BURSTS_AUTO);
    CHECK_EQ_U64(c.bursts_unknown, 1);
    CHECK_EQ_U64(c.window, HP_SPEC_DEFAULT_WINDOW);
    CHECK_EQ_U64(c.xray, HP_XRAY_WISH_AUTO);
    CHECK_EQ_U64(c.quiet, 1); /* any text but "" and "0" is on */
    CHECK_EQ_U64(c.follow_fork, 0);
    CHECK_EQ_U64(c.claimed_given, 1);
    CHECK_EQ_U64(c.claimed, 0); /* matches no process: the output gets a .<pid> suffix */
    const char *b[] = {"HOTPROF_WINDOW=1073741825", "HOTPROF_XRAY=0", "HOTPROF_BURSTS=patch", NULL};
    REQUIRE(parse(&c, b) == 0);
    CHECK_EQ_U64(c.window, HP_SPEC_DEFAULT_WINDOW);
    CHECK_EQ_U64(c.xray, HP_XRAY_WISH_NEVER);
    CHECK_EQ_U64(c.bursts, HP_BURSTS_PATCH);
    CHECK_EQ_U64(c.bursts_unknown, 0);
    const char *w[] = {"HOTPROF_WINDOW=1073741824", NULL};
    REQUIRE(parse(&c, w) == 0);
    CHECK_EQ_U64(c.window, 1073741824u);
}

/* A getenv that counts reads per name, over a fixed environment. */
static struct { const char *name; int reads; } g_reads[32];
static const char *counting_get(const char *name, void *arg)
{
    int i = 0;
    while (g_reads[i].name && strcmp(g_reads[i].name, name) != 0) i++;
    if (!g_reads[i].name) g_reads[i].name = name;
    g_reads[i].reads++;
    char *const *env = arg;
    size_t n = strlen(name);
    for (; *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
    return NULL;
}

TEST(every_variable_is_read_once)
{
    char *env[] = {"HOTPROF_MODE=bursty", "HOTPROF_SEED=5", "HOTPROF_SAMPLE=methods", "HOTPROF_QUIET=1", NULL};
    memset(g_reads, 0, sizeof g_reads);
    hp_rt_config c;
    int rc = hp_rt_config_parse(&c, counting_get, env); /* once: REQUIRE evaluates twice */
    REQUIRE(rc == 0);
    int names = 0;
    for (int i = 0; g_reads[i].name; i++, names++) CHECK_EQ_U64(g_reads[i].reads, 1);
    CHECK(names >= 10); /* MODE SAMPLE SEED CLAIMED BURSTS WINDOW XRAY QUIET FOLLOW_FORK OUTPUT */
}

/* The oracle: a u64 written in decimal or 0x hex with nothing else around it. */
static int oracle_seed(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s += 2;
    if (!*s) return -1;
    unsigned __int128 v = 0;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;
        if (d >= (int)base) return -1;
        v = v * base + (unsigned)d;
        if (v > UINT64_MAX) return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

TEST(seed_matches_its_oracle_on_random_texts)
{
    static const char alphabet[] = "0123456789abcdefxX -+";
    hp_rng r;
    hp_rng_seed(&r, 8);
    for (int i = 0; i < 20000; i++) {
        char text[40], var[64];
        if (i % 3 == 0) { /* a valid number, decimal or hex, sometimes near the top */
            uint64_t v = i % 2 ? hp_rng_next(&r) : hp_rng_below(&r, 1000);
            snprintf(text, sizeof text, i % 6 == 0 ? "0x%llx" : "%llu", (unsigned long long)v);
        } else { /* random text over digits, hex letters, signs and spaces */
            size_t n = 1 + hp_rng_below(&r, 22);
            for (size_t k = 0; k < n; k++) text[k] = alphabet[hp_rng_below(&r, sizeof alphabet - 1)];
            text[n] = 0;
        }
        snprintf(var, sizeof var, "HOTPROF_SEED=%s", text);
        const char *env[] = {var, NULL};
        hp_rt_config c;
        uint64_t want = 0;
        int ok = oracle_seed(text, &want) == 0;
        int rc = parse(&c, env);
        CHECK_EQ_U64(rc == 0, ok);
        if (ok && rc == 0) CHECK_EQ_U64(c.seed, want);
        if (rc != 0 && ok) fprintf(stderr, "  rejected '%s'\n", text);
    }
}

/* The subpath clause: sampled in bursty mode; in exhaustive mode the only clause read (exact
 * counter), a bad one stops profiling there too; absent: disabled. */
TEST(subpath_clause_in_both_modes)
{
    hp_rt_config c;
    const char *none[] = {"HOTPROF_SAMPLE=methods", NULL};
    CHECK(parse(&c, none) == 0 && !c.osp.enabled);
    const char *bursty[] = {"HOTPROF_SAMPLE=methods;subpath:mem=2K", NULL};
    CHECK(parse(&c, bursty) == 0 && c.osp.enabled && c.osp.mem == 2048 && c.sample[HP_BURSTY_METHODS].enabled);
    const char *exh[] = {"HOTPROF_MODE=exhaustive", "HOTPROF_SAMPLE=methods:period=x;subpath:enc=exact", NULL};
    CHECK(parse(&c, exh) == 0 && c.osp.enabled && c.osp.enc == 1);
    const char *bad[] = {"HOTPROF_MODE=exhaustive", "HOTPROF_SAMPLE=subpath:mem=1", NULL};
    CHECK(parse(&c, bad) == -1);
    CHECK(strstr(c.error, "subpath:mem=1: too small: at least 1K") != NULL);
}

/* HOTPROF_TIMER is read only in timer mode; a bad one stops profiling with one message. */
TEST(timer_settings_in_timer_mode_only)
{
    hp_rt_config c;
    const char *good[] = {"HOTPROF_MODE=timer", "HOTPROF_TIMER=freq=250,values=4/2,signal=PROF,depth=16", NULL};
    REQUIRE(parse(&c, good) == 0);
    CHECK_EQ_U64(c.mode, HP_RUN_TIMER);
    CHECK_EQ_U64(c.timer.freq, 250);
    CHECK_EQ_U64(c.timer.len, 4);
    CHECK_EQ_U64(c.timer.every, 2);
    CHECK_EQ_U64(c.timer.signal, 27);
    CHECK_EQ_U64(c.timer.depth, 16);
    const char *dflt[] = {"HOTPROF_MODE=timer", NULL};
    REQUIRE(parse(&c, dflt) == 0);
    CHECK_EQ_U64(c.timer.freq, HP_TIMER_DEFAULT_FREQ);
    CHECK_EQ_U64(c.timer.signal, HP_TIMER_DEFAULT_SIGNAL);
    const char *bad[] = {"HOTPROF_MODE=timer", "HOTPROF_TIMER=values=0/0", NULL};
    CHECK(parse(&c, bad) == -1);
    CHECK(strstr(c.error, "hotprof: bad HOTPROF_TIMER: values wants") == c.error);
    CHECK(strstr(c.error, "(not profiling)") != NULL);
    const char *other[] = {"HOTPROF_MODE=exhaustive", "HOTPROF_TIMER=values=0/0", NULL};
    CHECK(parse(&c, other) == 0);
    CHECK_EQ_U64(c.timer.len, 0);
}

/* HOTPROF_TRACE_PID: which process's images trace (an exec'd image appends; others do not). */
TEST(trace_pid_names_the_tracing_process)
{
    hp_rt_config c;
    const char *none[] = {"HOTPROF_TRACE=/tmp/t.raw", NULL};
    REQUIRE(parse(&c, none) == 0);
    CHECK(!c.trace_pid_given && c.trace != NULL);
    const char *given[] = {"HOTPROF_TRACE=/tmp/t.raw", "HOTPROF_TRACE_PID=4242", "HOTPROF_TRACE_KIND=values", NULL};
    REQUIRE(parse(&c, given) == 0);
    CHECK(c.trace_pid_given && c.trace_pid == 4242 && c.trace_kind == 1);
    const char *junk[] = {"HOTPROF_TRACE_PID=x", NULL};
    REQUIRE(parse(&c, junk) == 0);
    CHECK(c.trace_pid_given && c.trace_pid == 0); /* matches no process: nothing traces */
}

int main(void)
{
    RUN(trace_pid_names_the_tracing_process);
    RUN(empty_environment_gives_the_defaults);
    RUN(each_variable_sets_its_field);
    RUN(mode_follows_sample_when_unset_and_unknown_modes_are_named);
    RUN(bad_sample_stops_profiling_only_when_it_is_used);
    RUN(bad_seed_stops_profiling_in_every_recording_mode);
    RUN(lax_settings_fall_back_as_before);
    RUN(every_variable_is_read_once);
    RUN(seed_matches_its_oracle_on_random_texts);
    RUN(subpath_clause_in_both_modes);
    RUN(timer_settings_in_timer_mode_only);
    return test_main_end();
}

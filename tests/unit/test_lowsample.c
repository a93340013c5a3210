/* test_lowsample.c — analysis/lowsample.c: which profiles count as sampled (bursty, patch, xray,
 * a future mode that records <mode>.sampled_entries; never exhaustive, timer, shadow or a profile
 * without a mode), their samples (INFO total.calls + total.backedges, + loads and stores while
 * datastream is on) and the warning's threshold
 * (fewer than HP_MIN_MEANINGFUL_SAMPLES warns, exactly that many does not); the message is one
 * line short enough for the report header's 100 columns. */
#include "analysis/lowsample.h"
#include "test.h"
#include <string.h>

/* A profile holding only INFO: up to 4 key/value pairs. */
typedef struct fake { hp_profile p; hp_info_kv kv[4]; } fake;

static hp_profile *with_info(fake *f, const char *mode, const char *calls, const char *backedges, const char *extra)
{
    memset(f, 0, sizeof *f);
    size_t n = 0;
    if (mode) f->kv[n++] = (hp_info_kv){(char *)"mode", (char *)mode};
    if (calls) f->kv[n++] = (hp_info_kv){(char *)"total.calls", (char *)calls};
    if (backedges) f->kv[n++] = (hp_info_kv){(char *)"total.backedges", (char *)backedges};
    if (extra) f->kv[n++] = (hp_info_kv){(char *)extra, (char *)"1"};
    f->p.info = f->kv;
    f->p.ninfo = n;
    return &f->p;
}

static int warns(hp_profile *p)
{
    char buf[256];
    int w = hp_low_sample_warning(p, buf, sizeof buf);
    return w && strstr(buf, "not meaningful") ? 1 : w ? -1 : (buf[0] ? -1 : 0);
}

TEST(sampled_modes_are_recognized)
{
    fake f;
    uint64_t n;
    CHECK(hp_profile_samples(with_info(&f, "bursty", "10", "5", NULL), &n) == 1 && n == 15);
    CHECK(hp_profile_samples(with_info(&f, "patch", "7", NULL, NULL), &n) == 1 && n == 7);
    CHECK(hp_profile_samples(with_info(&f, "xray", "3", "0", NULL), &n) == 1 && n == 3);
    CHECK(hp_profile_samples(with_info(&f, "count", "2", "2", "count.sampled_entries"), &n) == 1 && n == 4);
    CHECK(hp_profile_samples(with_info(&f, "count", "2", "2", NULL), &n) == 0 && n == 0);
    CHECK(hp_profile_samples(with_info(&f, "exhaustive", "5", "5", NULL), &n) == 0);
    CHECK(hp_profile_samples(with_info(&f, "timer", "5", "5", "timer.sampled_entries"), &n) == 0);
    CHECK(hp_profile_samples(with_info(&f, "shadow", "5", "5", NULL), &n) == 0);
    CHECK(hp_profile_samples(with_info(&f, NULL, "5", "5", NULL), &n) == 0);
}

/* A bursty run with no HPS type on (--sample subpath alone) recorded no HPS samples: it used to
 * be warned "only 0 samples" under "sampling bursty (HPS): no HPS type on". */
TEST(no_hps_type_on_is_not_warned)
{
    fake f;
    uint64_t n;
    with_info(&f, "bursty", "0", "0", NULL);
    f.kv[2] = (hp_info_kv){(char *)"sample.methods.enabled", (char *)"0"};
    f.kv[3] = (hp_info_kv){(char *)"sample.edges.enabled", (char *)"0"};
    f.p.ninfo = 4;
    CHECK(hp_profile_samples(&f.p, &n) == 0);
    CHECK(warns(&f.p) == 0);
    f.kv[3].value = (char *)"1"; /* edges on: its 0 samples are warned about */
    CHECK(hp_profile_samples(&f.p, &n) == 1);
    CHECK(warns(&f.p) == 1);
}

/* A run that samples data streams alone records data references, not calls or back-edges: a
 * count-mode run on a dual-memory build with 125 400 references sampled was warned "only 0
 * samples". Its loads and stores are its samples; they count only while datastream is on. */
TEST(datastream_samples_are_its_references)
{
    hp_info_kv kv[6] = {{(char *)"mode", (char *)"bursty"},        {(char *)"total.calls", (char *)"0"},
                        {(char *)"total.backedges", (char *)"0"},  {(char *)"total.loads", (char *)"900"},
                        {(char *)"total.stores", (char *)"100"},   {(char *)"sample.datastream.enabled", (char *)"1"}};
    hp_profile p;
    memset(&p, 0, sizeof p);
    p.info = kv;
    p.ninfo = 6;
    uint64_t n;
    CHECK(hp_profile_samples(&p, &n) == 1 && n == 1000);
    CHECK(warns(&p) == 0);
    kv[3].value = (char *)"899";
    char buf[256];
    CHECK(hp_low_sample_warning(&p, buf, sizeof buf) == 1 && strstr(buf, "only 999 samples") && strlen(buf) < 90);
    kv[5].value = (char *)"0"; /* datastream off (so no HPS type on: not warned) */
    CHECK(hp_profile_samples(&p, &n) == 0);
    kv[5].key = (char *)"sample.methods.enabled", kv[5].value = (char *)"1"; /* methods on: references are not its samples */
    CHECK(hp_profile_samples(&p, &n) == 1 && n == 0);
}

TEST(threshold_is_strict)
{
    fake f;
    CHECK(warns(with_info(&f, "patch", "999", "0", NULL)) == 1);
    CHECK(warns(with_info(&f, "patch", "500", "499", NULL)) == 1);
    CHECK(warns(with_info(&f, "patch", "500", "500", NULL)) == 0);
    CHECK(warns(with_info(&f, "bursty", NULL, NULL, NULL)) == 1); /* nothing recorded at all */
    CHECK(warns(with_info(&f, "xray", "1000000", "0", NULL)) == 0);
    CHECK(warns(with_info(&f, "exhaustive", "1", "0", NULL)) == 0);
}

TEST(message_names_the_count_and_fits_a_small_buffer)
{
    fake f;
    char buf[256], tiny[16];
    REQUIRE(hp_low_sample_warning(with_info(&f, "patch", "12", "30", NULL), buf, sizeof buf) == 1);
    CHECK(strstr(buf, "only 42 samples") != NULL);
    CHECK(strchr(buf, '\n') == NULL);
    REQUIRE(hp_low_sample_warning(with_info(&f, "patch", "999", "0", NULL), buf, sizeof buf) == 1);
    CHECK(strlen(buf) < 90); /* "  WARNING  " + it + ";" fits the report's 100 columns */
    CHECK(hp_low_sample_warning(with_info(&f, "patch", "12", "30", NULL), tiny, sizeof tiny) == 1);
    CHECK(strlen(tiny) == sizeof tiny - 1);
}

int main(void)
{
    RUN(sampled_modes_are_recognized);
    RUN(no_hps_type_on_is_not_warned);
    RUN(datastream_samples_are_its_references);
    RUN(threshold_is_strict);
    RUN(message_names_the_count_and_fits_a_small_buffer);
    return test_main_end();
}

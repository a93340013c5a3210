/* test_subpath.c — the subpath profile type on the analysis side (analysis/ptype/subpath*.c):
 * SUBPATHS records decoded and summed by key (estimates = weight / p_length, block map
 * resolution, ranking by estimate and by weight=length), hostile records refused with one
 * message, Chernoff bounds against the paper's Table 4.9/4.10 figures (osp.h), path text
 * collapsing, the --threshold filter, --type / shown, compare's subpath figures on two
 * profiles whose answer is worked out by hand, and merge (sums; lists of other kinds refused).
 */
#define _GNU_SOURCE
#include "analysis/merge/merge.h"
#include "analysis/profbuild.h"
#include "analysis/ptype/aptype.h"
#include "analysis/ptype/subpath.h"
#include "test.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sp { uint64_t key, count; double weight, p_length; uint32_t length, nblocks; uint32_t g[8]; } sp;

/* Appends the encoded records to buf (at most 2048 bytes); returns the bytes. */
static size_t encode(uint8_t *buf, const sp *r, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        hp_rec_subpath rec = {r[i].key, r[i].count, r[i].weight, r[i].p_length, r[i].length, r[i].nblocks};
        hp_fmt_put_subpath(buf + len, &rec);
        len += HP_REC_SUBPATH_FIXED;
        for (uint32_t k = 0; k < r[i].nblocks; k++, len += 4)
            for (int b = 0; b < 4; b++) buf[len + b] = (uint8_t)(r[i].g[k] >> (8 * b));
    }
    return len;
}

/* A profile with the given INFO (subpath.* lines), a block map of guards 1..4 and one or two
 * SUBPATHS sections; NULL with err on a refusal. */
static hp_profile *profile(const char *info, const uint8_t *s1, size_t n1, const uint8_t *s2, size_t n2, char *err,
                           size_t errlen)
{
    hp_pbuild b;
    hp_rec_block map[4] = {{1, 1, 0x401100}, {2, 0, 0x401110}, {3, 0, 0x401130}, {4, 0, 0x401200}};
    char text[512];
    snprintf(text, sizeof text, "program=/bin/demo\nmode=exhaustive\n%s", info);
    hp_pbuild_init(&b, 1);
    hp_pbuild_info(&b, text);
    hp_pbuild_blockmap(&b, map, 4);
    hp_pbuild_thread(&b, 1, 10);
    hp_pbuild_section(&b, HP_SEC_SUBPATHS, s1, n1);
    if (s2) hp_pbuild_section(&b, HP_SEC_SUBPATHS, s2, n2);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "t", err, errlen);
    hp_pbuild_free(&b);
    return p;
}

static const char *const SAMPLED = "subpath.summary=sampled\nsubpath.params=mem=65536,len=pow2,maxlen=32,enc=xor,"
                                   "minf=64,weight=count\nsubpath.blocks=100000\n";

TEST(decode_sums_by_key_and_ranks_by_estimate)
{
    sp a[2] = {{0xa, 10, 100, 0.5, 2, 2, {1, 2}}, {0xb, 30, 90, 0.25, 4, 4, {1, 2, 3, 4}}};
    sp c[1] = {{0xa, 5, 60, 0.5, 2, 2, {1, 2}}};
    uint8_t s1[2048], s2[2048];
    char err[256];
    size_t n1 = encode(s1, a, 2), n2 = encode(s2, c, 1);
    hp_profile *p = profile(SAMPLED, s1, n1, s2, n2, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nsubpaths, 2);
    /* 0xb: 90 / 0.25 = 360 is hotter than 0xa: (100 + 60) / 0.5 = 320 */
    CHECK_EQ_U64(p->subpaths[0].key, 0xb);
    CHECK(fabs(p->subpaths[0].estimate - 360) < 1e-9);
    CHECK_EQ_U64(p->subpaths[1].key, 0xa);
    CHECK_EQ_U64(p->subpaths[1].count, 15);
    CHECK(fabs(p->subpaths[1].estimate - 320) < 1e-9);
    CHECK_EQ_U64(p->subpaths[0].nblocks, 4);
    CHECK_EQ_U64(p->subpaths[0].guards[3], 4);
    CHECK_EQ_U64(p->subpaths[0].pcs[3], 0x401200);
    /* costs: next block pc - pc (0x10, 0x20, 0xd0), the last one capped at 256 */
    CHECK(fabs(p->subpaths[0].cost - (0x10 + 0x20 + 0xd0 + 256)) < 1e-9);
    hp_profile_free(p);
}

TEST(weight_length_ranks_by_estimate_times_length)
{
    sp a[2] = {{0xa, 10, 100, 0.5, 2, 2, {1, 2}}, {0xb, 30, 60, 0.5, 4, 4, {1, 2, 3, 4}}};
    uint8_t s1[2048];
    char err[256];
    size_t n1 = encode(s1, a, 2);
    hp_profile *p = profile("subpath.params=enc=xor,weight=length\n", s1, n1, NULL, 0, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->subpaths[0].key, 0xb); /* 120 x 4 = 480 > 200 x 2 = 400 */
    CHECK(fabs(p->subpaths[0].ranked - 480) < 1e-9);
    CHECK(fabs(p->subpaths[1].ranked - 400) < 1e-9);
    CHECK(hp_subpath_weighting(p) == HP_SUBPATH_BY_LENGTH);
    hp_profile_free(p);
}

/* The record r (cut bytes shorter), spoiled, must be refused with a message naming the defect. */
static void refused(sp r, size_t cut, const char *why)
{
    uint8_t s1[2048];
    char err[256] = "";
    size_t n1 = encode(s1, &r, 1) - cut;
    hp_profile *p = profile(SAMPLED, s1, n1, NULL, 0, err, sizeof err);
    CHECK(p == NULL);
    CHECK(strstr(err, "corrupt subpath record") != NULL && strstr(err, why) != NULL);
    if (!strstr(err, why)) fprintf(stderr, "  got: %s\n", err);
    hp_profile_free(p);
}

TEST(hostile_records_are_refused_with_one_message)
{
    sp good = {0xa, 10, 100, 0.5, 2, 2, {1, 2}};
    sp r = good;
    r.length = 0, r.nblocks = 0, refused(r, 0, "length");
    r = good, r.length = HP_SUBPATH_MAX_LENGTH + 1, refused(r, 0, "length");
    r = good, r.length = 1, refused(r, 0, "more blocks");
    r = good, refused(r, 4, "past the section");
    r = good, r.nblocks = 0, refused(r, 1, "cut short");
    r = good, r.p_length = 0, refused(r, 0, "p_length");
    r = good, r.p_length = 1.5, refused(r, 0, "p_length");
    r = good, r.p_length = NAN, refused(r, 0, "p_length");
    r = good, r.weight = -1, refused(r, 0, "weight");
    r = good, r.weight = NAN, refused(r, 0, "weight");
    r = good, r.weight = INFINITY, refused(r, 0, "weight");
}

TEST(bounds_match_the_papers_tables)
{
    /* Tables 4.9/4.10: a subpath sampled 109 times: eps = sqrt(c ln(1/(1-conf)) / 109), c = 6 two-sided,
     * 2 one-sided: 95% 40.6% / 23.4%, 80% 29.8% / 17.2% (the paper rounds ln 20 to 3: 40.64 / 23.46). */
    sp a[1] = {{0xa, 109, 500, 0.5, 2, 2, {1, 2}}};
    uint8_t s1[2048];
    char err[256];
    hp_profile *p = profile(SAMPLED, s1, encode(s1, a, 1), NULL, 0, err, sizeof err);
    REQUIRE(p != NULL);
    hp_subpath_bounds b = hp_subpath_bounds_of(p, &p->subpaths[0]);
    CHECK(fabs(b.error95 - 0.4061) < 5e-4);
    CHECK(fabs(b.lo95 - 1000 * (1 - 0.4061)) < 0.5 && fabs(b.hi95 - 1000 * (1 + 0.4061)) < 0.5);
    CHECK(fabs(b.lower95 - 1000 * (1 - 0.2345)) < 0.5);
    CHECK(fabs(b.lo80 - 1000 * (1 - 0.2976)) < 0.5 && fabs(b.hi80 - 1000 * (1 + 0.2976)) < 0.5);
    CHECK(fabs(b.lower80 - 1000 * (1 - 0.1718)) < 0.5);
    /* --threshold: lower95 ~ 765.5 of 100000 blocks is 0.77%: passes 0.7, not 0.8 */
    CHECK(hp_subpath_passes(p, &p->subpaths[0], 0.7));
    CHECK(!hp_subpath_passes(p, &p->subpaths[0], 0.8));
    hp_profile_free(p);
    /* an exact profile: no error */
    p = profile("subpath.summary=exact\n", s1, encode(s1, a, 1), NULL, 0, err, sizeof err);
    REQUIRE(p != NULL);
    b = hp_subpath_bounds_of(p, &p->subpaths[0]);
    CHECK(b.lo95 == 1000 && b.hi95 == 1000 && b.lower95 == 1000);
    hp_profile_free(p);
}

TEST(path_text_collapses_and_report_filters)
{
    sp a[2] = {{0xa, 109, 500, 0.5, 4, 4, {1, 1, 2, 9}}, {0xb, 2, 2, 0.5, 2, 0, {0}}};
    uint8_t s1[2048];
    char err[256], *buf = NULL;
    size_t len = 0;
    hp_profile *p = profile(SAMPLED, s1, encode(s1, a, 2), NULL, 0, err, sizeof err);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    /* no modules: a block without a symbol shows its pc; guard 9 is not in the map; 1, 1 collapse */
    char *t = hp_subpath_path_text(s, &p->subpaths[0]);
    CHECK(t && strcmp(t, "0x401100 → 0x401110 → guard 9") == 0);
    if (t && strcmp(t, "0x401100 → 0x401110 → guard 9")) fprintf(stderr, "  path: %s\n", t);
    free(t);
    hp_report_opts o = {.top = 0, .format = HP_FORMAT_TEXT, .threshold = 0.7};
    FILE *f = open_memstream(&buf, &len);
    CHECK(hp_subpath_text(f, p, s, &o) == 0);
    fclose(f);
    CHECK(buf && strstr(buf, "Hot subpaths: 1 of 2") && strstr(buf, "guard 9") && !strstr(buf, "blocks not kept"));
    free(buf);
    /* shown only with subpaths; --type subpath shows it, --type methods hides it */
    hp_report_opts typed = {.fold_type = "subpaths"}, other = {.fold_type = "methods"}, none = {0};
    CHECK(hp_aptype_shown(hp_aptypes[HP_PT_SUBPATH], p, &none));
    CHECK(hp_aptype_shown(hp_aptypes[HP_PT_SUBPATH], p, &typed));
    CHECK(!hp_aptype_shown(hp_aptypes[HP_PT_SUBPATH], p, &other));
    CHECK(!hp_aptype_shown(hp_aptypes[HP_PT_METHODS], p, &typed));
    CHECK(hp_aptype_held(hp_aptypes[HP_PT_SUBPATH], p) && !hp_aptype_held(hp_aptypes[HP_PT_METHODS], p));
    hp_sym_close(s);
    hp_profile_free(p);
}

TEST(compare_figures_on_a_worked_example)
{
    /* exact: keys 1..6 with counts 600, 500, 400, 300, 200, 100 (p_length 1) */
    sp e[6], x[5];
    for (int i = 0; i < 6; i++) e[i] = (sp){(uint64_t)i + 1, (uint64_t)(600 - 100 * i), 600 - 100 * i, 1, 2, 2, {1, 2}};
    /* sampled (p_length 0.5): 1: 660 (10% high, 121 samples), 2: 500, 3: 300 (25% low), 5: 350 (above 3 and 4),
     * 4: 300; key 6 missed */
    x[0] = (sp){1, 121, 330, 0.5, 2, 2, {1, 2}};
    x[1] = (sp){2, 100, 250, 0.5, 2, 2, {1, 2}};
    x[2] = (sp){3, 100, 150, 0.5, 2, 2, {1, 2}};
    x[3] = (sp){5, 100, 175, 0.5, 2, 2, {1, 2}};
    x[4] = (sp){4, 100, 149.5, 0.5, 2, 2, {1, 2}};
    uint8_t s1[2048], s2[2048];
    char err[256];
    hp_profile *b = profile("subpath.summary=exact\n", s1, encode(s1, e, 6), NULL, 0, err, sizeof err);
    hp_profile *a = profile(SAMPLED, s2, encode(s2, x, 5), NULL, 0, err, sizeof err);
    REQUIRE(a && b);
    hp_cmp_extra ex;
    char why[256] = "";
    REQUIRE(hp_subpath_compare(a, b, &ex, why, sizeof why) == 1);
    /* sampled order: 1 (660), 2 (500), 5 (350), 3 (300), 4 (299): top 5 = exact top 5 */
    double want[5] = {1.0, 5.0 / 6, 60.0 / 600 * 100, 0, 1.0};
    /* exact top 6 errors: 10%, 0, 25%, 0.333%, 75%, 100% (missed) -> mean over 6 */
    want[3] = (10 + 0 + 25 + 100.0 / 300 + 75 + 100) / 6;
    /* bounds_hit_5: 660 +- 660 * sqrt(6 ln 20 / 121) = 660 +- 254 holds 600; 500 +- 500*0.4264 holds 500;
     * 300 +- 128 holds 400 (428); 299 +- 127 holds 300; 350 +- 149 misses 200 (201): 4 of 5 */
    want[4] = 4.0 / 5;
    const char *keys[5] = {"recall_5", "recall_10", "hottest_error", "mean_error_10", "bounds_hit_5"};
    CHECK_EQ_U64(ex.nvalues, 5);
    for (size_t i = 0; i < 5 && i < ex.nvalues; i++) {
        CHECK(strcmp(ex.values[i].key, keys[i]) == 0);
        CHECK(fabs(ex.values[i].value - want[i]) < 1e-6);
        if (fabs(ex.values[i].value - want[i]) >= 1e-6) fprintf(stderr, "  %s: %g want %g\n", keys[i], ex.values[i].value, want[i]);
    }
    long ranks[5] = {1, 2, 5, 3, 4};
    CHECK_EQ_U64(ex.nlist, 5);
    for (size_t i = 0; i < 5; i++) CHECK(ex.list[i] == ranks[i]);
    CHECK_EQ_U64(ex.common, 5);
    hp_profile_free(a);
    /* another encoding: refused with one message */
    a = profile("subpath.params=enc=exact\n", s2, encode(s2, x, 5), NULL, 0, err, sizeof err);
    REQUIRE(a != NULL);
    CHECK(hp_subpath_compare(a, b, &ex, why, sizeof why) == -2 && strstr(why, "enc=exact"));
    hp_profile_free(a);
    hp_profile_free(b);
}

/* Merges in[0..n) and reads the result back; NULL with err on a refusal. */
static hp_profile *merged(hp_profile **in, size_t n, char *err, size_t errlen)
{
    hp_pbuild out;
    char notes[1024], rerr[256];
    hp_merge_opts o = {0};
    if (hp_merge_profiles(in, n, &o, &out, err, errlen, notes, sizeof notes)) return NULL;
    hp_profile *p = hp_profile_read_mem(out.buf, out.len, "merged", rerr, sizeof rerr);
    if (!p) fprintf(stderr, "  merged: %s\n", rerr);
    hp_pbuild_free(&out);
    return p;
}

TEST(merge_adds_lists_of_one_kind_and_refuses_others)
{
    sp a[2] = {{0xa, 10, 100, 0.5, 2, 2, {1, 2}}, {0xb, 30, 90, 0.25, 4, 4, {1, 2, 3, 4}}};
    sp c[2] = {{0xa, 5, 60, 0.5, 2, 2, {1, 2}}, {0xc, 1, 4, 0.5, 2, 2, {3, 4}}};
    uint8_t s1[2048], s2[2048];
    char err[256] = "";
    hp_profile *in[2] = {profile(SAMPLED, s1, encode(s1, a, 2), NULL, 0, err, sizeof err),
                         profile(SAMPLED, s2, encode(s2, c, 2), NULL, 0, err, sizeof err)};
    REQUIRE(in[0] && in[1]);
    hp_profile *m = merged(in, 2, err, sizeof err);
    REQUIRE(m != NULL);
    CHECK_EQ_U64(m->nsubpaths, 3);
    /* 0xb 360, 0xa (160 / 0.5) = 320 from 15 samples, 0xc 8; blocks map back to the same pcs */
    CHECK(m->subpaths[0].key == 0xb && m->subpaths[1].key == 0xa && m->subpaths[2].key == 0xc);
    CHECK_EQ_U64(m->subpaths[1].count, 15);
    CHECK(fabs(m->subpaths[1].estimate - 320) < 1e-9 && fabs(m->subpaths[0].estimate - 360) < 1e-9);
    CHECK(m->subpaths[0].nblocks == 4 && m->subpaths[0].pcs[0] == 0x401100 && m->subpaths[0].pcs[3] == 0x401200);
    CHECK(m->subpaths[2].pcs[0] == 0x401130);
    hp_profile_free(m);
    hp_profile_free(in[1]);
    in[1] = profile("subpath.summary=exact\n", s2, encode(s2, c, 2), NULL, 0, err, sizeof err);
    REQUIRE(in[1] != NULL);
    CHECK(merged(in, 2, err, sizeof err) == NULL && strstr(err, "different settings") && strstr(err, "summary"));
    hp_profile_free(in[0]);
    hp_profile_free(in[1]);
}

int main(void)
{
    RUN(decode_sums_by_key_and_ranks_by_estimate);
    RUN(weight_length_ranks_by_estimate_times_length);
    RUN(hostile_records_are_refused_with_one_message);
    RUN(bounds_match_the_papers_tables);
    RUN(path_text_collapses_and_report_filters);
    RUN(compare_figures_on_a_worked_example);
    RUN(merge_adds_lists_of_one_kind_and_refuses_others);
    return test_main_end();
}

/* test_compare.c — analysis/compare.h on profiles built in memory (analysis/profbuild.h):
 * identical runs under different load addresses (ASLR) agree perfectly; a uniformly scaled
 * (sampled-like) copy keeps overlap; the worked overlap example of docs/metrics.md comes out of
 * the whole pipeline; build-id and program-name mismatches are detected; types present in one
 * profile only are skipped; addresses outside every module are counted.
 */
#include "analysis/compare.h"
#include "analysis/profbuild.h"
#include "test.h"

/* The row of compare view id (every view of the registry has one). */
#define ROW(res, id) row_of(&(res), id)
static const hp_cmp_row *row_of(const hp_cmp_result *r, const char *id)
{
    static const hp_cmp_row none;
    const hp_cmp_row *w = hp_cmp_find_row(r, id);
    return w ? w : &none;
}
#include <string.h>

#define FUNC_OFF 0x1000u /* functions at module offsets FUNC_OFF + 0x40 * i */

typedef struct spec {
    const char *program;
    uint64_t base;
    uint8_t buildid;
    const uint64_t *calls; size_t ncalls; /* calls[i]: calls of function i (0 = absent) */
    int with_blocks;
    uint64_t unmapped_calls;              /* calls of a function outside every module */
} spec;

static uint64_t func_addr(const spec *s, size_t i) { return s->base + FUNC_OFF + 0x40 * i; }

static void add_funcs_and_pairs(hp_pbuild *b, const spec *s)
{
    hp_rec_func f[32];
    hp_rec_callpair c[32];
    size_t n = 0;
    for (size_t i = 0; i < s->ncalls; i++) {
        if (!s->calls[i]) continue;
        f[n] = (hp_rec_func){func_addr(s, i), s->calls[i], s->calls[i] / 2};
        c[n] = (hp_rec_callpair){func_addr(s, 0) + 7 + i, func_addr(s, i), s->calls[i]};
        n++;
    }
    if (s->unmapped_calls) f[n++] = (hp_rec_func){0x10, s->unmapped_calls, 0};
    hp_pbuild_funcs(b, f, n);
    hp_pbuild_callpairs(b, c, s->unmapped_calls ? n - 1 : n);
}

static void add_blocks(hp_pbuild *b, const spec *s)
{
    hp_rec_block map[3];
    hp_rec_count cnt[3];
    hp_rec_edge e[2];
    for (uint32_t g = 0; g < 3; g++) {
        map[g] = (hp_rec_block){g + 1, 0, s->base + 0x2000 + 16 * g};
        cnt[g] = (hp_rec_count){g + 1, 0, 100u * (g + 1)};
    }
    e[0] = (hp_rec_edge){1, 2, 90};
    e[1] = (hp_rec_edge){2, 3, 10};
    hp_pbuild_blockmap(b, map, 3);
    hp_pbuild_blocks(b, cnt, 3);
    hp_pbuild_edges(b, e, 2);
}

static hp_profile *build(const spec *s, const char *name)
{
    hp_pbuild b;
    char info[128];
    uint8_t id[20];
    memset(id, s->buildid, sizeof id);
    hp_pbuild_init(&b, 1);
    snprintf(info, sizeof info, "program=%s\nmode=exhaustive\n", s->program);
    hp_pbuild_info(&b, info);
    hp_pbuild_module(&b, s->base, s->base, s->base + 0x100000, s->program, id, sizeof id);
    hp_pbuild_module(&b, 0x7f0000000000 + s->base, 0x7f0000000000 + s->base, 0x7f0000100000 + s->base,
                     "/lib/libc.so.6", id, 4);
    hp_pbuild_thread(&b, 1, 1);
    add_funcs_and_pairs(&b, s);
    if (s->with_blocks) add_blocks(&b, s);
    hp_pbuild_group_end(&b, 0, 1, 0);
    char err[256];
    hp_profile *p = b.ok ? hp_profile_read_mem(b.buf, b.len, name, err, sizeof err) : NULL;
    if (!p) fprintf(stderr, "  build: %s\n", err);
    hp_pbuild_free(&b);
    return p;
}

static int compare_specs(const spec *sa, const spec *sb, hp_cmp_result *r)
{
    hp_profile *a = build(sa, "a"), *b = build(sb, "b");
    hp_cmp_opts o;
    hp_compare_default_opts(&o);
    int rc = a && b ? hp_compare(a, b, &o, r) : -1;
    if (a) hp_profile_free(a);
    if (b) hp_profile_free(b);
    return rc;
}

static const uint64_t zipfish[] = {1000, 500, 333, 250, 200, 166, 142, 125, 111, 100, 90, 83, 76, 71, 66, 62};
#define NZ (sizeof zipfish / sizeof zipfish[0])

TEST(identical_runs_under_aslr_match_perfectly)
{
    spec sa = {"/bin/prog", 0x555500000000, 7, zipfish, NZ, 1, 0}, sb = sa;
    sb.base = 0x563200000000;
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_EQ_U64(r.program, HP_CMP_SAME_PROGRAM);
    CHECK_EQ_U64(r.nrows, 6);
    CHECK_EQ_U64(r.n_both, r.nrows - 1); /* no timer samples in these profiles */
    CHECK_EQ_U64(r.nwarnings, 0);
    for (size_t t = 0; t < r.nrows; t++) {
        const hp_cmp_row *w = &r.rows[t];
        if (!strcmp(w->id, "samples")) {
            CHECK(!w->in_a && !w->in_b);
            continue;
        }
        CHECK_EQ_U64(w->n_common, w->n_b);
        CHECK_NEAR(w->overlap, w->overlap_max, 1e-12);
        CHECK(w->overlap_max >= 0.9 - 1e-12);
        CHECK_NEAR(w->overlap_renorm, 1.0, 1e-12);
        CHECK_NEAR(w->top_k.recall, 1.0, 0);
        CHECK_NEAR(w->top_k.precision, 1.0, 0);
        CHECK_NEAR(w->top_k.kendall_tau, 1.0, 1e-12);
    }
    CHECK_EQ_U64(ROW(r, "methods")->n_a, NZ);
    CHECK_EQ_U64(ROW(r, "blocks")->n_a, 3);
    CHECK_EQ_U64(ROW(r, "edges")->n_a, 2);
}

TEST(scaled_sample_keeps_overlap)
{
    uint64_t sampled[NZ];
    for (size_t i = 0; i < NZ; i++) sampled[i] = zipfish[i] * 3; /* a sample 3x as long: same shares */
    spec sa = {"/bin/prog", 0x1000000, 7, sampled, NZ, 0, 0}, sb = {"/bin/prog", 0x2000000, 7, zipfish, NZ, 0, 0};
    sa.ncalls = 3; /* A holds fewer members than B (scratch sizes: B against itself) */
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK(ROW(r, "calls")->overlap < ROW(r, "calls")->overlap_max);
    CHECK_NEAR(ROW(r, "calls")->top_k.precision, 1.0, 0);
    CHECK_NEAR(ROW(r, "calls")->top_k.recall, 0.3, 1e-12);
    CHECK_EQ_U64(ROW(r, "blocks")->in_a, 0);
    REQUIRE(compare_specs(&sb, &sb, &r) == 0);
    sa.ncalls = NZ;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_NEAR(ROW(r, "calls")->overlap, ROW(r, "calls")->overlap_max, 1e-12);
    CHECK_NEAR(ROW(r, "call_pairs")->overlap_renorm, 1.0, 1e-12);
}

/* docs/metrics.md: A = {1:50, 2:30, 3:15, 4:5}, B = {1:40, 2:40, 5:20} -> overlap 0.70. */
TEST(worked_overlap_example_through_profiles)
{
    const uint64_t ca[] = {0, 50, 30, 15, 5, 0}, cb[] = {0, 40, 40, 0, 0, 20};
    spec sa = {"/bin/prog", 0x1000000, 7, ca, 6, 0, 0}, sb = {"/bin/prog", 0x9000000, 7, cb, 6, 0, 0};
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_NEAR(ROW(r, "calls")->overlap, 0.70, 1e-12);
    CHECK_NEAR(ROW(r, "calls")->overlap_max, 1.0, 1e-12); /* B's 90% prefix is all of it */
    CHECK_EQ_U64(ROW(r, "calls")->n_common, 2);
    CHECK_EQ_U64(ROW(r, "call_pairs")->n_common, 2);
    CHECK_NEAR(ROW(r, "calls")->top_k.recall, 2.0 / 3.0, 1e-12);
    CHECK_NEAR(ROW(r, "calls")->top_k.precision, 2.0 / 4.0, 1e-12);
}

TEST(rebuilt_program_is_flagged)
{
    spec sa = {"/bin/prog", 0x1000000, 7, zipfish, NZ, 0, 0}, sb = sa;
    sb.buildid = 8;
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_EQ_U64(r.program, HP_CMP_REBUILT_PROGRAM);
    CHECK_EQ_U64(r.by_name, 0); /* no symbolizers given: still by address */
    CHECK(r.nwarnings >= 2); /* the program and the library */
    CHECK(strstr(r.warnings[0], "build-id") != NULL);
    CHECK(strstr(r.warnings[1], "libc.so.6") != NULL);
}

TEST(other_program_is_flagged_and_shares_nothing)
{
    spec sa = {"/bin/prog", 0x1000000, 7, zipfish, NZ, 1, 0}, sb = sa;
    sb.program = "/bin/other";
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_EQ_U64(r.program, HP_CMP_OTHER_PROGRAM);
    CHECK(strstr(r.warnings[0], "different programs") != NULL);
    CHECK_EQ_U64(r.n_common_keys, 0);
    CHECK_NEAR(ROW(r, "methods")->overlap, 0.0, 0);
}

TEST(unmapped_addresses_are_counted)
{
    spec sa = {"/bin/prog", 0x1000000, 7, zipfish, 4, 0, 99}, sb = sa;
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    CHECK_EQ_U64(r.unmapped_a, 2); /* methods by heat and by calls */
    CHECK_EQ_U64(ROW(r, "calls")->n_a, 5);
    CHECK_EQ_U64(ROW(r, "calls")->n_common, 5); /* same raw address in both */
}

TEST(addr_key_is_module_relative)
{
    spec sa = {"/x/prog", 0x1000000, 7, zipfish, 2, 0, 0}, sb = {"/y/prog", 0x7000000, 9, zipfish, 2, 0, 0};
    hp_profile *a = build(&sa, "a"), *b = build(&sb, "b");
    REQUIRE(a && b);
    int ma, mb;
    CHECK_EQ_U64(hp_cmp_addr_key(a, 0x1000123, &ma), hp_cmp_addr_key(b, 0x7000123, &mb));
    CHECK(ma && mb);
    CHECK(hp_cmp_addr_key(a, 0x1000123, &ma) != hp_cmp_addr_key(a, 0x1000124, &ma));
    CHECK(hp_cmp_addr_key(a, 0x1000123, &ma) != hp_cmp_addr_key(a, 0x7f0001000123, &ma)); /* libc */
    hp_cmp_addr_key(a, 0x42, &ma);
    CHECK_EQ_U64(ma, 0);
    char msg[256];
    CHECK_EQ_U64(hp_cmp_check_program(a, b, msg, sizeof msg), HP_CMP_REBUILT_PROGRAM); /* one name, two ids */
    hp_profile_free(a);
    hp_profile_free(b);
}

TEST(text_and_json_output)
{
    spec sa = {"/bin/prog", 0x1000000, 7, zipfish, NZ, 0, 0}, sb = sa;
    sb.with_blocks = 1;
    hp_cmp_result r;
    REQUIRE(compare_specs(&sa, &sb, &r) == 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    CHECK(hp_compare_write_text(f, &r) == 0);
    CHECK(hp_compare_write_json(f, &r) == 0);
    fclose(f);
    CHECK(strstr(buf, "methods (heat)") != NULL);
    CHECK(strstr(buf, "blocks           (only in B)") != NULL);
    CHECK(strstr(buf, "\"type\":\"call_pairs\"") != NULL);
    CHECK(strstr(buf, "\"only_in_one\":[{\"type\":\"edges\",\"in\":\"b\"},{\"type\":\"blocks\",\"in\":\"b\"}]") != NULL);
    free(buf);
}

int main(void)
{
    RUN(identical_runs_under_aslr_match_perfectly);
    RUN(scaled_sample_keeps_overlap);
    RUN(worked_overlap_example_through_profiles);
    RUN(rebuilt_program_is_flagged);
    RUN(other_program_is_flagged_and_shares_nothing);
    RUN(unmapped_addresses_are_counted);
    RUN(addr_key_is_module_relative);
    RUN(text_and_json_output);
    return test_main_end();
}

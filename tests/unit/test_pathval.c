/* test_pathval.c — the path and value profiles of exhaustive runs, without a program: the path key
 * (core/ptype/path.h), the settings' grammar (core/control/pathval_spec.h), the PATHS record codec,
 * the runtime's recording and PATHS writing (pt/path.c on a hand-made thread), the reader and the
 * "Hot paths" table on hand-made profiles, and the compare wiring (Wall weight matching for paths,
 * Diff-Top for values) against values computed here by hand.
 */
#define _GNU_SOURCE
#include "analysis/profbuild.h"
#include "analysis/ptype/aptype.h"
#include "analysis/ptype/path.h"
#include "analysis/ptype/value.h"
#include "core/control/pathval_spec.h"
#include "core/format/format.h"
#include "core/ptype/path.h"
#include "runtime/pt/pathval.h"
#include "runtime/pt/pt.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

TEST(path_key_is_a_running_hash_of_order_and_length)
{
    uint32_t ab[2] = {1, 2}, ba[2] = {2, 1}, abc[3] = {1, 2, 3}, zero[1] = {0};
    uint64_t h = HP_PATH_SEED;
    h = hp_path_step(hp_path_step(h, 1), 2);
    CHECK_EQ_U64(hp_path_final(h, 2), hp_path_key(ab, 2));
    CHECK(hp_path_key(ab, 2) != hp_path_key(ba, 2));   /* order matters */
    CHECK(hp_path_key(ab, 2) != hp_path_key(abc, 3));  /* a prefix is another path */
    CHECK(hp_path_final(h, 2) != hp_path_final(h, 3)); /* the length is part of the key */
    CHECK(hp_path_key(zero, 1) != 0 && hp_path_key(NULL, 0) != 0);
}

static int pv_bad(const char *clause, const char *part)
{
    hp_pv_params p;
    char err[256] = "";
    hp_pv_defaults(&p);
    int rc = hp_pv_clause_parse(clause, strlen(clause), &p, err, sizeof err);
    if (rc == 0 || !strstr(err, part)) fprintf(stderr, "  '%s': rc %d, '%s'\n", clause, rc, err);
    return rc == -1 && strstr(err, part) != NULL;
}

TEST(pathval_clauses_parse_check_and_format)
{
    hp_pv_params p, back;
    char err[256], text[160];
    CHECK(hp_pv_clause_is("path", 4) && hp_pv_clause_is("paths:maxlen=8", 14));
    CHECK(hp_pv_clause_is("value:summary=tnv", 17) && hp_pv_clause_is("values:sites=64,summary=gm", 26));
    CHECK(!hp_pv_clause_is("value:summary=multihash", 23) && !hp_pv_clause_is("value", 5));
    CHECK(!hp_pv_clause_is("subpath", 7) && !hp_pv_clause_is("methods:period=5", 16));
    REQUIRE(hp_pv_spec_parse("path;value:summary=tnv", &p, err, sizeof err) == 0);
    CHECK(p.path == 1 && p.maxlen == HP_PATH_DEFAULT_MAXLEN && p.values == HP_PV_TNV);
    CHECK(p.entries == HP_PV_DEFAULT_ENTRIES && p.clear == HP_PV_DEFAULT_CLEAR && p.sites == HP_PV_DEFAULT_SITES);
    hp_pv_format(text, sizeof text, &p);
    CHECK(strcmp(text, "path:maxlen=64;value:summary=tnv,entries=50,clear=2000,sites=4096") == 0);
    REQUIRE(hp_pv_spec_parse("path:maxlen=1024;value:summary=gm,sites=16", &p, err, sizeof err) == 0);
    hp_pv_format(text, sizeof text, &p);
    REQUIRE(hp_pv_spec_parse(text, &back, err, sizeof err) == 0);
    CHECK(back.maxlen == 1024 && back.values == HP_PV_GM && back.sites == 16 && back.path == 1);
    REQUIRE(hp_pv_spec_parse("value:summary=tnv,entries=2,clear=1", &p, err, sizeof err) == 0);
    CHECK(!p.path && p.entries == 2 && p.clear == 1);
    CHECK(pv_bad("path:maxlen=1", "maxlen must be 2..1024"));
    CHECK(pv_bad("path:maxlen=1025", "maxlen must be 2..1024"));
    CHECK(pv_bad("path:len=4", "unknown path key"));
    CHECK(pv_bad("path:", "no keys"));
    CHECK(pv_bad("value:summary=multihash", "tnv or gm"));
    CHECK(pv_bad("value:entries=10", "needs summary=tnv or summary=gm"));
    CHECK(pv_bad("value:summary=tnv,entries=65", "entries must be 2..64"));
    CHECK(pv_bad("value:summary=tnv,clear=0", "clear must be"));
    CHECK(pv_bad("value:summary=gm,sites=8", "sites must be"));
    CHECK(pv_bad("value:summary=gm,entries=10", "summary=tnv only"));
    CHECK(pv_bad("value:summary=tnv,,sites=64", "empty key"));
    CHECK(pv_bad("edges", "not a path or value clause"));
}

TEST(path_record_codec_round_trips)
{
    uint8_t buf[HP_REC_PATH_FIXED + 1];
    hp_rec_path r = {0x1122334455667788ull, 42, 1024, 1024}, back;
    memset(buf, 0xee, sizeof buf);
    hp_fmt_put_path(buf, &r);
    CHECK(buf[HP_REC_PATH_FIXED] == 0xee); /* exactly the fixed part */
    hp_fmt_get_path(buf, &back);
    CHECK(back.key == r.key && back.count == 42 && back.length == 1024 && back.nblocks == 1024);
    CHECK(strcmp(hp_section_type_name(HP_SEC_PATHS), "paths") == 0);
    CHECK(hp_ptype_by_section(HP_SEC_PATHS) == hp_ptypes[HP_PT_PATH]);
}

/* ---- the runtime's recording, written through pt/path.c into a buffer ---- */

static uint8_t g_out[1 << 16];
static size_t g_len, g_sections;
static void sink_begin(uint32_t type) { g_sections += type == HP_SEC_PATHS; }
static void sink_put(const void *p, size_t n)
{
    if (g_len + n <= sizeof g_out) memcpy(g_out + g_len, p, n);
    g_len += n;
}
static void sink_end(void) {}

/* The count of the record whose blocks are ids[0..n) in g_out, 0 if none (-1: a malformed record). */
static long written_count(const uint32_t *ids, uint32_t n)
{
    for (size_t at = 0; at + HP_REC_PATH_FIXED <= g_len;) {
        hp_rec_path r;
        hp_fmt_get_path(g_out + at, &r);
        if (r.nblocks != r.length) return -1;
        if (r.key == hp_path_key(ids, n) && r.length == n && !memcmp(g_out + at + HP_REC_PATH_FIXED, ids, 4 * n))
            return (long)r.count;
        at += HP_REC_PATH_FIXED + 4ull * r.nblocks;
    }
    return 0;
}

TEST(runtime_counts_paths_between_backedges_and_at_maxlen)
{
    hp_pv_params pv;
    hp_pv_defaults(&pv);
    pv.path = 1, pv.maxlen = 4;
    hp_rt_pathval_start(&pv);
    hp_thread *t = calloc(1, sizeof *t);
    REQUIRE(t != NULL);
    /* a loop of 3 iterations, blocks 5 6 7 (back-edge at 5), then 8 9 10 11: maxlen cuts after 8 */
    for (int it = 0; it < 3; it++) {
        hp_rt_path_block(t, 5, it > 0);
        hp_rt_path_block(t, 6, 0);
        hp_rt_path_block(t, 7, 0);
    }
    for (uint32_t id = 8; id <= 11; id++) hp_rt_path_block(t, id, 0);
    hp_pt_sink sink = {sink_begin, sink_put, sink_end};
    g_len = g_sections = 0;
    hp_pt_path.write_thread(t, &sink);
    CHECK_EQ_U64(g_sections, 1);
    CHECK_EQ_U64(hp_pt_path.thread_events(t), 3); /* 5 6 7 twice, then 5 6 7 8 (maxlen) */
    uint32_t loop[3] = {5, 6, 7}, cut[4] = {5, 6, 7, 8}, rest[1] = {9};
    CHECK(written_count(loop, 3) == 2);
    CHECK(written_count(cut, 4) == 1);
    CHECK(written_count(rest, 1) == 0); /* 9 10 11 is in progress: not counted */
    free(t);
}

static size_t g_records;
static void count_put(const void *p, size_t n)
{
    (void)p;
    g_records += n == HP_REC_PATH_FIXED;
}

TEST(runtime_caps_distinct_paths_and_keeps_counting_known_ones)
{
    hp_pv_params pv;
    hp_pv_defaults(&pv);
    pv.path = 1, pv.maxlen = 2; /* every two blocks end a path */
    hp_rt_pathval_start(&pv);
    hp_thread *t = calloc(1, sizeof *t);
    REQUIRE(t != NULL);
    const uint32_t cap = 1u << 20, extra = 1000;
    for (uint32_t i = 0; i < cap + extra; i++) { /* cap + extra distinct paths (2i+1, 2i+2) */
        hp_rt_path_block(t, 2 * i + 1, 0);
        hp_rt_path_block(t, 2 * i + 2, 0);
    }
    hp_rt_path_block(t, 1, 0); /* the first path again: still counted past the cap */
    hp_rt_path_block(t, 2, 0);
    CHECK_EQ_U64(hp_pt_path.thread_events(t), (uint64_t)cap + 1); /* the extra ones were dropped */
    hp_pt_sink sink = {sink_begin, count_put, sink_end};
    g_records = g_sections = 0;
    hp_pt_path.write_thread(t, &sink);
    CHECK_EQ_U64(g_records, cap);
    free(t);
}

typedef struct val_seen { uint32_t sites, bad; uint64_t top7_count, top7_captures; } val_seen;

/* Checks each record the way the reader will (counts > 0, highest first, sum <= captures). */
static void see_value(void *arg, const hp_rec_value *r, const uint64_t *pairs)
{
    val_seen *v = arg;
    uint64_t sum = 0;
    v->sites++;
    for (uint32_t i = 0; i < r->nvalues; i++) {
        sum += pairs[2 * i + 1];
        v->bad += pairs[2 * i + 1] == 0 || (i && pairs[2 * i + 1] > pairs[2 * i - 1]);
    }
    v->bad += sum > r->captures || r->nvalues > HP_VALUE_MAX_ENTRIES || !(r->tau >= 1) || r->kind != HP_VK_CMP;
    if (r->pc == 0x1000 && r->nvalues && pairs[0] == 7) v->top7_count = pairs[1], v->top7_captures = r->captures;
}

TEST(runtime_value_sites_are_capped_and_written_by_the_rules)
{
    for (int summary = HP_PV_TNV; summary <= HP_PV_GM; summary++) {
        hp_pv_params pv;
        hp_pv_defaults(&pv);
        pv.values = summary, pv.entries = 4, pv.sites = 16;
        hp_rt_pathval_start(&pv);
        hp_thread *t = calloc(1, sizeof *t);
        REQUIRE(t != NULL);
        for (int i = 0; i < 100; i++) hp_rt_val_add(t, 0x1000, HP_VK_CMP, 1, i % 10 ? 7 : (uint64_t)i); /* 7 in 90% */
        for (uint64_t pc = 0x2000; pc < 0x2000 + 20; pc++) hp_rt_val_add(t, pc, HP_VK_CMP, 0, pc); /* 15 fit */
        val_seen v = {0};
        CHECK_EQ_U64(hp_rt_vals_each(t, see_value, &v), 16);
        CHECK_EQ_U64(v.sites, 16);
        CHECK_EQ_U64(v.bad, 0);
        CHECK_EQ_U64(v.top7_captures, 100);
        CHECK_EQ_U64(v.top7_count, 90); /* TNV: exact while no clear; GM: tau 1, nothing thinned */
        free(t);
    }
}

/* ---- the reader and the table ---- */

/* A PATHS payload of n records {key of ids, count} (keep: with blocks) into out; its length. */
static size_t paths_payload(uint8_t *out, const uint32_t *const *seqs, const uint32_t *lens, const uint64_t *counts,
                            size_t n, int keep)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        hp_rec_path r = {hp_path_key(seqs[i], lens[i]), counts[i], lens[i], keep ? lens[i] : 0};
        hp_fmt_put_path(out + at, &r);
        at += HP_REC_PATH_FIXED;
        for (uint32_t k = 0; keep && k < lens[i]; k++, at += 4) memcpy(out + at, &seqs[i][k], 4);
    }
    return at;
}

static const uint32_t seq_a[3] = {1, 2, 3}, seq_b[2] = {1, 3}, seq_c[4] = {1, 2, 2, 3};

/* Two threads: A 60 + 15, B 20, C 5 (C only in thread 2, without blocks). */
static hp_profile *path_profile(uint64_t extra_b, char *err, size_t errlen)
{
    hp_pbuild b;
    uint8_t pay[512];
    const uint32_t *s1[2] = {seq_a, seq_b}, *s2[2] = {seq_a, seq_c};
    uint32_t l1[2] = {3, 2}, l2[2] = {3, 4};
    uint64_t c1[2] = {60, 20 + extra_b}, c2[2] = {15, 5};
    hp_rec_block map[3] = {{1, 1, 0x401000}, {2, 0, 0x401010}, {3, 0, 0x401020}};
    hp_pbuild_init(&b, 3);
    hp_pbuild_info(&b, "program=/bin/demo\nmode=exhaustive\npathval.spec=path:maxlen=64\n");
    hp_pbuild_blockmap(&b, map, 3);
    hp_pbuild_thread(&b, 1, 10);
    hp_pbuild_section(&b, HP_SEC_PATHS, pay, paths_payload(pay, s1, l1, c1, 2, 1));
    hp_pbuild_thread(&b, 2, 10);
    hp_pbuild_section(&b, HP_SEC_PATHS, pay, paths_payload(pay, s2, l2, c2, 2, 0));
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "paths", err, errlen);
    hp_pbuild_free(&b);
    return p;
}

static char *printed(int (*hook)(FILE *, const hp_profile *, hp_symbolizer *, const hp_report_opts *),
                     const hp_profile *p, const hp_report_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    if (!f) return NULL;
    if (hook(f, p, s, o)) fputs("(hook failed)", f);
    fclose(f);
    hp_sym_close(s);
    return buf;
}

TEST(paths_merge_over_threads_and_print_ranked)
{
    char err[256];
    hp_profile *p = path_profile(0, err, sizeof err);
    if (!p) fprintf(stderr, "  %s\n", err);
    REQUIRE(p != NULL);
    REQUIRE(p->npaths == 3);
    CHECK_EQ_U64(p->paths[0].count, 75); /* A over both threads */
    CHECK_EQ_U64(p->paths[0].key, hp_path_key(seq_a, 3));
    CHECK_EQ_U64(p->paths[0].nblocks, 3);
    CHECK_EQ_U64(p->paths[0].pcs[1], 0x401010); /* through the block map */
    CHECK_EQ_U64(p->paths[1].count, 20);
    CHECK_EQ_U64(p->paths[2].count, 5);
    CHECK_EQ_U64(p->paths[2].nblocks, 0); /* C was written without its blocks */
    CHECK_EQ_U64(hp_path_total(p), 100);
    hp_report_opts o = {.top = 2};
    char *text = printed(hp_path_text, p, &o);
    REQUIRE(text != NULL);
    CHECK(strstr(text, "Hot paths: 2 of 3, by count") != NULL);
    CHECK(strstr(text, "100 paths completed") != NULL);
    CHECK(strstr(text, "   1           75  75.00%     3  ") != NULL);
    CHECK(strstr(text, "   2           20  20.00%     2  ") != NULL);
    CHECK(strstr(text, "\n   3 ") == NULL); /* --top 2 */
    free(text);
    char *json = printed(hp_path_json, p, &o);
    REQUIRE(json != NULL);
    CHECK(strstr(json, "\"completed\": 100, \"paths\": 3") != NULL);
    CHECK(strstr(json, "\"count\": 75, \"share\": 0.75, \"length\": 3") != NULL);
    free(json);
    hp_profile_free(p);
}

TEST(corrupt_path_records_are_refused)
{
    static const struct { hp_rec_path r; const char *why; } cases[] = {
        {{0, 1, 1, 0}, "key 0"},
        {{5, 1, 0, 0}, "length out of 1..1024"},
        {{5, 1, 1025, 0}, "length out of 1..1024"},
        {{5, 1, 3, 2}, "blocks neither 0 nor its length"},
        {{5, 0, 3, 0}, "count 0"},
        {{5, 1, 3, 3}, "its blocks run past the section"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hp_pbuild b;
        uint8_t pay[HP_REC_PATH_FIXED];
        char err[256] = "";
        hp_fmt_put_path(pay, &cases[i].r);
        hp_pbuild_init(&b, 1);
        hp_pbuild_info(&b, "program=/bin/demo\nmode=exhaustive\n");
        hp_pbuild_thread(&b, 1, 1);
        hp_pbuild_section(&b, HP_SEC_PATHS, pay, sizeof pay);
        hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
        hp_profile *p = hp_profile_read_mem(b.buf, b.len, "bad", err, sizeof err);
        if (p || !strstr(err, cases[i].why)) fprintf(stderr, "  want '%s', got '%s'\n", cases[i].why, err);
        CHECK(p == NULL && strstr(err, cases[i].why) != NULL);
        hp_profile_free(p);
        hp_pbuild_free(&b);
    }
}

/* ---- compare wiring ---- */

static const hp_cmp_extra_value *extra_value(const hp_cmp_extra *x, const char *key)
{
    for (size_t i = 0; i < x->nvalues; i++)
        if (!strcmp(x->values[i].key, key)) return &x->values[i];
    return NULL;
}

TEST(path_compare_is_wall_weight_matching)
{
    char err[256], refusal[128];
    hp_profile *ref = path_profile(0, err, sizeof err), *est = path_profile(100, err, sizeof err);
    REQUIRE(ref && est);
    hp_cmp_extra x;
    REQUIRE(hp_path_compare(ref, ref, &x, refusal, sizeof refusal) == 1);
    CHECK(extra_value(&x, "wall_accuracy") && extra_value(&x, "wall_accuracy")->value == 1.0);
    CHECK_EQ_U64(x.common, 3);
    /* est's hottest is B (120 > 75): the reference's top 5% of 3 paths is {A}, est's {B}: accuracy 0 */
    REQUIRE(hp_path_compare(est, ref, &x, refusal, sizeof refusal) == 1);
    CHECK(extra_value(&x, "wall_accuracy")->value == 0.0);
    hp_profile empty = {0};
    CHECK(hp_path_compare(&empty, ref, &x, refusal, sizeof refusal) == 0); /* nothing to compare */
    hp_profile_free(ref);
    hp_profile_free(est);
}

TEST(value_compare_is_diff_top)
{
    hp_value_entry ea[2] = {{7, 90}, {3, 10}}, eb[2] = {{7, 60}, {3, 40}}, ec[1] = {{1, 50}};
    hp_value_stat ref_sites[2] = {{.pc = 0x10, .captures = 100, .tau = 1, .kind = HP_VK_CMP, .operand = 1, .nvalues = 2, .values = ea},
                                  {.pc = 0x20, .captures = 300, .tau = 1, .kind = HP_VK_LOAD, .nvalues = 1, .values = ec}};
    hp_value_stat est_sites[2] = {{.pc = 0x10, .captures = 100, .tau = 1, .kind = HP_VK_CMP, .operand = 1, .nvalues = 2, .values = eb},
                                  {.pc = 0x30, .captures = 50, .tau = 1, .kind = HP_VK_LOAD, .nvalues = 1, .values = ec}};
    hp_profile ref = {.values = ref_sites, .nvalues = 2}, est = {.values = est_sites, .nvalues = 2};
    hp_cmp_extra x;
    char refusal[128];
    REQUIRE(hp_value_compare(&ref, &ref, &x, refusal, sizeof refusal) == 1);
    CHECK(extra_value(&x, "diff_top")->value == 0.0);
    CHECK(extra_value(&x, "same_top")->value == 1.0);
    CHECK_EQ_U64(x.common, 2);
    /* one common site (pc 0x10): invariance 0.9 in the reference, 0.6 in the estimate */
    REQUIRE(hp_value_compare(&est, &ref, &x, refusal, sizeof refusal) == 1);
    CHECK_EQ_U64(x.common, 1);
    CHECK(extra_value(&x, "diff_top")->value > 0.3 - 1e-12 && extra_value(&x, "diff_top")->value < 0.3 + 1e-12);
    CHECK(strcmp(hp_value_kind_name(HP_VK_CMP), "cmp") == 0);
}

int main(void)
{
    RUN(path_key_is_a_running_hash_of_order_and_length);
    RUN(pathval_clauses_parse_check_and_format);
    RUN(path_record_codec_round_trips);
    RUN(runtime_counts_paths_between_backedges_and_at_maxlen);
    RUN(runtime_caps_distinct_paths_and_keeps_counting_known_ones);
    RUN(runtime_value_sites_are_capped_and_written_by_the_rules);
    RUN(paths_merge_over_threads_and_print_ranked);
    RUN(corrupt_path_records_are_refused);
    RUN(path_compare_is_wall_weight_matching);
    RUN(value_compare_is_diff_top);
    return test_main_end();
}

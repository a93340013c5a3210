/* test_aptype.c — the analysis profile types (src/analysis/ptype/) one at a time, without the
 * reader's passes: the registry (ids, lookups by section and SUMMARY id, hooks every reader and
 * report loop relies on), each record type's decode + finish on synthetic sections (sums per key,
 * block-map resolution), each type's JSON member and text table alone, its compare view's items,
 * its folded stacks (sums, lines, the default type, what cannot be folded), the folded.h helper
 * (sanitizing, merging, order), and the report's and compare's loops seeing every registered type.
 */
#define _GNU_SOURCE
#include "analysis/folded.h"
#include "analysis/profbuild.h"
#include "analysis/ptype/aptype.h"
#include "test.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The reader's description of the section written to b between offsets before and after. */
static hp_section_ref section_ref(size_t before, size_t after, uint32_t type)
{
    return (hp_section_ref){type, before, after - before - HP_FMT_SECTION_HEADER_SIZE, 0, 1};
}

/* Decodes n sections of type id (refs) into a fresh profile with the type's hooks. */
static hp_profile *decode_alone(int id, const hp_pbuild *b, const hp_section_ref *refs, size_t n,
                                const hp_rec_block *map, size_t nmap)
{
    hp_profile *p = calloc(1, sizeof *p);
    char err[128];
    hp_reader r = {.data = b->buf, .len = b->len, .p = p, .err = err, .errlen = sizeof err};
    const hp_aptype *t = hp_aptypes[id];
    p->name = strdup("t");
    for (size_t i = 0; i < nmap; i++) {
        hp_pair_item *it = hp_pairmap_get(&r.blockmap, map[i].guard, 0);
        it->v1 = map[i].pc, it->v2 = map[i].flags;
    }
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) ok = t->decode(&r, &r.acc[id], i, &refs[i]);
    ok = ok && t->finish(&r, &r.acc[id]);
    hp_pairmap_free(&r.acc[id].map);
    free(r.acc[id].mem);
    hp_pairmap_free(&r.blockmap);
    if (!ok) hp_profile_free(p), p = NULL;
    return p;
}

TEST(registry_is_indexed_by_core_id)
{
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        REQUIRE(t != NULL);
        CHECK_EQ_U64(t->id, i);
        CHECK(t->decode && t->finish && t->release && t->rows && t->text && t->json);
        const hp_ptype *c = hp_ptypes[i];
        if (c->section) CHECK(hp_aptype_by_section(c->section) == t);
        if (c->summary_id) CHECK(hp_aptype_by_summary(c->summary_id) == t);
    }
    CHECK(hp_aptypes[HP_PT_COUNT] == NULL);
    CHECK(hp_aptype_by_section(HP_SEC_THREAD) == NULL);
    CHECK(hp_aptype_by_section(HP_SEC_BLOCKMAP) == NULL);
    CHECK(hp_aptype_by_summary(99) == NULL);
}

TEST(methods_decode_sums_by_address)
{
    hp_pbuild b;
    hp_rec_func f1[2] = {{0x10, 1, 2}, {0x20, 5, 0}}, f2[1] = {{0x10, UINT64_MAX, 3}};
    hp_section_ref refs[2];
    hp_pbuild_init(&b, 1);
    size_t at = b.len;
    hp_pbuild_funcs(&b, f1, 2);
    refs[0] = section_ref(at, b.len, HP_SEC_FUNCS), at = b.len;
    hp_pbuild_funcs(&b, f2, 1);
    refs[1] = section_ref(at, b.len, HP_SEC_FUNCS);
    hp_profile *p = decode_alone(HP_PT_METHODS, &b, refs, 2, NULL, 0);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nfuncs, 2);
    CHECK_EQ_U64(hp_aptypes[HP_PT_METHODS]->rows(p), 2);
    CHECK_EQ_U64(p->funcs[0].addr, 0x10);
    CHECK_EQ_U64(p->funcs[0].calls, UINT64_MAX); /* saturates */
    CHECK_EQ_U64(p->funcs[0].backedges, 5);
    CHECK_EQ_U64(hp_profile_total_backedges(p), 5);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(callpairs_decode_keys_on_both_addresses)
{
    hp_pbuild b;
    hp_rec_callpair c[3] = {{0x15, 0x20, 4}, {0x15, 0x30, 1}, {0x15, 0x20, 6}};
    hp_pbuild_init(&b, 1);
    size_t at = b.len;
    hp_pbuild_callpairs(&b, c, 3);
    hp_section_ref ref = section_ref(at, b.len, HP_SEC_CALLPAIRS);
    hp_profile *p = decode_alone(HP_PT_CALLPAIRS, &b, &ref, 1, NULL, 0);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->npairs, 2);
    CHECK_EQ_U64(p->pairs[0].count, 10);
    CHECK_EQ_U64(p->pairs[1].callee, 0x30);
    CHECK_EQ_U64(hp_profile_total_pairs(p), 11);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(blocks_and_edges_resolve_through_the_block_map)
{
    hp_pbuild b;
    hp_rec_block map[2] = {{1, 1, 0x1000}, {2, 0, 0x1010}};
    hp_rec_count bl[2] = {{1, 0, 7}, {9, 0, 3}}; /* guard 9: not in the map */
    hp_rec_edge e[2] = {{1, 2, 5}, {2, 9, 1}};
    hp_pbuild_init(&b, 1);
    size_t at = b.len;
    hp_pbuild_blocks(&b, bl, 2);
    hp_section_ref rb = section_ref(at, b.len, HP_SEC_BLOCKS);
    at = b.len;
    hp_pbuild_edges(&b, e, 2);
    hp_section_ref re = section_ref(at, b.len, HP_SEC_EDGES);
    hp_profile *p = decode_alone(HP_PT_BLOCKS, &b, &rb, 1, map, 2);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nblocks, 2);
    CHECK(p->blocks[0].mapped && p->blocks[0].pc == 0x1000 && p->blocks[0].flags == 1);
    CHECK(!p->blocks[1].mapped && p->blocks[1].guard == 9);
    CHECK_EQ_U64(hp_profile_total_blocks(p), 10);
    hp_profile_free(p);
    p = decode_alone(HP_PT_EDGES, &b, &re, 1, map, 2);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nedges, 2);
    CHECK(p->edges[0].mapped && p->edges[0].from_pc == 0x1000 && p->edges[0].to_pc == 0x1010);
    CHECK(!p->edges[1].mapped); /* one end unknown */
    CHECK_EQ_U64(hp_profile_total_edges(p), 6);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(datastream_without_summaries_is_empty)
{
    hp_pbuild b;
    hp_pbuild_init(&b, 1);
    hp_profile *p = decode_alone(HP_PT_DATASTREAM, &b, NULL, 0, NULL, 0);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->ds.nstreams, 0);
    CHECK(p->ds.streams == NULL);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

/* A small exhaustive profile of every record type (call pairs only if pairs), read whole. */
static hp_profile *small_profile_with(int pairs)
{
    hp_pbuild b;
    char err[256];
    hp_rec_func f[2] = {{0x401100, 10, 5}, {0x401200, 3, 0}};
    hp_rec_callpair c[1] = {{0x401150, 0x401200, 3}};
    hp_rec_block map[2] = {{1, 1, 0x401100}, {2, 0, 0x401120}};
    hp_rec_count bl[2] = {{1, 0, 100}, {2, 0, 40}};
    hp_rec_edge e[1] = {{1, 2, 40}};
    hp_pbuild_init(&b, 2);
    hp_pbuild_info(&b, "program=/bin/demo\nmode=exhaustive\n");
    hp_pbuild_blockmap(&b, map, 2);
    hp_pbuild_thread(&b, 1, 10);
    hp_pbuild_funcs(&b, f, 2);
    if (pairs) hp_pbuild_callpairs(&b, c, 1);
    hp_pbuild_blocks(&b, bl, 2);
    hp_pbuild_edges(&b, e, 1);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "small", err, sizeof err);
    hp_pbuild_free(&b);
    return p;
}

static hp_profile *small_profile(void) { return small_profile_with(1); }

/* What one hook printed, NUL-terminated (caller frees). */
static char *printed(int (*hook)(FILE *, const hp_profile *, hp_symbolizer *, const hp_report_opts *),
                     const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    *rc = hook(f, p, s, o);
    fclose(f);
    return buf;
}

TEST(each_type_prints_its_own_table_and_member)
{
    static const char *const heads[HP_PT_COUNT] = {"Hot methods", "Hot call pairs", "Hot blocks", "Hot edges",
                                                   "Hot data streams", "Hot subpaths",
                                                   NULL /* intervals: nothing without sections */,
                                                   NULL /* samples */, NULL /* values */, "Hot paths"};
    static const char *const members[HP_PT_COUNT] = {"  \"methods\": [", "  \"call_pairs\": [", "  \"blocks\": [",
                                                     "  \"edges\": [", "  \"datastream\": {",
                                                     "  \"subpaths\": {", "  \"intervals\": [",
                                                     "  \"samples\": [", "  \"values\": [", "  \"paths\": {"};
    hp_profile *p = small_profile();
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_report_opts o = {.top = 5, .sort = HP_SORT_HEAT, .format = HP_FORMAT_TEXT, .blocks = 1, .edges = 1, .streams = 1};
    for (int i = 0; i < HP_PT_COUNT; i++) {
        int rc = -1;
        char *text = printed(hp_aptypes[i]->text, p, s, &o, &rc);
        if (heads[i]) CHECK(rc == 0 && text && strncmp(text, "\n", 1) == 0 && strstr(text, heads[i]) != NULL);
        else CHECK(rc == 0 && text && !*text);
        free(text);
        char *json = printed(hp_aptypes[i]->json, p, s, &o, &rc);
        CHECK(rc == 0 && json && strncmp(json, members[i], strlen(members[i])) == 0); /* no comma first */
        CHECK(json && json[strlen(json) - 1] != ',' && json[strlen(json) - 1] != '\n');
        free(json);
    }
    hp_report_opts none = {.top = 5};
    CHECK(!hp_aptypes[HP_PT_BLOCKS]->wanted(&none) && hp_aptypes[HP_PT_BLOCKS]->wanted(&o));
    CHECK(!hp_aptypes[HP_PT_DATASTREAM]->wanted(&none) && hp_aptypes[HP_PT_DATASTREAM]->wanted(&o));
    CHECK(hp_aptypes[HP_PT_METHODS]->wanted == NULL); /* always shown */
    hp_sym_close(s);
    hp_profile_free(p);
}

TEST(compare_views_are_ranked_and_collect_items)
{
    hp_profile *p = small_profile();
    REQUIRE(p != NULL);
    hp_cmp_opts o;
    hp_compare_default_opts(&o);
    hp_cmp_result *r = malloc(sizeof *r);
    int rc = r ? hp_compare(p, p, &o, r) : -1; /* REQUIRE evaluates its condition twice */
    REQUIRE(rc == 0);
    static const char *const order[] = {"methods", "calls", "call_pairs", "edges", "blocks", "samples"};
    CHECK_EQ_U64(r->nrows, 6);
    for (size_t i = 0; i < r->nrows && i < 6; i++) CHECK(strcmp(r->rows[i].id, order[i]) == 0);
    const hp_cmp_row *m = hp_cmp_find_row(r, "methods");
    REQUIRE(m != NULL);
    CHECK_EQ_U64(m->n_a, 2);
    CHECK_NEAR(m->total_a, 18.0, 0); /* heat = calls + back-edges */
    CHECK_NEAR(hp_cmp_find_row(r, "calls")->total_a, 13.0, 0);
    CHECK(hp_cmp_find_row(r, "nonesuch") == NULL);
    hp_cmp_items items = {0};
    const hp_cmp_view *v = &hp_aptypes[HP_PT_BLOCKS]->views[0];
    rc = hp_cmp_collect(p, v, &items, NULL);
    REQUIRE(rc == 0);
    CHECK_EQ_U64(items.n, 2);
    CHECK_NEAR(items.total, 140.0, 0);
    free(items.items);
    free(r);
    hp_profile_free(p);
}

/* The counts of folded text summed (each line's last word), its lines in *nlines; ~0 if a line
 * is not `stack count`. */
static uint64_t folded_sum(const char *text, size_t *nlines)
{
    uint64_t sum = 0;
    *nlines = 0;
    for (const char *l = text; *l; (*nlines)++) {
        const char *nl = strchr(l, '\n'), *sp = memrchr(l, ' ', nl ? (size_t)(nl - l) : 0);
        if (!nl || !sp || sp == l) return ~0ull;
        sum += strtoull(sp + 1, NULL, 10);
        l = nl + 1;
    }
    return sum;
}

TEST(each_foldable_type_sums_to_its_totals)
{
    hp_profile *p = small_profile();
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_report_opts o = {.top = 1, .format = HP_FORMAT_FOLDED}; /* --top does not cut stacks */
    uint64_t want[HP_PT_COUNT] = {[HP_PT_METHODS] = hp_profile_total_calls(p) + hp_profile_total_backedges(p),
                                  [HP_PT_CALLPAIRS] = hp_profile_total_pairs(p),
                                  [HP_PT_BLOCKS] = hp_profile_total_blocks(p)};
    size_t lines[HP_PT_COUNT] = {[HP_PT_METHODS] = p->nfuncs, [HP_PT_CALLPAIRS] = p->npairs,
                                 [HP_PT_BLOCKS] = p->nblocks};
    for (int i = 0; i < HP_PT_COUNT; i++) {
        int rc = -1;
        size_t n;
        if (!hp_aptypes[i]->folded || i == HP_PT_SAMPLES) continue; /* no stacks here: test_vreport.c */
        char *text = printed(hp_aptypes[i]->folded, p, s, &o, &rc);
        REQUIRE(text != NULL);
        CHECK(rc == 0 && want[i] > 0);
        CHECK_EQ_U64(folded_sum(text, &n), want[i]);
        CHECK_EQ_U64(n, lines[i]);
        free(text);
    }
    char line[64];
    int rc = -1;
    char *pairs = printed(hp_aptypes[HP_PT_CALLPAIRS]->folded, p, s, &o, &rc);
    snprintf(line, sizeof line, "0x%" PRIx64 ";0x%" PRIx64 " %" PRIu64 "\n", p->pairs[0].site - 1, p->pairs[0].callee,
             p->pairs[0].count); /* caller at site - 1, unknown names as addresses */
    CHECK(pairs && strcmp(pairs, line) == 0);
    free(pairs);
    hp_sym_close(s);
    hp_profile_free(p);
}

/* What hp_report_write prints for p with --format folded (type: NULL = default). */
static char *report_folded(const hp_profile *p, const char *type)
{
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_report_opts o = {.format = HP_FORMAT_FOLDED, .fold_type = type};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? hp_report_write(f, p, s, &o) : -1;
    if (f) fclose(f);
    hp_sym_close(s);
    if (rc) free(buf), buf = NULL;
    return buf;
}

TEST(folded_default_is_callpairs_else_methods)
{
    hp_profile *with = small_profile_with(1), *without = small_profile_with(0);
    REQUIRE(with != NULL && without != NULL);
    char *d1 = report_folded(with, NULL), *cp = report_folded(with, "pairs");
    char *d2 = report_folded(without, NULL), *m = report_folded(without, "methods");
    CHECK(d1 && cp && strcmp(d1, cp) == 0);
    CHECK(d2 && m && strcmp(d2, m) == 0 && strchr(m, ';') == NULL);
    CHECK(report_folded(with, "edges") == NULL);
    free(d1), free(cp), free(d2), free(m);
    hp_profile_free(with);
    hp_profile_free(without);
    char msg[256];
    CHECK(hp_report_fold_check("blocks", msg, sizeof msg) == 0);
    CHECK(hp_report_fold_check("calls", msg, sizeof msg) == 0); /* a synonym */
    CHECK(hp_report_fold_check("edges", msg, sizeof msg) == -1 && strstr(msg, "cannot be folded"));
    CHECK(hp_report_fold_check("bogus", msg, sizeof msg) == -1 && strstr(msg, "unknown profile type 'bogus'"));
    for (int i = 0; i < HP_PT_COUNT; i++) /* the message names exactly the foldable types */
        CHECK((strstr(msg, hp_ptypes[i]->name) != NULL) == (hp_aptypes[i]->folded != NULL));
}

TEST(fold_helper_sanitizes_merges_and_sorts)
{
    hp_fold f;
    const char *odd[3] = {"a;b", "c\nd", ""}, *x[2] = {"x", "y"}, *z[1] = {"z"};
    hp_fold_init(&f);
    CHECK(hp_fold_add(&f, odd, 3, 2) == 0);
    CHECK(hp_fold_add(&f, x, 2, 3) == 0);
    CHECK(hp_fold_add(&f, z, 1, 5) == 0);
    CHECK(hp_fold_add(&f, x, 2, 2) == 0); /* the same stack: merged */
    CHECK(hp_fold_add(&f, z, 1, 0) == 0); /* nothing */
    CHECK(hp_fold_add(&f, odd, 1, UINT64_MAX) == 0);
    CHECK(hp_fold_add(&f, odd, 1, 1) == 0); /* saturates */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    REQUIRE(out != NULL);
    CHECK(hp_fold_write(out, &f) == 0);
    fclose(out);
    CHECK(buf && strcmp(buf, "a_b 18446744073709551615\nx;y 5\nz 5\na_b;c_d;? 2\n") == 0);
    free(buf);
    hp_fold_free(&f);
}

int main(void)
{
    RUN(registry_is_indexed_by_core_id);
    RUN(methods_decode_sums_by_address);
    RUN(callpairs_decode_keys_on_both_addresses);
    RUN(blocks_and_edges_resolve_through_the_block_map);
    RUN(datastream_without_summaries_is_empty);
    RUN(each_type_prints_its_own_table_and_member);
    RUN(compare_views_are_ranked_and_collect_items);
    RUN(each_foldable_type_sums_to_its_totals);
    RUN(folded_default_is_callpairs_else_methods);
    RUN(fold_helper_sanitizes_merges_and_sorts);
    return test_main_end();
}

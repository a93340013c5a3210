/* test_reader.c — the profile reader on files built here with format.h's encoders: a good file,
 * many threads summed, every truncation of a good file, every single-bit flip, a wrong version,
 * an incomplete last group, bad record shapes, a bursty profile's sampling keys, data stream
 * summaries (merged across threads; corrupt ones rejected; foreign ones skipped). */
#include "analysis/profbuild.h"
#include "analysis/profile.h"
#include "core/base/crc32.h"
#include "core/summary/datastream.h"
#include "test.h"
#include <string.h>

static const uint8_t buildid[4] = {0xde, 0xad, 0xbe, 0xef};

static void add_header_sections(hp_pbuild *b)
{
    hp_pbuild_info(b, "program=/bin/demo\nmode=exhaustive\nbad\x01key=v\n");
    hp_pbuild_module(b, 0x400000, 0x401000, 0x500000, "/bin/demo", buildid, 4);
    hp_pbuild_module(b, 0x400000, 0x401000, 0x500000, "/bin/demo", buildid, 4); /* duplicate */
    hp_pbuild_module(b, 0x7f0000000000, 0x7f0000001000, 0x7f0000100000, "/lib/libc.so.6", NULL, 0);
    hp_rec_block map[2] = {{1, 1, 0x401100}, {2, 0, 0x401120}};
    hp_pbuild_blockmap(b, map, 2);
}

/* One group of two threads; counts are scaled by k so successive groups differ. */
static void add_group(hp_pbuild *b, uint64_t seq, uint64_t k, uint64_t flags, int64_t status)
{
    hp_rec_func f1[2] = {{0x401100, 10 * k, 5 * k}, {0x401200, 1 * k, 0}};
    hp_rec_func f2[1] = {{0x401100, 3 * k, 1 * k}};
    hp_rec_callpair c[1] = {{0x401150, 0x401200, 7 * k}};
    hp_rec_count bl[2] = {{1, 0, 100 * k}, {2, 0, 50 * k}};
    hp_rec_edge e[1] = {{1, 2, 40 * k}};
    hp_pbuild_thread(b, 1000, 11 * k);
    hp_pbuild_funcs(b, f1, 2);
    hp_pbuild_callpairs(b, c, 1);
    hp_pbuild_blocks(b, bl, 2);
    hp_pbuild_edges(b, e, 1);
    hp_pbuild_thread(b, 1001, 3 * k);
    hp_pbuild_funcs(b, f2, 1);
    hp_pbuild_callpairs(b, c, 1);
    hp_pbuild_group_end(b, seq, flags, status);
}

static const hp_func_stat *find_func(const hp_profile *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (p->funcs[i].addr == addr) return &p->funcs[i];
    return NULL;
}

static int has_warning(const hp_profile *p, const char *text)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strstr(p->warnings[i], text)) return 1;
    return 0;
}

TEST(reads_a_good_file)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 42);
    add_header_sections(&b);
    hp_pbuild_info(&b, "mode=exhaustive\nthreads=2\n"); /* a key written again keeps its place */
    add_group(&b, 1, 1, HP_GROUP_FINAL, 3);
    REQUIRE(b.ok);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "good", err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->header.seed, 42);
    CHECK(strcmp(hp_profile_info(p, "program"), "/bin/demo") == 0);
    CHECK(strcmp(hp_profile_info(p, "mode"), "exhaustive") == 0);
    CHECK(hp_profile_info(p, "bad?key") != NULL); /* control characters are replaced */
    CHECK_EQ_U64(p->ninfo, 4);
    CHECK(strcmp(p->info[1].key, "mode") == 0);
    CHECK_EQ_U64(p->nmodules, 2);
    CHECK_EQ_U64(p->modules[0].buildid_len, 4);
    CHECK(hp_profile_module_at(p, 0x7f0000002000) == &p->modules[1]);
    CHECK(hp_profile_module_at(p, 0x10) == NULL);
    CHECK(p->have_group);
    CHECK_EQ_U64(p->ngroups, 1);
    CHECK_EQ_U64(p->group_flags, HP_GROUP_FINAL);
    CHECK_EQ_U64(p->exit_status, 3);
    CHECK_EQ_U64(p->nthreads, 2);
    CHECK_EQ_U64(p->nfuncs, 2);
    const hp_func_stat *f = find_func(p, 0x401100);
    REQUIRE(f != NULL);
    CHECK_EQ_U64(f->calls, 13);
    CHECK_EQ_U64(f->backedges, 6);
    CHECK_EQ_U64(p->npairs, 1);
    CHECK_EQ_U64(p->pairs[0].count, 14);
    CHECK_EQ_U64(p->nblocks, 2);
    CHECK(p->blocks[0].mapped && p->blocks[0].pc == 0x401100 && p->blocks[0].flags == 1);
    CHECK_EQ_U64(p->nedges, 1);
    CHECK(p->edges[0].mapped && p->edges[0].from_pc == 0x401100 && p->edges[0].to_pc == 0x401120);
    CHECK_EQ_U64(hp_profile_total_calls(p), 14);
    CHECK_EQ_U64(p->nwarnings, 0);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(sums_many_threads)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 1);
    add_header_sections(&b);
    for (uint64_t t = 0; t < 200; t++) {
        hp_rec_func f = {0x401100, t, 2 * t};
        hp_rec_callpair c = {0x401150 + (t % 3), 0x401200, 1};
        hp_pbuild_thread(&b, t, t);
        hp_pbuild_funcs(&b, &f, 1);
        hp_pbuild_callpairs(&b, &c, 1);
    }
    hp_pbuild_group_end(&b, 1, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "threads", err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nthreads, 200);
    CHECK_EQ_U64(p->nfuncs, 1);
    CHECK_EQ_U64(p->funcs[0].calls, 199 * 200 / 2);
    CHECK_EQ_U64(p->funcs[0].backedges, 199 * 200);
    CHECK_EQ_U64(p->npairs, 3);
    CHECK_EQ_U64(hp_profile_total_pairs(p), 200);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

/* Every prefix of a two-group file reads as an error (only inside the file header), as "no
 * group", as group 1 or as group 2, according to where the cut falls. */
TEST(every_truncation_reads_the_previous_group)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    add_header_sections(&b);
    add_group(&b, 1, 1, 0, 0);
    size_t end1 = b.len;
    add_group(&b, 2, 2, HP_GROUP_FINAL, 0);
    REQUIRE(b.ok);
    int bad = 0;
    for (size_t len = 0; len <= b.len; len++) {
        hp_profile *p = hp_profile_read_mem(b.buf, len, "cut", err, sizeof err);
        if (len < HP_FMT_FILE_HEADER_SIZE) {
            bad += p != NULL || err[0] == 0;
            hp_profile_free(p);
            continue;
        }
        if (!p) {
            fprintf(stderr, "  len %zu: %s\n", len, err);
            bad++;
            continue;
        }
        uint64_t expect = len == b.len ? 26 : len >= end1 ? 13 : 0;
        const hp_func_stat *f = find_func(p, 0x401100);
        bad += (f ? f->calls : 0) != expect;
        int at_boundary = len == end1 || len == b.len;
        bad += !at_boundary != (has_warning(p, "incomplete group") || has_warning(p, "no complete group"));
        hp_profile_free(p);
    }
    CHECK_EQ_U64(bad, 0);
    hp_pbuild_free(&b);
}

TEST(every_bit_flip_is_an_error)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    add_header_sections(&b);
    add_group(&b, 1, 1, HP_GROUP_FINAL, 0);
    REQUIRE(b.ok);
    int accepted = 0, unclear = 0;
    for (size_t bit = 0; bit < b.len * 8; bit++) {
        b.buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        hp_profile *p = hp_profile_read_mem(b.buf, b.len, "flip", err, sizeof err);
        b.buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        accepted += p != NULL;
        unclear += !p && !strstr(err, "checksum") && !strstr(err, "magic");
        hp_profile_free(p);
    }
    CHECK_EQ_U64(accepted, 0);
    CHECK_EQ_U64(unclear, 0);
    hp_pbuild_free(&b);
}

TEST(payload_flip_names_section_and_offset)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    hp_pbuild_info(&b, "program=x\n");
    size_t funcs_at = b.len;
    add_group(&b, 1, 1, 0, 0);
    b.buf[b.len - 10] ^= 4; /* inside the GROUP_END payload */
    CHECK(hp_profile_read_mem(b.buf, b.len, "f.data", err, sizeof err) == NULL);
    CHECK(strstr(err, "f.data: section 9 (group_end) checksum mismatch at offset") != NULL);
    CHECK(funcs_at > 0);
    hp_pbuild_free(&b);
}

TEST(wrong_version_is_refused)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    b.buf[8] = 7; /* major version, then re-seal the header checksum */
    uint32_t crc = hp_crc32(0, b.buf, 28);
    for (int i = 0; i < 4; i++) b.buf[28 + i] = (uint8_t)(crc >> (8 * i));
    CHECK(hp_profile_read_mem(b.buf, b.len, "v.data", err, sizeof err) == NULL);
    CHECK(strcmp(err, "v.data: unsupported profile format version 7 (this hotprof reads 1)") == 0);
    memcpy(b.buf, "NOTPROF", 8);
    CHECK(hp_profile_read_mem(b.buf, b.len, "m.data", err, sizeof err) == NULL);
    CHECK(strcmp(err, "m.data: not a hotprof profile (bad magic)") == 0);
    hp_pbuild_free(&b);
}

TEST(incomplete_last_group_is_ignored)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    add_header_sections(&b);
    add_group(&b, 1, 1, 0, 0);
    hp_rec_func f = {0x401100, 1000, 0};
    hp_pbuild_thread(&b, 5, 5);
    hp_pbuild_funcs(&b, &f, 1);
    hp_pbuild_info(&b, "mode=from-the-incomplete-group\n");
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "inc", err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(find_func(p, 0x401100)->calls, 13);
    CHECK_EQ_U64(p->nthreads, 2);
    CHECK(has_warning(p, "profile ends with an incomplete group (program killed while writing?)"));
    CHECK(strcmp(hp_profile_info(p, "mode"), "exhaustive") == 0);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(unfinished_section_placeholder_ends_the_file)
{
    hp_pbuild b;
    char err[256];
    uint8_t placeholder[24 + 40] = {0};
    hp_pbuild_init(&b, 7);
    add_header_sections(&b);
    add_group(&b, 1, 1, 0, 0);
    hp_pbuild_thread(&b, 5, 5);
    for (size_t i = 24; i < sizeof placeholder; i++) placeholder[i] = (uint8_t)(i * 37); /* payload so far */
    REQUIRE(b.ok);
    uint8_t *file = malloc(b.len + sizeof placeholder);
    REQUIRE(file != NULL);
    memcpy(file, b.buf, b.len);
    memcpy(file + b.len, placeholder, sizeof placeholder);
    hp_profile *p = hp_profile_read_mem(file, b.len + sizeof placeholder, "ph", err, sizeof err);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U64(find_func(p, 0x401100)->calls, 13);
        CHECK(has_warning(p, "incomplete group"));
        CHECK(has_warning(p, "unfinished"));
    }
    hp_profile_free(p);
    free(file);
    hp_pbuild_free(&b);
}

TEST(no_group_is_readable_and_empty)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    add_header_sections(&b);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "empty", err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(!p->have_group);
    CHECK_EQ_U64(p->nfuncs, 0);
    CHECK(has_warning(p, "no complete group"));
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(bad_record_shapes_are_errors)
{
    hp_pbuild b;
    char err[256];
    uint8_t junk[25] = {0};
    hp_pbuild_init(&b, 7);
    hp_pbuild_section(&b, HP_SEC_FUNCS, junk, 25);
    hp_pbuild_group_end(&b, 1, 0, 0);
    CHECK(hp_profile_read_mem(b.buf, b.len, "s", err, sizeof err) == NULL);
    CHECK(strstr(err, "section 0 (funcs) at offset 32 has a bad length 25") != NULL);
    hp_pbuild_free(&b);

    hp_pbuild_init(&b, 7);
    hp_pbuild_section(&b, HP_SEC_SUMMARY, junk, 7);
    CHECK(hp_profile_read_mem(b.buf, b.len, "u", err, sizeof err) == NULL);
    CHECK(strstr(err, "section 0 (summary) at offset 32 is too short") != NULL);
    hp_pbuild_free(&b);

    uint8_t mod[40] = {0};
    mod[24] = 200; /* path_len runs past the payload */
    hp_pbuild_init(&b, 7);
    hp_pbuild_section(&b, HP_SEC_MODULES, mod, sizeof mod);
    CHECK(hp_profile_read_mem(b.buf, b.len, "m", err, sizeof err) == NULL);
    CHECK(strstr(err, "runs past the end") != NULL);
    hp_pbuild_free(&b);
}

/* A bursty profile: sampling keys in the start INFO and in each group's INFO (the last group's
 * per-thread values win); malformed values are warnings; exhaustive profiles have none of it. */
TEST(reads_bursty_sampling_keys)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 5);
    hp_pbuild_info(&b, "program=/bin/demo\nmode=bursty\nsample.methods=period=99,burst=1,jitter=20\n"
                       "sample.methods.enabled=1\nsample.edges=period=x\nsample.callpairs=burst=10\n");
    hp_pbuild_info(&b, "thread.1000.events.methods=5\nthread.1000.sampled.methods=1\n"); /* group 0's */
    add_group(&b, 0, 1, 0, 0);
    hp_pbuild_info(&b, "thread.1000=1 2 3 4 5 6\nthread.1000.seed=77\nthread.1000.events.methods=10000\n"
                       "thread.1000.sampled.methods=100\nthread.1001.events.methods=5000\n"
                       "thread.1001.sampled.methods=50\nthread.1001.sampled.bogus=3\n"
                       "thread.1000.events.callpairs=12x\nthread.1000.events.datastream=7\n");
    add_group(&b, 1, 2, HP_GROUP_FINAL, 0);
    hp_pbuild_info(&b, "thread.1000.events.methods=1\n"); /* after the last group: ignored */
    REQUIRE(b.ok);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "bursty", err, sizeof err);
    hp_pbuild_free(&b);
    REQUIRE(p != NULL);
    CHECK(p->bursty);
    const hp_sample_stat *m = &p->sample[HP_BURSTY_METHODS];
    CHECK(m->known && m->enabled);
    CHECK_EQ_U64(m->period, 99);
    CHECK_EQ_U64(m->burst, 1);
    CHECK_EQ_U64(m->jitter, 20);
    CHECK_EQ_U64(m->events, 15000);
    CHECK_EQ_U64(m->sampled, 150);
    CHECK_NEAR(hp_profile_sample_frequency(p, HP_BURSTY_METHODS), 0.01, 1e-12);
    const hp_sample_stat *cp = &p->sample[HP_BURSTY_CALL_PAIRS];
    CHECK(cp->known && !cp->enabled);
    CHECK_EQ_U64(cp->period, 1000); /* the default for a key left out */
    CHECK_EQ_U64(cp->burst, 10);
    CHECK_EQ_U64(cp->events, 0);
    CHECK(!p->sample[HP_BURSTY_EDGES].known);
    CHECK(has_warning(p, "sample.edges"));
    CHECK(has_warning(p, "not a count: '12x'"));
    CHECK_EQ_U64(p->sample[HP_BURSTY_DATA_STREAMS].events, 7);
    CHECK(hp_profile_sample_frequency(p, HP_BURSTY_DATA_STREAMS) == 0.0);
    CHECK(hp_profile_sample_frequency(p, 99) == 0.0);
    const hp_func_stat *f = find_func(p, 0x401100); /* counts are read as they are */
    REQUIRE(f != NULL);
    CHECK_EQ_U64(f->calls, 26);
    hp_profile_free(p);

    hp_pbuild_init(&b, 5); /* the same keys in an exhaustive profile mean nothing */
    hp_pbuild_info(&b, "mode=exhaustive\nsample.methods=period=99,burst=1,jitter=0\n");
    hp_pbuild_info(&b, "thread.1000.events.methods=10000\n");
    add_group(&b, 0, 1, HP_GROUP_FINAL, 0);
    p = hp_profile_read_mem(b.buf, b.len, "exh", err, sizeof err);
    hp_pbuild_free(&b);
    REQUIRE(p != NULL);
    CHECK(!p->bursty && !p->sample[HP_BURSTY_METHODS].known && p->sample[HP_BURSTY_METHODS].events == 0);
    hp_profile_free(p);
}

TEST(missing_file_is_a_clear_error)
{
    char err[256];
    CHECK(hp_profile_read_file("/nonexistent/hotprof.data", err, sizeof err) == NULL);
    CHECK(strcmp(err, "/nonexistent/hotprof.data: cannot open: No such file or directory") == 0);
}


/* ---- data stream summaries ---- */

/* A detector (seed `seed`) that saw `reps` occurrences of the 6-reference stream at 0x1000..,
 * each followed by 5 random references. *blob / *len: its serialized form (malloc'd). */
static void ds_blob(uint64_t seed, int reps, uint64_t noise_seed, uint8_t **blob, size_t *len)
{
    hp_ds_config c;
    hp_ds_default_config(&c);
    c.seed = seed;
    size_t n = hp_ds_bytes_for(&c);
    void *mem = aligned_alloc(64, (n + 63) / 64 * 64);
    hp_ds_state *s = hp_ds_init(mem, n, &c);
    uint64_t x = noise_seed;
    for (int r = 0; s && r < reps; r++) {
        for (uint64_t i = 0; i < 6; i++) hp_ds_access(s, 0x1000 + 16 * i);
        for (int k = 0; k < 5; k++) x = x * 6364136223846793005ull + 1, hp_ds_access(s, 0x900000 + (x >> 40) * 8);
        if (r % 50 == 49) hp_ds_burst_end(s);
    }
    if (s) hp_ds_burst_end(s);
    *len = s ? hp_ds_serialized_size(s) : 0;
    *blob = malloc(*len ? *len : 1);
    if (s) hp_ds_serialize(s, *blob, *len);
    free(mem);
}

/* A bursty file whose group holds the given summaries (one thread each). */
static void ds_file(hp_pbuild *b, uint8_t *const *blobs, const size_t *lens, size_t n)
{
    hp_pbuild_init(b, 5);
    hp_pbuild_info(b, "mode=bursty\nsample.datastream=period=900,burst=100\nsample.datastream.enabled=1\n");
    for (size_t i = 0; i < n; i++) {
        hp_pbuild_thread(b, 2000 + i, 1000);
        hp_pbuild_summary(b, i == n - 1 && n > 2 ? 99 : HP_PROFILE_DATASTREAM, blobs[i], lens[i]);
    }
    hp_pbuild_info(b, "thread.2000.events.datastream=1000\nthread.2000.sampled.datastream=100\n");
    hp_pbuild_group_end(b, 0, HP_GROUP_FINAL, 0);
}

TEST(datastream_summaries_merge_across_threads)
{
    uint8_t *blob[3];
    size_t len[3];
    char err[256];
    hp_pbuild b;
    ds_blob(1, 400, 1, &blob[0], &len[0]);
    ds_blob(1, 200, 2, &blob[1], &len[1]);
    ds_blob(1, 10, 3, &blob[2], &len[2]); /* profile type 99: skipped */
    ds_file(&b, blob, len, 3);
    REQUIRE(b.ok);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "ds", err, sizeof err);
    REQUIRE(p);
    CHECK_EQ_U64(p->nsummaries, 3);
    CHECK_EQ_U64(p->ds.states, 2);
    CHECK_EQ_U64(p->ds.refs_seen, 600 * 11);
    REQUIRE(p->ds.nstreams >= 1);
    const hp_ds_stream *st = &p->ds.streams[0];
    CHECK_EQ_U64(st->len, 6);
    for (uint32_t i = 0; i < st->len && i < 6; i++) CHECK_EQ_U64(st->addr[i], 0x1000 + 16 * i);
    CHECK(st->freq >= 590 && st->freq <= 600); /* occurrences inside one trace <= freq <= all */
    CHECK_NEAR(hp_profile_sample_frequency(p, HP_BURSTY_DATA_STREAMS), 0.1, 1e-12);
    hp_profile_free(p);
    hp_pbuild_free(&b);
    for (int i = 0; i < 3; i++) free(blob[i]);
}

TEST(datastream_corrupt_or_foreign_summaries)
{
    uint8_t *blob[2];
    size_t len[2];
    char err[256];
    hp_pbuild b;
    ds_blob(1, 300, 1, &blob[0], &len[0]);
    ds_blob(777, 300, 2, &blob[1], &len[1]); /* another seed: cannot merge */
    ds_file(&b, blob, len, 2);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "ds", err, sizeof err);
    REQUIRE(p);
    CHECK_EQ_U64(p->ds.states, 1);
    CHECK(has_warning(p, "another configuration"));
    hp_profile_free(p);
    hp_pbuild_free(&b);
    /* every byte of the first blob flipped in turn (section CRCs valid): an error or, when the
     * flip leaves a valid state (a count, say), a readable profile; never a crash */
    size_t errors = 0, stride = len[0] / 97 + 1;
    for (size_t at = 0; at < len[0]; at += stride) {
        blob[0][at] ^= 0x21;
        ds_file(&b, blob, len, 1);
        p = hp_profile_read_mem(b.buf, b.len, "ds", err, sizeof err);
        if (!p) {
            errors++;
            CHECK(strstr(err, "corrupt datastream summary") != NULL);
        }
        hp_profile_free(p);
        hp_pbuild_free(&b);
        blob[0][at] ^= 0x21;
    }
    CHECK_EQ_U64(errors, (len[0] + stride - 1) / stride); /* the blob's own CRC catches every flip */
    ds_file(&b, blob, (size_t[]){len[0] - 9}, 1);  /* cut */
    CHECK(hp_profile_read_mem(b.buf, b.len, "ds", err, sizeof err) == NULL);
    CHECK(strstr(err, "section 2 (summary)") && strstr(err, "corrupt datastream summary"));
    hp_pbuild_free(&b);
    for (int i = 0; i < 2; i++) free(blob[i]);
}

int main(void)
{
    RUN(reads_a_good_file);
    RUN(sums_many_threads);
    RUN(every_truncation_reads_the_previous_group);
    RUN(every_bit_flip_is_an_error);
    RUN(payload_flip_names_section_and_offset);
    RUN(wrong_version_is_refused);
    RUN(incomplete_last_group_is_ignored);
    RUN(unfinished_section_placeholder_ends_the_file);
    RUN(no_group_is_readable_and_empty);
    RUN(bad_record_shapes_are_errors);
    RUN(missing_file_is_a_clear_error);
    RUN(reads_bursty_sampling_keys);
    RUN(datastream_summaries_merge_across_threads);
    RUN(datastream_corrupt_or_foreign_summaries);
    return test_main_end();
}

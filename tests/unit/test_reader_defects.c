/* test_reader_defects.c — the reader's defects of issue 8, each on files built here with valid
 * checksums (profbuild.h):
 *   defect 1:  reading from a descriptor checks the file header before reading on, and stops at a
 *              size limit (a pipe that never ends, an input over the limit);
 *   defect 10: a corrupt datastream SUMMARY in an earlier group is an error like in the last one;
 *              cross-section inconsistencies (a data section before any THREAD, one type twice
 *              in one thread, one thread twice in one group, an absurd GROUP_END) are warnings;
 *   defect 11: a file that ends right after a MODULES or BLOCKMAP that follows a GROUP_END warns
 *              that its last group is incomplete (docs/format.md, reading rule 5).
 */
#include "analysis/profbuild.h"
#include "analysis/profile.h"
#include "core/summary/datastream.h"
#include "test.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const hp_rec_func funcs[1] = {{0x401100, 10, 5}};
static const hp_rec_callpair pairs[1] = {{0x401150, 0x401200, 7}};

static void start(hp_pbuild *b)
{
    hp_pbuild_init(b, 3);
    hp_pbuild_info(b, "program=/bin/demo\nmode=exhaustive\n");
    hp_pbuild_module(b, 0x400000, 0x401000, 0x500000, "/bin/demo", NULL, 0);
}

/* MODULES, BLOCKMAP, one thread (tid) with FUNCS and CALLPAIRS, GROUP_END. */
static void good_group(hp_pbuild *b, uint64_t seq, uint64_t tid, uint64_t flags, int64_t status)
{
    hp_rec_block map[1] = {{1, 1, 0x401100}};
    hp_pbuild_module(b, 0x400000, 0x401000, 0x500000, "/bin/demo", NULL, 0);
    hp_pbuild_blockmap(b, map, 1);
    hp_pbuild_thread(b, tid, 22);
    hp_pbuild_funcs(b, funcs, 1);
    hp_pbuild_callpairs(b, pairs, 1);
    hp_pbuild_group_end(b, seq, flags, status);
}

static int has_warning(const hp_profile *p, const char *text)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strstr(p->warnings[i], text)) return 1;
    return 0;
}

static hp_profile *read_built(hp_pbuild *b, char *err, size_t errlen)
{
    return b->ok ? hp_profile_read_mem(b->buf, b->len, "t.data", err, errlen) : NULL;
}

/* ---- defect 1: header first, size limit ---- */

/* A pipe holding `len` bytes of `data`; the write end stays open when keep_open (no EOF ever). */
static int pipe_with(const void *data, size_t len, int keep_open, int *wfd)
{
    int fds[2];
    if (pipe(fds)) return -1;
    if (len && write(fds[1], data, len) != (ssize_t)len) return close(fds[0]), close(fds[1]), -1;
    if (keep_open) *wfd = fds[1];
    else close(fds[1]);
    return fds[0];
}

TEST(endless_zeros_end_at_the_header)
{
    static uint8_t zeros[4096];
    char err[256];
    int wfd = -1, rfd = pipe_with(zeros, sizeof zeros, 1, &wfd);
    REQUIRE(rfd >= 0);
    alarm(10); /* a reader that reads on would block here forever */
    hp_profile *p = hp_profile_read_fd(rfd, "zeros", 1 << 20, err, sizeof err);
    alarm(0);
    CHECK(p == NULL);
    CHECK(strstr(err, "zeros: not a hotprof profile") != NULL);
    close(rfd), close(wfd);
}

TEST(input_over_the_limit_is_refused)
{
    hp_pbuild b;
    char err[256];
    start(&b);
    good_group(&b, 0, 1, HP_GROUP_FINAL, 0);
    REQUIRE(b.ok);
    int rfd = pipe_with(b.buf, b.len, 0, NULL);
    REQUIRE(rfd >= 0);
    CHECK(hp_profile_read_fd(rfd, "big", b.len - 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "big: larger than") != NULL);
    close(rfd);
    rfd = pipe_with(b.buf, b.len, 0, NULL); /* exactly at the limit: read */
    hp_profile *p = hp_profile_read_fd(rfd, "fits", b.len, err, sizeof err);
    CHECK(p != NULL);
    CHECK_EQ_U64(p ? p->nfuncs : 0, 1);
    hp_profile_free(p);
    close(rfd);
    hp_pbuild_free(&b);
}

/* ---- defect 10: every group's summaries, cross-section consistency ---- */

static void ds_blob(uint8_t **blob, size_t *len)
{
    hp_ds_config c;
    hp_ds_default_config(&c);
    size_t n = hp_ds_bytes_for(&c);
    void *mem = aligned_alloc(64, (n + 63) / 64 * 64);
    hp_ds_state *s = mem ? hp_ds_init(mem, n, &c) : NULL;
    for (int r = 0; s && r < 100; r++)
        for (uint64_t i = 0; i < 6; i++) hp_ds_access(s, 0x1000 + 16 * i);
    if (s) hp_ds_burst_end(s);
    *len = s ? hp_ds_serialized_size(s) : 0;
    *blob = malloc(*len ? *len : 1);
    if (s && *blob) hp_ds_serialize(s, *blob, *len);
    free(mem);
}

static void ds_group(hp_pbuild *b, uint64_t seq, const uint8_t *blob, size_t len, uint64_t flags)
{
    hp_pbuild_thread(b, 7, 100);
    hp_pbuild_funcs(b, funcs, 1);
    hp_pbuild_summary(b, HP_PROFILE_DATASTREAM, blob, len);
    hp_pbuild_group_end(b, seq, flags, 0);
}

TEST(corrupt_summary_in_an_earlier_group_is_an_error)
{
    uint8_t *blob, *bad;
    size_t len;
    char err[256];
    hp_pbuild b;
    ds_blob(&blob, &len);
    REQUIRE(len > 64);
    bad = malloc(len);
    REQUIRE(bad);
    memcpy(bad, blob, len);
    bad[len / 2] ^= 0x40; /* the section CRC is computed over the flipped bytes: only the blob's own CRC sees it */
    start(&b);
    ds_group(&b, 0, bad, len, 0);
    ds_group(&b, 1, blob, len, HP_GROUP_FINAL);
    CHECK(read_built(&b, err, sizeof err) == NULL);
    CHECK(strstr(err, "corrupt datastream summary") != NULL);
    hp_pbuild_free(&b);
    start(&b); /* the same two groups, both good: read, and only the last is kept */
    ds_group(&b, 0, blob, len, 0);
    ds_group(&b, 1, blob, len, HP_GROUP_FINAL);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->ds.states, 1);
    CHECK_EQ_U64(p->nwarnings, 0);
    hp_profile_free(p);
    hp_pbuild_free(&b);
    free(blob), free(bad);
}

TEST(data_section_before_any_thread_warns)
{
    hp_pbuild b;
    char err[256];
    start(&b);
    hp_pbuild_funcs(&b, funcs, 1); /* no THREAD before it */
    hp_pbuild_thread(&b, 1, 22);
    hp_pbuild_callpairs(&b, pairs, 1);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(has_warning(p, "section 2 (funcs) at offset"));
    CHECK(has_warning(p, "before any thread"));
    CHECK_EQ_U64(p->nfuncs, 1); /* still read */
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(one_type_twice_in_a_thread_warns)
{
    hp_pbuild b;
    char err[256];
    start(&b);
    hp_pbuild_thread(&b, 1, 22);
    hp_pbuild_funcs(&b, funcs, 1);
    hp_pbuild_funcs(&b, funcs, 1);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(has_warning(p, "second funcs section of thread 1"));
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(one_thread_twice_in_a_group_warns)
{
    hp_pbuild b;
    char err[256];
    start(&b);
    hp_pbuild_thread(&b, 5, 22);
    hp_pbuild_funcs(&b, funcs, 1);
    hp_pbuild_thread(&b, 5, 22);
    hp_pbuild_callpairs(&b, pairs, 1);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(has_warning(p, "thread 5 appears twice in group 0"));
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(absurd_group_end_warns)
{
    static const struct { uint64_t seq, flags; int64_t status; const char *why; } bad[] = {
        {0, 0x80, 0, "unknown flags"},
        {0, HP_GROUP_FINAL | HP_GROUP_CRASH, 0, "both final and crash"},
        {0, HP_GROUP_CRASH, 11, "not a signal"},
        {0, HP_GROUP_CRASH, -9999, "not a signal"},
        {0, HP_GROUP_FINAL, (int64_t)1 << 40, "not an exit status"},
        {0, 0, 5, "snapshot with an exit status"},
        {0, HP_GROUP_EXEC, 0, "exec group that is not final"},
        {0, HP_GROUP_EXEC | HP_GROUP_FINAL, 3, "exec group that is not final with status 0"},
    };
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hp_pbuild b;
        start(&b);
        good_group(&b, bad[i].seq, 1, bad[i].flags, bad[i].status);
        hp_profile *p = read_built(&b, err, sizeof err);
        REQUIRE(p != NULL);
        CHECK(has_warning(p, bad[i].why));
        hp_profile_free(p);
        hp_pbuild_free(&b);
    }
    hp_pbuild e; /* a group written before exec() is a good group */
    start(&e);
    good_group(&e, 0, 1, HP_GROUP_FINAL | HP_GROUP_EXEC, 0);
    hp_profile *pe = read_built(&e, err, sizeof err);
    REQUIRE(pe != NULL);
    CHECK_EQ_U64(pe->nwarnings, 0);
    hp_profile_free(pe);
    hp_pbuild_free(&e);
    hp_pbuild b; /* sequences must grow */
    start(&b);
    good_group(&b, 4, 1, 0, 0);
    good_group(&b, 4, 1, HP_GROUP_FINAL, 0);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(has_warning(p, "sequence 4 does not follow 4"));
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

TEST(consistent_files_have_no_warning)
{
    hp_pbuild b;
    char err[256];
    start(&b);
    good_group(&b, 0, 1, 0, 0);
    good_group(&b, 1, 1, HP_GROUP_CRASH, -11);
    hp_profile *p = read_built(&b, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nwarnings, 0);
    hp_profile_free(p);
    hp_pbuild_free(&b);
}

/* ---- defect 11: a tail of MODULES / BLOCKMAP only ---- */

TEST(file_cut_after_modules_or_blockmap_after_a_group_warns)
{
    hp_rec_block map[1] = {{1, 1, 0x401100}};
    char err[256];
    for (int with_blockmap = 0; with_blockmap < 2; with_blockmap++) {
        hp_pbuild b;
        start(&b);
        good_group(&b, 0, 1, 0, 0);
        hp_pbuild_module(&b, 0x400000, 0x401000, 0x500000, "/bin/demo", NULL, 0); /* next group starts... */
        if (with_blockmap) hp_pbuild_blockmap(&b, map, 1);                         /* ...and the file ends */
        hp_profile *p = read_built(&b, err, sizeof err);
        REQUIRE(p != NULL);
        CHECK(has_warning(p, "profile ends with an incomplete group"));
        CHECK_EQ_U64(p->nfuncs, 1);
        hp_profile_free(p);
        hp_pbuild_free(&b);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(input_over_the_limit_is_refused);
    RUN(corrupt_summary_in_an_earlier_group_is_an_error);
    RUN(data_section_before_any_thread_warns);
    RUN(one_type_twice_in_a_thread_warns);
    RUN(one_thread_twice_in_a_group_warns);
    RUN(absurd_group_end_warns);
    RUN(consistent_files_have_no_warning);
    RUN(file_cut_after_modules_or_blockmap_after_a_group_warns);
    RUN(endless_zeros_end_at_the_header); /* last: before the fix, it hangs until the alarm */
    return test_main_end();
}

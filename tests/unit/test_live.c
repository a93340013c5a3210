/* test_live.c — the live segment (core/format/live.h), its publisher (runtime/live.c, linked
 * alone from libhotprof_rtparts.a) and its reader (analysis/live.c):
 *   - row layout: the segment's row is the runtime's hp_live_row field for field;
 *   - seqlock: a read that overlaps a write is refused, one that does not is accepted; and under
 *     a writer thread rewriting every row with its generation, no accepted copy mixes two
 *     generations (and some copies are accepted);
 *   - publisher and reader: hp_live_start makes /dev/shm/hotprof.<pid> (0600, a private
 *     regular file), the reader attaches, asks, and gets a refresh holding the module list and
 *     the methods and callpairs live views; hp_live_stop removes the name;
 *   - bad segments: no process, a segment of another layout, a stale segment of a dead process
 *     (attach says so and removes it).
 * This test stands in for init (hp_rt_ensure_init, init.h) as test_rt_thread.c does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "analysis/live.h"
#include "core/format/live.h"
#include "runtime/live.h"
#include "runtime/modules.h"
#include "runtime/pt/pt.h"
#include "test.h"

int hp_rt_ensure_init(void) { return 0; }

static hp_live_segment g_seg; /* a segment in ordinary memory, for the seqlock tests */

TEST(row_layout_is_the_runtime_row)
{
    CHECK_EQ_U64(sizeof(hp_live_shm_row), sizeof(hp_live_row));
    CHECK_EQ_U64(offsetof(hp_live_shm_row, key2), offsetof(hp_live_row, key2));
    CHECK_EQ_U64(offsetof(hp_live_shm_row, value), offsetof(hp_live_row, value));
    CHECK_EQ_U64(offsetof(hp_live_shm_row, npcs), offsetof(hp_live_row, npcs));
    CHECK_EQ_U64(offsetof(hp_live_shm_row, pcs), offsetof(hp_live_row, pcs));
    CHECK_EQ_U64(HP_LIVE_ROW_PCS, HP_LIVE_PCS);
    CHECK(offsetof(hp_live_segment, seq) < offsetof(hp_live_segment, refreshed_ns));
}

TEST(a_read_overlapping_a_write_is_refused)
{
    memset(&g_seg, 0, sizeof g_seg);
    uint64_t seq = hp_live_read_begin(&g_seg);
    CHECK(hp_live_read_valid(&g_seg, seq)); /* nothing written meanwhile */
    hp_live_write_begin(&g_seg);
    CHECK(!hp_live_read_valid(&g_seg, seq)); /* a write started after the read began */
    uint64_t during = hp_live_read_begin(&g_seg);
    CHECK(during & 1);
    CHECK(!hp_live_read_valid(&g_seg, during)); /* began during a write */
    hp_live_write_end(&g_seg);
    CHECK(!hp_live_read_valid(&g_seg, during));
    uint64_t after = hp_live_read_begin(&g_seg);
    CHECK_EQ_U64(after, seq + 2);
    CHECK(hp_live_read_valid(&g_seg, after));
}

static volatile int g_stop;

/* Rewrites every row of table 0 with its generation, under the seqlock, until told to stop. */
static void *writer(void *arg)
{
    for (uint64_t gen = 1; !g_stop; gen++) {
        hp_live_write_begin(&g_seg);
        g_seg.types[0].nrows = HP_LIVE_K;
        for (int i = 0; i < HP_LIVE_K; i++)
            __atomic_store_n(&g_seg.types[0].rows[i].key, gen, __ATOMIC_RELAXED);
        __atomic_store_n(&g_seg.refreshes, gen, __ATOMIC_RELAXED);
        hp_live_write_end(&g_seg);
        for (volatile int k = 0; k < 500; k++) {} /* a gap in which readers may succeed */
    }
    return arg;
}

/* 1 if every row of the copy holds the copy's generation. */
static int consistent(const hp_live_segment *c)
{
    for (int i = 0; i < HP_LIVE_K; i++)
        if (c->types[0].rows[i].key != c->refreshes) return 0;
    return 1;
}

TEST(accepted_copies_never_mix_two_refreshes)
{
    static hp_live_segment copy;
    pthread_t th;
    memset(&g_seg, 0, sizeof g_seg);
    g_stop = 0;
    int started = pthread_create(&th, NULL, writer, NULL); /* REQUIRE evaluates twice */
    REQUIRE(started == 0);
    while (hp_live_read_begin(&g_seg) < 4) {} /* the writer is running */
    int accepted = 0, mixed = 0;
    for (int i = 0; i < 2000000 && accepted < 5000; i++) {
        uint64_t seq = hp_live_read_begin(&g_seg);
        for (int r = 0; r < HP_LIVE_K; r++) /* the copy: word by word, as memcpy may do it */
            copy.types[0].rows[r].key = __atomic_load_n(&g_seg.types[0].rows[r].key, __ATOMIC_RELAXED);
        copy.refreshes = __atomic_load_n(&g_seg.refreshes, __ATOMIC_RELAXED);
        if (!hp_live_read_valid(&g_seg, seq)) continue;
        accepted++;
        mixed += !consistent(&copy);
    }
    g_stop = 1;
    pthread_join(th, NULL);
    CHECK(accepted > 0);
    CHECK_EQ_U64(mixed, 0);
    CHECK(hp_live_read_begin(&g_seg) > 4); /* the writer ran meanwhile: reads did overlap writes */
}

/* Waits up to 3 s for a refresh (the publisher wakes every 250 ms). */
static int wait_refresh(hp_live_reader *r, hp_live_segment *snap)
{
    int gone = 0;
    for (int i = 0; i < 300; i++) {
        hp_live_ask(r);
        if (hp_live_snapshot(r, snap, &gone) == 1) return 1;
        struct timespec ms = {0, 10000000};
        nanosleep(&ms, NULL);
    }
    return 0;
}

TEST(publisher_and_reader)
{
    static hp_live_segment snap;
    char path[64], msg[256];
    struct stat st;
    hp_live_reader *r = NULL;
    snprintf(path, sizeof path, HP_LIVE_NAME_PREFIX "%d", (int)getpid());
    hp_modules_refresh();
    int rc = hp_live_start();
    REQUIRE(rc == 0);
    int found = stat(path, &st);
    REQUIRE(found == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK_EQ_U64(st.st_mode & 0777, 0600);
    hp_live_status st_attach = hp_live_attach((uint64_t)getpid(), &r, msg, sizeof msg);
    REQUIRE(st_attach == HP_LIVE_OK);
    CHECK(wait_refresh(r, &snap));
    CHECK_EQ_U64(snap.pid, (uint64_t)getpid());
    CHECK(snap.modules_len > 0);
    CHECK(strstr(snap.program, "test_live") != NULL);
    int m = hp_live_table_named(&snap, "methods"), c = hp_live_table_named(&snap, "calls");
    REQUIRE(m >= 0);
    CHECK(snap.types[m].live);
    CHECK(c == m); /* a synonym names the same table */
    CHECK(hp_live_table_named(&snap, "callpairs") >= 0 && snap.types[hp_live_table_named(&snap, "callpairs")].live);
    CHECK(hp_live_table_named(&snap, "nosuchtype") == -1);
    hp_live_close(r);
    hp_live_stop();
    CHECK(stat(path, &st) != 0);
}

/* Writes a segment file for pid at its name: a whole header when good, else a wrong magic. */
static int write_segment(uint64_t pid, int good)
{
    static hp_live_segment s;
    char path[64];
    memset(&s, 0, sizeof s);
    s.magic = good ? HP_LIVE_MAGIC : 0x1234;
    s.version = HP_LIVE_VERSION, s.segment_bytes = sizeof s, s.pid = pid;
    snprintf(path, sizeof path, HP_LIVE_NAME_PREFIX "%llu", (unsigned long long)pid);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    int ok = write(fd, &s, sizeof s) == (ssize_t)sizeof s;
    close(fd);
    return ok ? 0 : -1;
}

TEST(bad_segments_and_processes)
{
    char msg[256], path[64];
    hp_live_reader *r = NULL;
    CHECK_EQ_U64(hp_live_attach(0, &r, msg, sizeof msg), HP_LIVE_NO_PROCESS);
    CHECK_EQ_U64(hp_live_attach(1, &r, msg, sizeof msg), HP_LIVE_NOT_HOTPROF); /* init: alive, no segment */
    CHECK(strstr(msg, "not a hotprof program") != NULL);
    int wrote = write_segment((uint64_t)getpid(), 0);
    REQUIRE(wrote == 0);
    CHECK_EQ_U64(hp_live_attach((uint64_t)getpid(), &r, msg, sizeof msg), HP_LIVE_BAD);
    snprintf(path, sizeof path, HP_LIVE_NAME_PREFIX "%d", (int)getpid());
    unlink(path);
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    wrote = write_segment((uint64_t)dead, 1);
    REQUIRE(wrote == 0);
    CHECK_EQ_U64(hp_live_attach((uint64_t)dead, &r, msg, sizeof msg), HP_LIVE_NO_PROCESS);
    snprintf(path, sizeof path, HP_LIVE_NAME_PREFIX "%d", (int)dead);
    CHECK(access(path, F_OK) != 0); /* the stale segment was removed */
    CHECK(r == NULL);
}

int main(void)
{
    RUN(row_layout_is_the_runtime_row);
    RUN(a_read_overlapping_a_write_is_refused);
    RUN(accepted_copies_never_mix_two_refreshes);
    RUN(publisher_and_reader);
    RUN(bad_segments_and_processes);
    return test_main_end();
}

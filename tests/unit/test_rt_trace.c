/* test_rt_trace.c — runtime/pt/trace.c linked alone (libhotprof_rtparts.a): the raw records a
 * traced run hands to `hotprof run`.
 *   - the kind record comes first (an explicit kind; kind 0 with no block hooks means calls);
 *   - tuples come back in event order, grouped in records of the thread's tid, a full buffer
 *     per record, the rest at finish, then the end record;
 *   - past the limit nothing more is written and the end record carries the cut flag;
 *   - thread.c creates a thread of a traced run with bursty == HP_THREAD_TRACING.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/init.h"
#include "runtime/pt/trace.h"
#include "test.h"

int hp_rt_ensure_init(void) { return 1; }

typedef struct raw { uint64_t kind, end, records, tuples; int in_order, end_last; } raw;

static raw read_raw(const char *path, uint64_t tid)
{
    raw r = {0, UINT64_MAX, 0, 0, 1, 0};
    FILE *f = fopen(path, "rb");
    uint64_t head[2], t[2], expect = 0;
    while (f && fread(head, sizeof head, 1, f) == 1) {
        r.end_last = 0;
        if (head[0] == HP_RAW_KIND) { r.kind = head[1]; continue; }
        if (head[0] == HP_RAW_END) { r.end = head[1]; r.end_last = 1; continue; }
        r.records++;
        r.in_order &= head[0] == tid;
        for (uint64_t i = 0; i < head[1] && fread(t, sizeof t, 1, f) == 1; i++, expect++, r.tuples++)
            r.in_order &= t[0] == 0x1000 + expect && t[1] == expect * 3;
    }
    if (f) fclose(f);
    return r;
}

static hp_thread *fake_thread(uint64_t tid)
{
    hp_thread *t = calloc(1, sizeof *t);
    t->tid = tid;
    t->next = NULL;
    HP_STORE_REL(&hp_g.threads, t);
    return t;
}

TEST(records_in_order_with_end)
{
    char path[] = "/tmp/hp_rt_trace_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    hp_thread *t = fake_thread(4242);
    int rc = hp_rt_trace_start(path, HP_RT_TRACE_VALUES, 1000000);
    REQUIRE(rc == 0);
    CHECK_EQ_U64(hp_g.trace_kind, HP_RT_TRACE_VALUES);
    uint64_t n = 2 * HP_RT_TRACE_BUF + 77;
    for (uint64_t i = 0; i < n; i++) hp_rt_trace(t, 0x1000 + i, i * 3);
    hp_rt_trace_finish();
    raw r = read_raw(path, 4242);
    CHECK_EQ_U64(r.kind, HP_RT_TRACE_VALUES);
    CHECK_EQ_U64(r.tuples, n);
    CHECK_EQ_U64(r.records, 3);
    CHECK(r.in_order);
    CHECK_EQ_U64(r.end, 0);
    CHECK(r.end_last);
    unlink(path);
    HP_STORE_REL(&hp_g.trace_kind, 0);
    HP_STORE_REL(&hp_g.threads, NULL);
    free(t); /* its buffer is hp_map'd, as in a run: never unmapped */
}

TEST(limit_cuts_and_says_so)
{
    char path[] = "/tmp/hp_rt_trace_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    hp_thread *t = fake_thread(7);
    HP_STORE_REL(&hp_g.guards, 0);
    int rc = hp_rt_trace_start(path, 0, 1000);
    REQUIRE(rc == 0);
    for (uint64_t i = 0; i < 3 * HP_RT_TRACE_BUF; i++) hp_rt_trace(t, 0x1000 + i, i * 3);
    hp_rt_trace_finish();
    raw r = read_raw(path, 7);
    CHECK_EQ_U64(r.kind, HP_RT_TRACE_CALLS); /* automatic, no block hooks */
    CHECK_EQ_U64(r.tuples, 1000);
    CHECK(r.in_order);
    CHECK_EQ_U64(r.end, 1); /* cut */
    unlink(path);
    HP_STORE_REL(&hp_g.trace_kind, 0);
    HP_STORE_REL(&hp_g.threads, NULL);
    free(t); /* its buffer is hp_map'd, as in a run: never unmapped */
}

/* The thread's hp_thread, and whether it is done: static, not on the test's stack, and waited
 * for besides the join. Once (a clean-clone CI under ASan) the thread stored its result after
 * the test had returned and main was in exit: the store hit a later frame's redzone, and ASan's
 * report then waited forever on the loader lock LeakSanitizer held at exit. */
static hp_thread *g_made;
static int g_made_done;

static void *make_thread(void *arg)
{
    (void)arg;
    HP_STORE_REL(&g_made, hp_thread_slow());
    HP_STORE_REL(&g_made_done, 1);
    return NULL;
}

TEST(traced_threads_take_the_trace_branch)
{
    HP_STORE_REL(&hp_g.threads, NULL);
    HP_STORE_REL(&hp_g.trace_kind, HP_RT_TRACE_EDGES);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, make_thread, NULL) == 0);
    int joined = pthread_join(th, NULL);
    for (int i = 0; i < 10000 && !HP_LOAD_ACQ(&g_made_done); i++) usleep(1000);
    CHECK_EQ_U64((uint64_t)joined, 0);
    REQUIRE(HP_LOAD_ACQ(&g_made_done));
    hp_thread *t = HP_LOAD_ACQ(&g_made);
    REQUIRE(t != NULL);
    CHECK_EQ_U64(t->bursty, HP_THREAD_TRACING);
    HP_STORE_REL(&hp_g.trace_kind, 0);
}

int main(void)
{
    RUN(records_in_order_with_end);
    RUN(limit_cuts_and_says_so);
    RUN(traced_threads_take_the_trace_branch);
    return test_main_end();
}

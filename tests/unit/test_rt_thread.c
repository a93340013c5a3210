/* test_rt_thread.c — runtime/thread.c linked alone (libhotprof_rtparts.a), with this file
 * standing in for init (hp_rt_ensure_init, init.h: the one call from thread.c up into init):
 *   - a thread's first event asks init once; "not recording" or "inside init" gives no state, and
 *     only "not recording" sticks (hp_tls points at the shared inactive state);
 *   - a recording thread gets its state on the list, active, with exactly its mode's tables:
 *     exhaustive (pairs, edges, blocks; no methods), bursty (methods, controller seeded with
 *     hp_thread_seed of its creation index), XRay exhaustive (methods, not bursty);
 *   - hp_threads_set_active(0) makes every listed thread inactive; hp_blocks_grow keeps counts.
 * Each case runs in a fresh pthread (hp_tls is per thread).
 */
#include <pthread.h>
#include <string.h>
#include "runtime/init.h"
#include "runtime/thread.h"
#include "test.h"

static int g_init_answer, g_init_calls;

int hp_rt_ensure_init(void)
{
    g_init_calls++;
    return g_init_answer;
}

typedef struct { hp_thread *first, *second, *tls_after; } outcome;

static void *first_events(void *arg)
{
    outcome *o = arg;
    o->first = hp_thread_slow();
    o->tls_after = hp_tls;
    o->second = hp_thread_slow();
    return NULL;
}

static outcome in_new_thread(int answer)
{
    outcome o = {0};
    pthread_t th;
    g_init_answer = answer;
    g_init_calls = 0;
    if (pthread_create(&th, NULL, first_events, &o) == 0) pthread_join(th, NULL);
    return o;
}

static int listed(const hp_thread *t)
{
    for (hp_thread *p = HP_LOAD_ACQ(&hp_g.threads); p; p = p->next)
        if (p == t) return 1;
    return 0;
}

TEST(not_recording_and_inside_init_give_no_state)
{
    outcome o = in_new_thread(0);
    CHECK(o.first == NULL && o.second == NULL);
    CHECK(o.tls_after != NULL && !o.tls_after->active); /* the shared inactive state: asked once */
    CHECK_EQ_U64(g_init_calls, 1);
    o = in_new_thread(-1);
    CHECK(o.first == NULL && o.tls_after == NULL); /* decide later: asked again */
    CHECK_EQ_U64(g_init_calls, 2);
}

TEST(exhaustive_thread_has_its_tables)
{
    hp_g.bursty = 0, hp_g.xray = HP_XRAY_NONE, hp_g.stopped = 0;
    outcome o = in_new_thread(1);
    REQUIRE(o.first != NULL);
    CHECK(o.second == o.first && o.tls_after == o.first);
    CHECK(o.first->active && !o.first->bursty);
    CHECK(o.first->pairs && o.first->edges && o.first->blocks && o.first->stack);
    CHECK(o.first->methods == NULL);
    CHECK(listed(o.first));
    CHECK_EQ_U64(g_init_calls, 1);
}

TEST(bursty_thread_has_methods_and_a_seeded_controller)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    memset(p, 0, sizeof p);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) p[t].period = 1000, p[t].burst = 1;
    p[HP_BURSTY_METHODS].enabled = 1;
    hp_bursty_config_init(&hp_g.bcfg);
    REQUIRE(hp_bursty_config_set_all(&hp_g.bcfg, p) == 0);
    hp_g.seed = 12345, hp_g.bursty = 1, hp_g.xray = HP_XRAY_NONE;
    outcome a = in_new_thread(1), b = in_new_thread(1);
    hp_g.bursty = 0;
    REQUIRE(a.first && b.first);
    CHECK(a.first->bursty && a.first->methods);
    CHECK(a.first->seed != b.first->seed);
    int found = 0; /* seeds are hp_thread_seed of consecutive creation indexes */
    for (uint64_t i = 0; i < 8; i++) found += hp_thread_seed(i) == a.first->seed && hp_thread_seed(i + 1) == b.first->seed;
    CHECK_EQ_U64(found, 1);
}

TEST(xray_exhaustive_thread_has_methods)
{
    hp_g.bursty = 0, hp_g.xray = HP_XRAY_ALL;
    outcome o = in_new_thread(1);
    hp_g.xray = HP_XRAY_NONE;
    REQUIRE(o.first != NULL);
    CHECK(o.first->methods != NULL && !o.first->bursty);
}

TEST(stopped_and_set_active)
{
    hp_g.stopped = 1;
    outcome o = in_new_thread(1);
    hp_g.stopped = 0;
    CHECK(o.first == NULL);
    hp_threads_set_active(0);
    int active = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) active += t->active != 0;
    CHECK_EQ_U64(active, 0);
}

TEST(blocks_grow_keeps_counts)
{
    hp_thread t;
    memset(&t, 0, sizeof t);
    REQUIRE(hp_blocks_grow(&t, 0) != NULL);
    uint64_t cap = t.blocks->cap;
    t.blocks->c[5] = 55;
    hp_counts *c = hp_blocks_grow(&t, (uint32_t)cap + 3);
    REQUIRE(c == t.blocks);
    CHECK(c->cap > cap + 3);
    CHECK_EQ_U64(c->c[5], 55);
}

int main(void)
{
    RUN(not_recording_and_inside_init_give_no_state);
    RUN(exhaustive_thread_has_its_tables);
    RUN(bursty_thread_has_methods_and_a_seeded_controller);
    RUN(xray_exhaustive_thread_has_methods);
    RUN(stopped_and_set_active);
    RUN(blocks_grow_keeps_counts);
    return test_main_end();
}

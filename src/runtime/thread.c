/* thread.c — per-thread recording state: creation, block-count arrays, frames, the thread list.
 *
 * A thread's hp_thread is created on its first hook event (hp_thread_slow), entirely from
 * mmap'd memory, and pushed on hp_g.threads with a CAS loop. It is never freed or unlinked, so
 * a thread that exits early is still written at exit. See tab.h for the table invariants (grow by
 * copy + release publish, never unmap). Nothing here calls malloc.
 *
 * Bursty mode: thread_create also maps the methods table and initializes the thread's HPS
 * controller (hp_bursty_init: pure arithmetic) from the shared hp_g.bcfg and a per-thread seed.
 * The hot
 * data stream detector (t->ds.det) is mapped later, by pt/datastream.c, at the thread's first
 * sampled load or store; a fork child that follows the fork re-initializes it in place.
 *
 * State: hp_tls (the calling thread's pointer) and the shared inactive thread are this file's
 * own; the list head is hp_g.threads (base.h).
 *
 * Layering: hp_thread_slow calls hp_rt_ensure_init (init.h), the one call from below init up
 * into it: a thread's first event may be the process's first (a constructor of another library
 * running instrumented code before ours), and the process must be initialized before it records.
 *
 * Async-signal-safe: hp_blocks_grow, hp_frames_rebind, hp_threads_set_active,
 * hp_threads_reset_counts (memory and mmap only). hp_thread_slow may run the one-time process
 * init (init.c), which is not signal-safe, but only on a thread's very first event.
 */
#define _GNU_SOURCE
#include "runtime/thread.h"
#include "runtime/init.h"
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread hp_thread *hp_tls;
static hp_thread hp_inactive_thread; /* active == 0: what hp_tls points to when not recording */

#define HP_ALTSTACK_BYTES (64u * 1024u)

/* ---------------------------------------------------------------- block counts */

static HP_NOINST uint64_t pow2_at_least(uint64_t n)
{
    uint64_t c = 1024;
    while (c < n) c *= 2;
    return c;
}

HP_NOINST hp_counts *hp_blocks_grow(hp_thread *t, uint32_t id)
{
    hp_counts *old = t->blocks;
    uint64_t want = (uint64_t)id + 1;
    uint64_t known = (uint64_t)HP_LOAD_RLX(&hp_g.guards) + 1; /* room for every guard so far */
    uint64_t cap = pow2_at_least(want > known ? want : known);
    hp_counts *c = hp_map(sizeof(hp_counts) + cap * 8);
    if (!c) return old; /* caller re-checks cap and drops the event */
    c->cap = cap;
    for (uint64_t i = 0; old && i < old->cap; i++) c->c[i] = HP_LOAD_RLX(&old->c[i]);
    HP_STORE_REL(&t->blocks, c);
    return c;
}

/* ---------------------------------------------------------------- frames */

/* After the pairs table moved, point every tracked frame at its pair's new slot. */
HP_NOINST void hp_frames_rebind(hp_thread *t)
{
    uint64_t top = t->depth < HP_STACK_FRAMES ? t->depth : HP_STACK_FRAMES - 1;
    for (uint64_t d = 1; d <= top; d++)
        if (t->stack[d].fn != HP_FRAME_LANDING) t->stack[d].backedges = &hp_tab_get(&t->pairs, t->stack[d].fn, t->stack[d].site)->v2;
}

/* ---------------------------------------------------------------- thread list */

static HP_NOINST void install_altstack(void)
{
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return; /* program has one */
    void *mem = hp_map(HP_ALTSTACK_BYTES);
    if (!mem) return;
    stack_t ss = {.ss_sp = mem, .ss_size = HP_ALTSTACK_BYTES, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

/* Bursty mode: a methods table and the controller, seeded from the run seed and the thread's
 * creation index (the seed is written to INFO as thread.<tid>.seed). */
static HP_NOINST int bursty_setup(hp_thread *t)
{
    static uint64_t next_index;
    t->methods = hp_tab_new(HP_TAB_INITIAL);
    if (!t->methods) return 0;
    t->seed = hp_thread_seed(__atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED));
    hp_bursty_init(&t->bs, &hp_g.bcfg, t->seed);
    t->bursty = 1;
    return 1;
}

static HP_NOINST hp_thread *thread_create(void)
{
    hp_thread *t = hp_map(sizeof *t);
    if (!t) return NULL;
    t->stack = hp_map(HP_STACK_FRAMES * sizeof(hp_frame));
    t->pairs = hp_tab_new(HP_TAB_INITIAL);
    t->edges = hp_tab_new(HP_TAB_INITIAL * 4);
    if (!t->stack || !t->pairs || !t->edges) return NULL;
    hp_blocks_grow(t, 0);
    if (!t->blocks) return NULL;
    t->stack[0].backedges = &t->orphan_backedges;
    t->overflow.backedges = &t->orphan_backedges;
    t->tid = (uint64_t)syscall(SYS_gettid);
    if (HP_LOAD_ACQ(&hp_g.bursty) && !bursty_setup(t)) return NULL;
    install_altstack();
    hp_thread *head = HP_LOAD_RLX(&hp_g.threads);
    do t->next = head;
    while (!__atomic_compare_exchange_n(&hp_g.threads, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    t->active = !HP_LOAD_ACQ(&hp_g.stopped);
    return t;
}

HP_NOINST hp_thread *hp_thread_slow(void)
{
    hp_thread *t = hp_tls;
    if (t) return t->active ? t : NULL; /* inactive (stopped, off) or a re-check after init */
    int recording = hp_rt_ensure_init();
    if (recording < 0) return NULL; /* a hook inside our own init: skip it, decide later */
    if (!recording || HP_LOAD_ACQ(&hp_g.stopped)) {
        hp_tls = &hp_inactive_thread;
        return NULL;
    }
    t = thread_create();
    hp_tls = t ? t : &hp_inactive_thread;
    return t && t->active ? t : NULL;
}

HP_NOINST void hp_threads_set_active(uint32_t active)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) HP_STORE_RLX(&t->active, active);
}

/* In a fork child that follows the fork: forget the parent's counts (keys and frames stay). */
HP_NOINST void hp_threads_reset_counts(void)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_tab_zero_counts(t->pairs);
        hp_tab_zero_counts(t->edges);
        if (t->methods) hp_tab_zero_counts(t->methods);
        if (t->bursty) { /* a fresh phase and seed, so the child's samples are its own */
            t->seed ^= 0x5bd1e995ull;
            hp_bursty_init(&t->bs, &hp_g.bcfg, t->seed);
        }
        if (t->ds.det) { /* an empty detector in the same memory (the child has its own copy) */
            hp_ds_config c;
            hp_ds_runtime_config(&c);
            hp_ds_init(t->ds.det, hp_ds_bytes_for(&c), &c);
        }
        memset(t->blocks->c, 0, t->blocks->cap * 8);
        memset(&t->tot, 0, sizeof t->tot);
        t->orphan_backedges = 0;
    }
}

HP_NOINST void hp_ds_runtime_config(hp_ds_config *c)
{
    hp_ds_default_config(c);
    c->seed = hp_thread_seed(~0ull); /* one seed for every thread: their states merge */
}

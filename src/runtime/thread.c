/* thread.c — per-thread recording state: creation, block-count arrays, frames, the thread list,
 * recycling of exited threads, and the lock of whole-list snapshots (the writer's).
 *
 * A thread's hp_thread is created on its first hook event (hp_thread_slow), entirely from
 * mmap'd memory, and pushed on hp_g.threads with a CAS loop. It is never freed or unlinked, so
 * a thread that exits early is still written at exit. See tab.h for the table invariants (grow by
 * copy + release publish, never unmap). Nothing here calls malloc.
 *
 * Recycling: a pthread key whose destructor runs at thread exit (thread_exit; it re-arms itself
 * once so that the program's own key destructors of the first round still record). The first
 * HP_KEEP_EXITED exited threads keep their state as it is. After that an exited thread's counts
 * are added into the exited-threads record (g_exited: tid 0, no shadow stack, on the list) and
 * zeroed, under hp_threads_lock (the writer's lock); its state is marked recycled and the next
 * new thread takes it (thread_reuse) with all its memory: tables, shadow stack, block counts,
 * altstack. A thread with a data stream detector is not merged (a detector does not add up): it
 * keeps its state.
 *
 * Bursty mode: thread_create also maps the methods table and initializes the thread's HPS
 * controller (hp_bursty_init: pure arithmetic) from the shared hp_g.bcfg and a per-thread seed.
 * XRay exhaustive (hp_g.xray == HP_XRAY_ALL): the methods table only (ctl/xray.c's handler counts
 * every call there). The hot data stream detector (t->ds.det) is mapped later, by
 * pt/datastream.c, at the thread's first sampled load or store; a fork child that follows the fork re-initializes it in place.
 *
 * State: hp_tls (the calling thread's pointer), the shared inactive thread, the lock word of
 * hp_threads_lock, the exit key and the exited-threads record are this file's own; the list
 * head is hp_g.threads (base.h).
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
#include "core/control/spec.h" /* HP_IV_VALUE */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread hp_thread *hp_tls;
__thread int hp_in_runtime;
__thread int64_t hp_dual_countdown; /* --bursts count (ctl/dual.h): read and decremented by the trampolines */
__thread uint32_t hp_dual_synced;   /* --bursts count: this thread's countdown follows its controller */
static hp_thread hp_inactive_thread; /* active == 0: what hp_tls points to when not recording */

#define HP_ALTSTACK_BYTES (64u * 1024u)

/* ---------------------------------------------------------------- the snapshot lock */

static int g_lock_owner; /* tid holding hp_threads_lock, 0 if none */

HP_NOINST int hp_threads_lock(void)
{
    int me = (int)syscall(SYS_gettid);
    for (int waited_ms = 0;; waited_ms++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&g_lock_owner, &expected, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (expected == me || waited_ms >= 3000) return 0; /* crashed inside our own write, or stuck */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

HP_NOINST void hp_threads_unlock(void) { __atomic_store_n(&g_lock_owner, 0, __ATOMIC_RELEASE); }
HP_NOINST void hp_threads_lock_reset(void) { g_lock_owner = 0; }

/* A thread's bursty counts read from another thread: the owner's fast path keeps decrementing the
 * countdown, so the pending events are read once and a torn (countdown, armed) pair — the owner
 * inside its slow path — counts as none pending. */
HP_NOINST void hp_thread_bursty_counts(const hp_thread *t, int type, uint64_t *events, uint64_t *sampled)
{
    uint32_t armed = HP_LOAD_RLX(&t->bs.armed), countdown = HP_LOAD_RLX(&t->bs.countdown);
    *events = HP_LOAD_RLX(&t->bs.t[type].events);
    *sampled = HP_LOAD_RLX(&t->bs.t[type].sampled);
    if ((HP_LOAD_RLX(&t->bs.enabled_mask) >> type & 1) && countdown <= armed) *events += armed - countdown;
}


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

/* ---------------------------------------------------------------- thread setup */

static HP_NOINST void install_altstack(hp_thread *t)
{
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return; /* program has one */
    if (!t->altstack) t->altstack = hp_map(HP_ALTSTACK_BYTES); /* a recycled state has one */
    if (!t->altstack) return;
    stack_t ss = {.ss_sp = t->altstack, .ss_size = HP_ALTSTACK_BYTES, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

/* The types whose bursts the controller folds into one slow path (core/control/bursty.h
 * "Folded bursts"): methods and call pairs, which record boundary events only, so count mode
 * may run clean code between a burst's last off event and its first (the burst's first event
 * enters the instrumented copy). Not with a value interval profile, whose values are taken
 * between boundary events while any type is on. */
static HP_NOINST uint32_t bursty_fold_types(void)
{
    if (HP_LOAD_ACQ(&hp_g.iv_streams) & (1u << HP_IV_VALUE)) return 0;
    return HP_BURSTY_BIT(HP_BURSTY_METHODS) | HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS);
}

/* Bursty mode: a methods table and the controller, seeded from the run seed and the thread's
 * creation index (the seed is written to INFO as thread.<tid>.seed). */
static HP_NOINST int bursty_setup(hp_thread *t)
{
    static uint64_t next_index;
    if (!t->methods) t->methods = hp_tab_new(HP_TAB_INITIAL);
    if (!t->methods) return 0;
    t->seed = hp_thread_seed(__atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED));
    hp_bursty_init(&t->bs, &hp_g.bcfg, t->seed);
    hp_bursty_set_fold(&t->bs, bursty_fold_types());
    t->bursty = HP_THREAD_BURSTY;
    return 1;
}

/* ---------------------------------------------------------------- recycling */

static pthread_key_t g_exit_key;
static pthread_once_t g_exit_once = PTHREAD_ONCE_INIT;
static int g_exit_key_ok;
static hp_thread *g_exited;     /* the exited-threads record (hp_threads_lock), NULL until needed */
static uint64_t g_exited_count; /* threads whose exit was seen */

static HP_NOINST void list_push(hp_thread *t)
{
    hp_thread *head = HP_LOAD_RLX(&hp_g.threads);
    do t->next = head;
    while (!__atomic_compare_exchange_n(&hp_g.threads, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* The exited-threads record (hp_threads_lock held), created at the first merge (tables and counts, no shadow stack). */
static HP_NOINST hp_thread *exited_record(void)
{
    if (g_exited) return g_exited;
    hp_thread *a = hp_map(sizeof *a);
    if (!a) return NULL;
    a->pairs = hp_tab_new(HP_TAB_INITIAL);
    a->edges = hp_tab_new(HP_TAB_INITIAL * 4);
    a->bursty = (uint32_t)HP_LOAD_ACQ(&hp_g.bursty);
    int methods = a->bursty || HP_LOAD_ACQ(&hp_g.xray) == HP_XRAY_ALL; /* as thread_create */
    if (methods) a->methods = hp_tab_new(HP_TAB_INITIAL);
    hp_blocks_grow(a, 0);
    if (!a->pairs || !a->edges || !a->blocks || (methods && !a->methods)) return NULL; /* mmap failed: kept */
    list_push(a);
    return g_exited = a;
}

/* dst += src, key by key (dst: the exited-threads record, hp_threads_lock held). */
static HP_NOINST void tab_add(hp_tab **dst, const hp_tab *src)
{
    for (uint64_t i = 0; i <= src->mask; i++) {
        const hp_slot *s = &src->s[i];
        if (!s->k1 || !(s->v1 | s->v2)) continue;
        hp_slot *d = hp_tab_get(dst, s->k1, s->k2);
        HP_STORE_RLX(&d->v1, d->v1 + s->v1);
        HP_STORE_RLX(&d->v2, d->v2 + s->v2);
    }
}

static HP_NOINST void tab_clear(hp_tab *tab)
{
    memset(tab->s, 0, (tab->mask + 1) * sizeof(hp_slot));
    tab->used = 0;
}

/* Every count of the exited thread t into a (tables, blocks, totals, bursty exposure). */
static HP_NOINST void thread_merge(hp_thread *a, const hp_thread *t)
{
    tab_add(&a->pairs, t->pairs);
    tab_add(&a->edges, t->edges);
    if (t->methods && a->methods) tab_add(&a->methods, t->methods);
    const hp_counts *c = t->blocks;
    hp_counts *ac = a->blocks->cap < c->cap ? hp_blocks_grow(a, (uint32_t)(c->cap - 1)) : a->blocks;
    for (uint64_t id = 1; id < c->cap && id < ac->cap; id++)
        if (c->c[id]) HP_STORE_RLX(&ac->c[id], ac->c[id] + c->c[id]);
    const uint64_t *from = &t->tot.calls;
    uint64_t *to = &a->tot.calls;
    for (size_t i = 0; i < sizeof t->tot / sizeof(uint64_t); i++) HP_STORE_RLX(&to[i], to[i] + from[i]);
    HP_STORE_RLX(&a->orphan_backedges, a->orphan_backedges + t->orphan_backedges);
    for (int type = 0; t->bursty == HP_THREAD_BURSTY && a->bursty == HP_THREAD_BURSTY && type < HP_BURSTY_NTYPES; type++) {
        uint64_t e, smp;
        hp_thread_bursty_counts(t, type, &e, &smp);
        HP_STORE_RLX(&a->bs.t[type].events, a->bs.t[type].events + e);
        HP_STORE_RLX(&a->bs.t[type].sampled, a->bs.t[type].sampled + smp);
    }
}

/* An exited thread's state with every count zeroed, as a new thread finds it (its keys too: the
 * next thread has its own). Its signal stack is switched off first (a new thread gets it). */
static HP_NOINST void thread_clear(hp_thread *t)
{
    stack_t cur, off = {.ss_flags = SS_DISABLE};
    if (t->altstack && (sigaltstack(NULL, &cur) != 0 || cur.ss_sp != t->altstack || sigaltstack(&off, NULL) != 0))
        t->altstack = NULL; /* not ours to reuse */
    tab_clear(t->pairs);
    tab_clear(t->edges);
    if (t->methods) tab_clear(t->methods);
    memset(t->blocks->c, 0, t->blocks->cap * 8);
    memset(&t->tot, 0, sizeof t->tot);
    memset(&t->bs, 0, sizeof t->bs);
    t->orphan_backedges = 0;
    t->depth = 0;
    t->prev_guard = 0;
    t->frameless_fn = t->frameless_depth = 0;
    t->stack[0].last_pc = 0;
    t->overflow.last_pc = 0;
    t->in_slow = 0;
    t->ds.failed = 0;
    t->exit_rounds = 0;
}

/* The key destructor, at thread exit. First call: re-arm (the program's other destructors of
 * this round may still run instrumented code). Second: stop recording this thread and, past the
 * first HP_KEEP_EXITED exits, merge and recycle its state. */
static HP_NOINST void thread_exit(void *arg)
{
    hp_thread *t = arg;
    if (!t || hp_tls != t) return;
    if (t->exit_rounds++ == 0) {
        pthread_setspecific(g_exit_key, t);
        return;
    }
    hp_tls = &hp_inactive_thread; /* whatever runs later in this thread is not recorded */
    if (__atomic_fetch_add(&g_exited_count, 1, __ATOMIC_RELAXED) < HP_KEEP_EXITED) return;
    /* States this merge cannot add up keep their thread (and its memory): a datastream detector, a
     * trace buffer, interval profiles, timer stacks and value hot-lists (ctl/timer.h, ctl/interp.h). */
    if (HP_LOAD_ACQ(&t->ds.det) || t->trace || t->iv[0] || t->iv[1] || t->timer || t->interp || !hp_threads_lock())
        return;
    hp_thread *a = HP_LOAD_ACQ(&hp_g.stopped) ? NULL : exited_record();
    if (a) {
        thread_merge(a, t);
        thread_clear(t);
        HP_STORE_REL(&t->recycled, 1);
    }
    hp_threads_unlock();
}

static HP_NOINST void exit_key_create(void) { g_exit_key_ok = pthread_key_create(&g_exit_key, thread_exit) == 0; }

/* A recycled state for a new thread, or NULL. */
static HP_NOINST hp_thread *thread_reuse(void)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        uint32_t one = 1;
        if (HP_LOAD_RLX(&t->recycled) &&
            __atomic_compare_exchange_n(&t->recycled, &one, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return t;
    }
    return NULL;
}

/* ---------------------------------------------------------------- thread list */

HP_NOINST void hp_rt_pathval_thread_setup(hp_thread *t)
{
    uint32_t pv = HP_LOAD_ACQ(&hp_g.pathval);
    if ((pv & HP_PV_RT_PATH) && !(t->blockflags & (HP_BLOCK_BURSTY | HP_BLOCK_TRACE))) t->blockflags |= HP_BLOCK_PATH;
    if ((pv & HP_PV_RT_VALUES) && !t->bursty) t->bursty = HP_THREAD_VALUES;
}

static HP_NOINST hp_thread *thread_create(void)
{
    hp_thread *t = thread_reuse();
    int fresh = !t;
    if (fresh) {
        t = hp_map(sizeof *t);
        if (!t) return NULL;
        t->stack = hp_map(HP_STACK_FRAMES * sizeof(hp_frame));
        t->pairs = hp_tab_new(HP_TAB_INITIAL);
        t->edges = hp_tab_new(HP_TAB_INITIAL * 4);
        if (!t->stack || !t->pairs || !t->edges) return NULL;
        hp_blocks_grow(t, 0);
        if (!t->blocks) return NULL;
        t->stack[0].backedges = &t->orphan_backedges;
        t->overflow.backedges = &t->orphan_backedges;
    }
    t->tid = (uint64_t)syscall(SYS_gettid);
    if (HP_LOAD_ACQ(&hp_g.bursty) && !bursty_setup(t)) return NULL;
    if (!t->bursty && (HP_LOAD_ACQ(&hp_g.trace_kind) || HP_LOAD_ACQ(&hp_g.iv_streams)))
        t->bursty = HP_THREAD_TRACING; /* pt/trace.h, pt/intervals.h */
    if (HP_LOAD_ACQ(&hp_g.xray) == HP_XRAY_ALL && !t->methods && !(t->methods = hp_tab_new(HP_TAB_INITIAL))) return NULL;
    t->blockflags = (t->bursty == HP_THREAD_BURSTY ? HP_BLOCK_BURSTY : 0u) | /* patched sites: subpaths in patch_block */
                    (t->bursty == HP_THREAD_TRACING ? HP_BLOCK_TRACE : 0u) |
                    (HP_LOAD_ACQ(&hp_g.osp) && !HP_LOAD_ACQ(&hp_g.patch) ? HP_BLOCK_OSP : 0u);
    hp_rt_pathval_thread_setup(t);
    install_altstack(t);
    pthread_once(&g_exit_once, exit_key_create);
    if (g_exit_key_ok) pthread_setspecific(g_exit_key, t);
    if (fresh) list_push(t);
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
        t->path = NULL, t->vals = NULL; /* paths, values: fresh state at the next event (pt/pathval.h) */
        if (t->bursty == HP_THREAD_BURSTY) { /* a fresh phase and seed, so the child's samples are its own */
            t->seed ^= 0x5bd1e995ull;
            hp_bursty_init(&t->bs, &hp_g.bcfg, t->seed);
            hp_bursty_set_fold(&t->bs, bursty_fold_types());
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

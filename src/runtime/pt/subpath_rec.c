/* subpath_rec.c — the recording side of subpaths (pt/subpath.h): the process's OSP settings, its
 * ONE hot-list and the list's lock, each thread's state (created at its first block), exact
 * counting, live samples; and the accessors the writing side (pt/subpath.c) reads them through.
 *
 * State (this file's own, file-static, set once by hp_rt_osp_setup before recording starts):
 * the parameters, the length law, the process hot-list (g_list, one mmap'd block of mem bytes,
 * core/summary/osplist.h) and its spin lock g_lock. The list is touched only under g_lock: by a
 * thread whose sample is complete (offer), and by hp_rt_osp_list_copy (the writer and the live
 * view copy the whole block under the lock and work on the copy).
 * weight=cost: a block's cost is its code bytes, the distance to the next guard's pc in the pc
 * table (same function), clipped to 1..HP_OSP_COST_CAP; unknown pcs cost the cap.
 *
 * Async-signal-safety: memory, mmap/munmap, bounded spins (the writer may run in a signal handler).
 */
#define _GNU_SOURCE
#include "runtime/pt/subpath.h"
#include "runtime/blockmap.h"
#include "core/ptype/subpath.h"
#include "core/summary/osplist.h"
#include "core/control/osp_count.h"
#include "core/base/hash.h"
#include <string.h>
#include <sys/mman.h>

static hp_osp_params g_p;
static hp_osp_lawp g_law;
static int g_mode;
static hp_osp_list *g_list;
static int g_lock;
static uint64_t g_dropped;   /* samples dropped: the list lock could not be taken */
static uint64_t g_seed;

/* ---------------------------------------------------------------- setup and lock */

HP_NOINST int hp_rt_osp_setup(const hp_osp_params *p, int mode, uint64_t seed)
{
    g_p = *p;
    g_mode = mode;
    g_seed = seed;
    hp_osp_law_init(&g_law, p->law, p->maxlen);
    if (mode == HP_OSP_RT_LIVE || mode == HP_OSP_RT_PATCH || mode == HP_OSP_RT_COUNT) {
        void *mem = hp_map(p->mem);
        g_list = mem ? hp_osp_list_init_rule(mem, p->mem, hp_mix64(seed ^ 0x05b5), p->enc == HP_SUBPATH_ENC_EXACT,
                                             p->list == HP_OSP_LIST_COUNTING)
                     : NULL;
        if (!g_list) return 0;
    }
    HP_STORE_REL(&hp_g.osp, mode);
    return 1;
}

static HP_NOINST int list_lock(void)
{
    for (uint32_t spins = 0; __atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE); spins++) {
        if (spins > (1u << 22)) return 0;
        __builtin_ia32_pause();
    }
    return 1;
}
static HP_NOINST void list_unlock(void) { __atomic_store_n(&g_lock, 0, __ATOMIC_RELEASE); }

/* ---------------------------------------------------------------- recording */

static HP_NOINST hp_thread_osp *osp_create(hp_thread *t)
{
    hp_thread_osp *o = hp_map(sizeof *o);
    if (!o) return NULL;
    if (g_mode == HP_OSP_RT_EXACT) {
        o->x = hp_map(sizeof *o->x);
        o->counts = hp_tab_new(1u << 12);
        if (!o->x || !o->counts) return NULL; /* (a leak of a failed mmap's sibling: never retried) */
    }
    if (g_mode == HP_OSP_RT_COUNT && !(o->cs = hp_map(sizeof *o->cs))) return NULL;
    o->tid = ~0ull; /* osp_own resets it for t */
    HP_STORE_REL(&t->osp, o);
    return o;
}

/* The sampler and the ring restart when the state is taken by a new thread. */
static HP_NOINST void osp_own(hp_thread *t, hp_thread_osp *o)
{
    o->tid = t->tid;
    o->wepoch = o->pdone = 0;
    o->cpu_close = 0; /* (control-thread fields: a recycled state's new thread starts its own) */
    o->pool_tsc = o->pool_gaps = 0;
    if (o->x) hp_osp_exact_init(o->x, g_p.maxlen, g_p.enc);
    if (g_mode != HP_OSP_RT_LIVE && g_mode != HP_OSP_RT_PATCH && g_mode != HP_OSP_RT_COUNT) return;
    double f = hp_osp_f_rule(g_p.minf, g_list->tau, g_p.list, 0);
    if (g_mode == HP_OSP_RT_COUNT) { /* f is the period S in boundary events */
        hp_osp_count_init(o->cs, hp_mix64(g_seed ^ (t->seed + t->tid * 0x9e3779b97f4a7c15ull) ^ 0xc0), f);
        o->ctau = g_list->tau;
        o->cbs = t->bs.countdown ? t->bs.countdown : 1;
        o->carmed = 1;
        o->cbase = 0;
        o->cprearm = hp_rt_osp_prearm();
        HP_STORE_RLX(&o->cmode, HP_OSP_C_IDLE);
        return;
    }
    hp_osp_sampler_init(&o->s, hp_mix64(g_seed ^ (t->seed + t->tid * 0x9e3779b97f4a7c15ull)), f, &g_law);
    o->drawn_skip = o->s.skip;
    if (g_p.skiponly) o->s.length = 1;
    HP_STORE_RLX(&o->live, g_mode == HP_OSP_RT_LIVE);
}

HP_NOINST hp_thread_osp *hp_rt_osp_state(hp_thread *t)
{
    hp_thread_osp *o = t->osp;
    if (!o && !(o = osp_create(t))) return NULL;
    if (HP_UNLIKELY(o->tid != t->tid) && !o->busy) osp_own(t, o);
    return o;
}

HP_NOINST const hp_osp_lawp *hp_rt_osp_law(void) { return &g_law; }

/* Exact: the sequence of a new (key, length) into the arena (grown by copy); its offset + 1. */
static HP_NOINST uint64_t arena_put(hp_thread_osp *o, const uint32_t *seq, uint32_t n)
{
    hp_osp_arena *a = o->arena;
    if (!a || o->arena_used + n > a->cap) {
        uint64_t cap = a ? a->cap * 2 : 1u << 16;
        while (o->arena_used + n > cap) cap *= 2;
        hp_osp_arena *b = hp_map(sizeof *b + cap * sizeof(uint32_t));
        if (!b) return 0;
        b->cap = cap;
        if (a) memcpy(b->ids, a->ids, o->arena_used * sizeof(uint32_t));
        HP_STORE_REL(&o->arena, b); /* the old block stays mapped for readers */
        a = b;
    }
    memcpy(a->ids + o->arena_used, seq, n * sizeof *seq);
    uint64_t off = o->arena_used;
    o->arena_used += n;
    return off + 1;
}

static HP_NOINST void exact_block(hp_thread_osp *o, uint32_t id)
{
    hp_osp_window w[HP_OSP_EXACT_MAX_WINDOWS];
    int n = hp_osp_exact_push(o->x, id, w);
    HP_BUMP(&o->blocks);
    for (int i = 0; i < n; i++) {
        hp_slot *s = hp_tab_get(&o->counts, w[i].key, w[i].length);
        uint32_t seq[HP_OSP_MAXLEN];
        if (!s->v1) {
            hp_osp_exact_seq(o->x, w[i].length, seq);
            HP_STORE_REL(&s->v2, arena_put(o, seq, w[i].length));
        } else if (g_p.enc == HP_SUBPATH_ENC_EXACT && s->v2 && o->arena) {
            hp_osp_exact_seq(o->x, w[i].length, seq);
            if (memcmp(o->arena->ids + s->v2 - 1, seq, w[i].length * sizeof *seq)) HP_BUMP(&o->collisions);
        }
        HP_BUMP(&s->v1);
    }
}

static HP_NOINST uint32_t block_cost(const hp_bmap *m, uint32_t id)
{
    if (!m || id + 1 >= m->cap || !m->e[id].pc) return HP_OSP_COST_CAP;
    const hp_bentry *e = &m->e[id], *next = &m->e[id + 1];
    if (!next->pc || next->fn != e->fn || next->pc <= e->pc) return HP_OSP_COST_CAP;
    uint64_t d = next->pc - e->pc;
    return d > HP_OSP_COST_CAP ? HP_OSP_COST_CAP : (uint32_t)d;
}

/* weight=cost: the acceptance probability of the sample's blocks. */
static HP_NOINST double cost_accept(const uint32_t *ids, uint32_t n)
{
    uint32_t cost[HP_OSP_MAXLEN];
    const hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    for (uint32_t i = 0; i < n; i++) cost[i] = block_cost(m, ids[i]);
    return hp_osp_cost_accept(cost, n, HP_OSP_COST_CAP);
}

/* One subpath of the sample to the list (rejection for weight=cost first); 1 if offered. */
static HP_NOINST int offer_one(hp_thread_osp *o, uint32_t *ids, uint32_t L, double weight, double p, hp_rng *rng,
                               double *tau)
{
    double accept = g_p.weight == HP_OSP_W_COST ? cost_accept(ids, L) : 1;
    if (accept < 1 && hp_rng_double(rng) >= accept) {
        HP_BUMP(&o->rejected);
        return 0;
    }
    uint64_t key = hp_subpath_key((int)g_p.enc, ids, L); /* enc=exact: ids canonical now */
    if (!list_lock()) {
        __atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    hp_osp_list_offer(g_list, key, L, ids, weight, p * accept);
    *tau = g_list->tau;
    list_unlock();
    return 1;
}

/* p is the law's P(L); prefixes=on offers every prefix the law draws with P(length >= its
 * length) instead (hp_osp_prefix_next), enc=exact from a copy (its key canonicalizes the ids in place). */
HP_NOINST int hp_rt_osp_offer(hp_thread_osp *o, uint32_t *ids, uint32_t L, double weight, double p, hp_rng *rng,
                              double *tau)
{
    if (!g_p.prefixes) return offer_one(o, ids, L, weight, p, rng, tau);
    uint32_t copy[HP_OSP_MAXLEN];
    double tail;
    int offered = 0;
    for (uint32_t len = hp_osp_prefix_next(&g_law, L, 0, &tail); len; len = hp_osp_prefix_next(&g_law, L, len, &tail)) {
        uint32_t *prefix = ids;
        if (g_p.enc == HP_SUBPATH_ENC_EXACT) prefix = memcpy(copy, ids, len * sizeof *ids);
        offered |= offer_one(o, prefix, len, weight, tail, rng, tau);
    }
    return offered;
}

/* A complete sample: key, rejection (weight=cost), the list; then the next cycle. */
static HP_NOINST void sample_done(hp_thread_osp *o)
{
    hp_osp_sampler *s = &o->s;
    uint32_t L = s->length;
    double f = s->f, p = hp_osp_p_length(&g_law, L), tau;
    HP_STORE_RLX(&o->blocks, o->blocks + o->drawn_skip + L);
    if (!g_p.skiponly) {
        HP_BUMP(&o->samples);
        if (hp_rt_osp_offer(o, s->ids, L, hp_osp_sample_weight(&g_law, f), p, &s->rng, &tau))
            f = hp_osp_f_rule(g_p.minf, tau, g_p.list, (double)o->blocks); /* as the list's tau left it at this offer */
    }
    hp_osp_sampler_next(s, f, &g_law);
    o->drawn_skip = s->skip;
    if (g_p.skiponly) s->length = 1;
}

static HP_NOINST void live_block(hp_thread_osp *o, uint32_t id)
{
    hp_osp_sampler *s = &o->s;
    if (s->skip) { s->skip--; return; }
    s->ids[s->pos++] = id;
    if (s->pos >= s->length) sample_done(o);
}

HP_NOINST void hp_rt_osp_block(hp_thread *t, uint32_t id)
{
    hp_thread_osp *o = t->osp;
    if (!o && !(o = osp_create(t))) return;
    if (o->busy) return;
    o->busy = 1;
    __asm__ volatile("" ::: "memory");
    if (HP_UNLIKELY(o->tid != t->tid)) osp_own(t, o);
    if (g_mode == HP_OSP_RT_EXACT) exact_block(o, id);
    else if (g_mode == HP_OSP_RT_LIVE) live_block(o, id);
    else if (g_mode == HP_OSP_RT_COUNT && o->cmode == HP_OSP_C_BURST) hp_rt_osp_count_block(o, id);
    __asm__ volatile("" ::: "memory");
    o->busy = 0;
}

/* ---------------------------------------------------------------- for the writing side */

HP_NOINST const hp_osp_params *hp_rt_osp_params(void) { return &g_p; }
HP_NOINST uint64_t hp_rt_osp_dropped(void) { return __atomic_load_n(&g_dropped, __ATOMIC_RELAXED); }

HP_NOINST hp_osp_list *hp_rt_osp_list_copy(void)
{
    if (!g_list) return NULL;
    hp_osp_list *c = hp_map(g_p.mem);
    if (!c) return NULL;
    if (!list_lock()) {
        munmap(c, g_p.mem);
        return NULL;
    }
    memcpy(c, g_list, g_p.mem);
    list_unlock();
    uint8_t *from = (uint8_t *)g_list, *to = (uint8_t *)c;
    c->e = (hp_osp_entry *)(to + ((uint8_t *)g_list->e - from));
    c->slot = (uint32_t *)(to + ((uint8_t *)g_list->slot - from));
    c->arena = (uint32_t *)(to + ((uint8_t *)g_list->arena - from));
    return c;
}

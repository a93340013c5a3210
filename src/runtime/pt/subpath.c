/* subpath.c — online subpath profiling (core/ptype: HP_PT_SUBPATH) in the runtime: the recording
 * (pt/subpath.h: per-thread state, exact counting, live samples into the ONE process hot-list),
 * the SUBPATHS section with the group INFO keys subpath.* (core/format/info_keys.h), and the live
 * top-k (hp_pt.live_rows; hotprof_snapshot_topk).
 *
 * State (this file's own, file-static, set once by hp_rt_osp_setup before recording starts):
 * the parameters, the length law, the process hot-list (g_list, one mmap'd block of mem bytes,
 * core/summary/osplist.h) and its spin lock g_lock. The list is touched only under g_lock: by a
 * thread whose sample is complete (offer), by the writer and by live_rows (each copies the whole
 * block under the lock and works on the copy).
 * weight=cost: a block's cost is its code bytes, the distance to the next guard's pc in the pc
 * table (same function), clipped to 1..HP_OSP_COST_CAP; unknown pcs cost the cap.
 *
 * Async-signal-safety: memory, mmap/munmap, bounded spins (the writer may run in a signal handler).
 */
#define _GNU_SOURCE
#include "runtime/pt/subpath.h"
#include "runtime/pt/pt.h"
#include "runtime/blockmap.h"
#include "core/control/spec.h"
#include "core/format/format.h"
#include "core/format/info_keys.h"
#include "core/ptype/ptype.h"
#include "core/ptype/subpath.h"
#include "core/summary/osplist.h"
#include "core/base/hash.h"
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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
    if (mode == HP_OSP_RT_LIVE) {
        void *mem = hp_map(p->mem);
        g_list = mem ? hp_osp_list_init(mem, p->mem, hp_mix64(seed ^ 0x05b5), p->enc == HP_SUBPATH_ENC_EXACT) : NULL;
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
    o->tid = ~0ull; /* osp_own resets it for t */
    HP_STORE_REL(&t->osp, o);
    return o;
}

/* The sampler and the ring restart when the state is taken by a new thread. */
static HP_NOINST void osp_own(hp_thread *t, hp_thread_osp *o)
{
    o->tid = t->tid;
    if (o->x) hp_osp_exact_init(o->x, g_p.maxlen, g_p.enc);
    if (g_mode != HP_OSP_RT_LIVE) return;
    double f = hp_osp_f(g_p.minf, g_list->tau);
    hp_osp_sampler_init(&o->s, hp_mix64(g_seed ^ (t->seed + t->tid * 0x9e3779b97f4a7c15ull)), f, &g_law);
    o->drawn_skip = o->s.skip;
    if (g_p.skiponly) o->s.length = 1;
    HP_STORE_RLX(&o->live, 1);
}

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

/* A complete sample: key, rejection (weight=cost), the list; then the next cycle. */
static HP_NOINST void sample_done(hp_thread_osp *o)
{
    hp_osp_sampler *s = &o->s;
    uint32_t L = s->length;
    double f = s->f, p = hp_osp_p_length(&g_law, L);
    HP_STORE_RLX(&o->blocks, o->blocks + o->drawn_skip + L);
    if (!g_p.skiponly) {
        HP_BUMP(&o->samples);
        double accept = g_p.weight == HP_OSP_W_COST ? cost_accept(s->ids, L) : 1;
        if (accept < 1 && hp_rng_double(&s->rng) >= accept) {
            HP_BUMP(&o->rejected);
        } else {
            uint64_t key = hp_subpath_key((int)g_p.enc, s->ids, L); /* enc=exact: ids canonical now */
            if (list_lock()) {
                hp_osp_list_offer(g_list, key, L, s->ids, hp_osp_sample_weight(&g_law, f), p * accept);
                f = hp_osp_f(g_p.minf, g_list->tau);
                list_unlock();
            } else {
                __atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
            }
        }
    }
    hp_osp_sampler_next(s, f, &g_law); /* f: as the list's tau left it at this sample's offer */
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
    __asm__ volatile("" ::: "memory");
    o->busy = 0;
}

/* ---------------------------------------------------------------- reading (writer, live view) */

/* A copy of the hot-list taken under its lock, its pointers moved into the copy: NULL if there is
 * no list, the lock could not be taken, or mmap failed. Unmap with munmap(copy, g_p.mem). */
static HP_NOINST hp_osp_list *list_copy(void)
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

static HP_NOINST void put_record(const hp_pt_sink *o, uint64_t key, uint64_t count, double weight, double p,
                                 uint32_t length, const uint32_t *seq)
{
    uint8_t rec[HP_REC_SUBPATH_FIXED];
    hp_rec_subpath r = {key, count, weight, p, length, seq ? length : 0};
    hp_fmt_put_subpath(rec, &r);
    o->put(rec, sizeof rec);
    uint8_t ids[4 * 64];
    for (uint32_t i = 0; seq && i < length; i += 64) { /* u32 LE, in chunks */
        uint32_t n = length - i < 64 ? length - i : 64;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t v = seq[i + j];
            ids[4 * j] = (uint8_t)v, ids[4 * j + 1] = (uint8_t)(v >> 8);
            ids[4 * j + 2] = (uint8_t)(v >> 16), ids[4 * j + 3] = (uint8_t)(v >> 24);
        }
        o->put(ids, 4 * n);
    }
}

/* The sequence of a thread's exact slot, or NULL. */
static HP_NOINST const uint32_t *slot_seq(const hp_thread_osp *o, const hp_slot *s)
{
    uint64_t off = HP_LOAD_ACQ(&s->v2);
    const hp_osp_arena *a = HP_LOAD_ACQ(&o->arena);
    if (!off || !a || off - 1 + s->k2 > a->cap) return NULL;
    return a->ids + off - 1;
}

/* Exact: every thread's table summed into one scratch table (k1 key, k2 length, v1 executions,
 * v2 the address of a sequence); NULL if mmap failed. Free with hp_osp_scratch_free. */
static HP_NOINST hp_tab *exact_merge(void)
{
    uint64_t need = 16;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        const hp_tab *c = o ? HP_LOAD_ACQ(&o->counts) : NULL;
        if (c) need += c->mask + 1;
    }
    uint64_t cap = 16;
    while (cap < need * 2) cap *= 2;
    hp_tab *sum = hp_tab_new(cap);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); sum && t; t = t->next) {
        const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        const hp_tab *c = o ? HP_LOAD_ACQ(&o->counts) : NULL;
        for (uint64_t i = 0; c && i <= c->mask; i++) {
            const hp_slot *s = &c->s[i];
            uint64_t k1 = HP_LOAD_ACQ(&s->k1), v1 = HP_LOAD_RLX(&s->v1);
            if (!k1 || !v1) continue;
            hp_slot *d = hp_tab_get(&sum, k1, s->k2);
            d->v1 += v1;
            if (!d->v2) d->v2 = (uint64_t)(uintptr_t)slot_seq(o, s);
        }
    }
    return sum;
}

static HP_NOINST void write_exact(const hp_pt_sink *o)
{
    hp_tab *sum = exact_merge();
    if (!sum) return;
    o->begin(HP_SEC_SUBPATHS);
    for (uint64_t i = 0; i <= sum->mask; i++) {
        const hp_slot *s = &sum->s[i];
        if (s->k1) put_record(o, s->k1, s->v1, (double)s->v1, 1.0, (uint32_t)s->k2, (const uint32_t *)(uintptr_t)s->v2);
    }
    o->end();
    munmap(sum, hp_tab_bytes(sum));
}

static HP_NOINST void write_group(const hp_pt_sink *o)
{
    int mode = HP_LOAD_ACQ(&hp_g.osp);
    if (mode == HP_OSP_RT_EXACT) write_exact(o);
    if (mode != HP_OSP_RT_LIVE) return;
    hp_osp_list *c = list_copy();
    if (!c) return;
    o->begin(HP_SEC_SUBPATHS);
    for (uint32_t i = 0; i < c->n; i++) {
        const hp_osp_entry *e = &c->e[i];
        put_record(o, e->key, e->count, e->weight, e->p_length, e->length, hp_osp_list_seq(c, e));
    }
    o->end();
    munmap(c, g_p.mem);
}

/* ---------------------------------------------------------------- INFO */

static HP_NOINST size_t cat(char *out, size_t len, size_t cap, const char *s)
{
    while (*s && len + 1 < cap) out[len++] = *s++;
    return len;
}
static HP_NOINST size_t cat_kv_u64(char *out, size_t len, size_t cap, const char *key, uint64_t v)
{
    char num[24];
    num[hp_fmt_u64(num, v)] = 0;
    len = cat(out, len, cap, key), len = cat(out, len, cap, "="), len = cat(out, len, cap, num);
    return cat(out, len, cap, "\n");
}
/* A decimal with 3 fraction digits (tau and f: >= 1, exact enough). */
static HP_NOINST size_t cat_kv_dec(char *out, size_t len, size_t cap, const char *key, double v)
{
    char num[48];
    uint64_t whole = (uint64_t)v, milli = (uint64_t)((v - (double)whole) * 1000 + 0.5);
    if (milli >= 1000) whole++, milli -= 1000;
    size_t n = hp_fmt_u64(num, whole);
    num[n++] = '.';
    num[n++] = (char)('0' + milli / 100), num[n++] = (char)('0' + milli / 10 % 10), num[n++] = (char)('0' + milli % 10);
    num[n] = 0;
    len = cat(out, len, cap, key), len = cat(out, len, cap, "="), len = cat(out, len, cap, num);
    return cat(out, len, cap, "\n");
}

static HP_NOINST size_t group_info(char *out, size_t cap)
{
    int mode = HP_LOAD_ACQ(&hp_g.osp);
    if (mode == HP_OSP_RT_NONE) return 0;
    uint64_t blocks = 0, samples = 0, rejected = 0, collisions = 0, entries = 0, bytes = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        if (!o) continue;
        blocks += HP_LOAD_RLX(&o->blocks), samples += HP_LOAD_RLX(&o->samples);
        rejected += HP_LOAD_RLX(&o->rejected), collisions += HP_LOAD_RLX(&o->collisions);
        const hp_tab *c = HP_LOAD_ACQ(&o->counts);
        if (c) bytes += hp_tab_bytes(c) + HP_LOAD_RLX(&o->arena_used) * sizeof(uint32_t), entries += c->used;
    }
    double tau = 1, f = 0;
    hp_osp_list *c = mode == HP_OSP_RT_LIVE ? list_copy() : NULL;
    if (c) {
        tau = c->tau, f = hp_osp_f(g_p.minf, c->tau), entries = c->n, bytes = hp_osp_list_bytes_used(c);
        collisions += c->collisions;
        munmap(c, g_p.mem);
    }
    char params[160];
    hp_osp_params_format(params, sizeof params, &g_p);
    size_t n = 0;
    n = cat(out, n, cap, HP_INFO_SUBPATH_SUMMARY "="), n = cat(out, n, cap, mode == HP_OSP_RT_EXACT ? "exact\n" : "sampled\n");
    n = cat(out, n, cap, HP_INFO_SUBPATH_PARAMS "="), n = cat(out, n, cap, params), n = cat(out, n, cap, "\n");
    n = cat(out, n, cap, HP_INFO_SUBPATH_SKIP "="), n = cat(out, n, cap, mode == HP_OSP_RT_EXACT ? "exact\n" : "live\n");
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_BLOCKS, blocks);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_SAMPLES, samples);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_REJECTED, rejected);
    n = cat_kv_dec(out, n, cap, HP_INFO_SUBPATH_TAU, tau);
    n = cat_kv_dec(out, n, cap, HP_INFO_SUBPATH_F, f);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_BYTES, bytes);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_ENTRIES, entries);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_COLLISIONS, collisions);
    if (mode == HP_OSP_RT_LIVE) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_DROPPED, HP_LOAD_RLX(&g_dropped));
    return n;
}

/* ---------------------------------------------------------------- live top-k */

static HP_NOINST void fill_pcs(hp_live_row *r, const uint32_t *seq, uint32_t length)
{
    const hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    r->npcs = 0;
    for (uint32_t i = 0; seq && m && i < length && r->npcs < HP_LIVE_PCS; i++)
        r->pcs[r->npcs++] = seq[i] < m->cap ? m->e[seq[i]].pc : 0;
}

/* Inserts (key, length, value) into out[0..*n) (highest first, at most k). */
static HP_NOINST void keep_row(hp_live_row *out, int k, int *n, uint64_t key, uint32_t length, double value,
                               const uint32_t *seq)
{
    if (*n == k && out[k - 1].value >= value) return;
    int i = *n < k ? (*n)++ : k - 1;
    while (i > 0 && out[i - 1].value < value) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = (hp_live_row){key, length, value, 0, 0, {0}};
    fill_pcs(&out[i], seq, length);
}

static HP_NOINST int live_rows(hp_live_row *out, int k)
{
    int mode = HP_LOAD_ACQ(&hp_g.osp), n = 0;
    if (k <= 0) return 0;
    memset(out, 0, (size_t)k * sizeof *out);
    if (mode == HP_OSP_RT_EXACT) {
        hp_tab *sum = exact_merge();
        if (!sum) return 0;
        for (uint64_t i = 0; i <= sum->mask; i++)
            if (sum->s[i].k1)
                keep_row(out, k, &n, sum->s[i].k1, (uint32_t)sum->s[i].k2, (double)sum->s[i].v1,
                         (const uint32_t *)(uintptr_t)sum->s[i].v2);
        munmap(sum, hp_tab_bytes(sum));
        return n;
    }
    hp_osp_list *c = mode == HP_OSP_RT_LIVE ? list_copy() : NULL;
    if (!c) return 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const hp_osp_entry *e = &c->e[i];
        keep_row(out, k, &n, e->key, e->length, e->p_length > 0 ? e->weight / e->p_length : 0, hp_osp_list_seq(c, e));
    }
    munmap(c, g_p.mem);
    return n;
}

const hp_pt hp_pt_subpath = {
    .ptype = HP_PT_SUBPATH, .write_group = write_group, .group_info = group_info, .live_rows = live_rows};

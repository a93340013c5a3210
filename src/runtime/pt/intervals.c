/* intervals.c — interval multi-hash profiles in the runtime (intervals.h): per-thread state,
 * the update, the interval end, and the INTERVALS sections (core/format/ivsec.h).
 * File-static state (this file's only): the parameters of each stream, set once at init.
 */
#include "runtime/pt/intervals.h"
#include "runtime/pt/pt.h"
#include "core/format/format.h"
#include "core/format/ivsec.h"
#include "core/ptype/ptype.h"
#include "core/summary/ivtimeline.h"
#include "core/summary/multihash.h"
#include <string.h>

static hp_iv_params g_iv[HP_IV_NSTREAMS];
static hp_multihash_params g_mh[HP_IV_NSTREAMS];
static uint64_t g_seed;
static int g_how; /* HP_RT_IV_*: bursty runs' intervals count sampled tuples */
static char g_info[HP_IV_NSTREAMS][320];
static uint64_t g_most[HP_IV_NSTREAMS]; /* the most complete intervals of a thread written (writer lock) */
static int g_written[HP_IV_NSTREAMS], g_warned;

typedef struct iv_exact { uint64_t key, a, b, count; } iv_exact;

typedef struct hp_iv_state {
    hp_multihash *mh;
    hp_ivt *tl;
    uint64_t events, in_interval; /* all events; events of the interval in progress */
    iv_exact *ex;                 /* exact=1: open addressing, cap = ex_mask + 1 >= 2 L */
    uint32_t *ex_used;            /* indices of ex in use this interval */
    uint64_t ex_mask, ex_n;
    hp_ivt_entry *cand;           /* scratch: one interval's entries (2 acc entries) */
    hp_ivsec_name names[HP_IV_NAMES];
} hp_iv_state;

static HP_NOINST uint64_t mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
    return x;
}

HP_NOINST void hp_rt_iv_start(const hp_iv_params iv[HP_IV_NSTREAMS], uint64_t seed, int how)
{
    uint32_t on = 0;
    g_seed = seed, g_how = how;
    for (int s = 0; s < HP_IV_NSTREAMS; s++) {
        g_iv[s] = iv[s];
        if (!iv[s].enabled) continue;
        if (hp_iv_multihash_params(&iv[s], seed, &g_mh[s]) || !hp_multihash_bytes(&g_mh[s])) continue;
        hp_iv_params_format(g_info[s], sizeof g_info[s], s, &iv[s]);
        on |= 1u << s;
    }
    HP_STORE_REL(&hp_g.iv_streams, on);
}

HP_NOINST const char *hp_rt_iv_info(int s) { return s >= 0 && s < HP_IV_NSTREAMS ? g_info[s] : ""; }

/* Timeline entries: 32 per slot of the budget on average (at least 4 intervals' worth), at most
 * 2^24; mapped lazily (MAP_NORESERVE), so untouched entries cost no memory. */
static HP_NOINST uint32_t pool_entries(int s)
{
    uint32_t acc = hp_multihash_acc_entries(&g_mh[s]), b = g_iv[s].budget;
    uint64_t n = (uint64_t)b * 32 > 8ull * acc ? (uint64_t)b * 32 : 8ull * acc;
    return n > (1u << 24) ? 1u << 24 : (uint32_t)n;
}

static HP_NOINST hp_iv_state *state_new(int s)
{
    size_t mhb = hp_multihash_bytes(&g_mh[s]), tlb = hp_ivt_bytes(g_iv[s].budget, pool_entries(s));
    uint32_t acc = hp_multihash_acc_entries(&g_mh[s]);
    uint64_t cap = 16;
    while (g_iv[s].exact && cap < 2 * g_iv[s].interval) cap *= 2;
    size_t exb = g_iv[s].exact ? cap * (sizeof(iv_exact) + sizeof(uint32_t)) : 0;
    size_t total = sizeof(hp_iv_state) + mhb + 64 + tlb + 64 + exb + (2 * (size_t)acc + 2) * sizeof(hp_ivt_entry);
    uint8_t *m = hp_map(total);
    if (!m) return NULL;
    hp_iv_state *st = (hp_iv_state *)(void *)m;
    uint8_t *at = m + ((sizeof *st + 63) & ~(size_t)63);
    st->mh = hp_multihash_init(at, mhb, &g_mh[s]);
    at += (mhb + 63) & ~(size_t)63;
    st->tl = hp_ivt_init(at, tlb, g_iv[s].budget, pool_entries(s));
    at += (tlb + 63) & ~(size_t)63;
    st->cand = (hp_ivt_entry *)(void *)at;
    at += (2 * (size_t)acc + 2) * sizeof(hp_ivt_entry);
    if (g_iv[s].exact) {
        st->ex = (iv_exact *)(void *)at, st->ex_mask = cap - 1;
        st->ex_used = (uint32_t *)(void *)(at + cap * sizeof(iv_exact));
    }
    return st->mh && st->tl ? st : NULL;
}

static HP_NOINST void name_put(hp_iv_state *st, uint64_t key, uint64_t a, uint64_t b)
{
    hp_ivsec_name *n = &st->names[mix(key) & (HP_IV_NAMES - 1)];
    n->key = key, n->a = a, n->b = b;
}

static HP_NOINST iv_exact *exact_add(hp_iv_state *st, uint64_t key, uint64_t a, uint64_t b)
{
    uint64_t i = mix(key) & st->ex_mask;
    while (st->ex[i].count && st->ex[i].key != key) i = (i + 1) & st->ex_mask;
    iv_exact *e = &st->ex[i];
    if (!e->count) e->key = key, e->a = a, e->b = b, st->ex_used[st->ex_n++] = (uint32_t)i;
    e->count++;
    return e;
}

static HP_NOINST uint64_t exact_count(const hp_iv_state *st, uint64_t key)
{
    for (uint64_t i = mix(key) & st->ex_mask; st->ex[i].count; i = (i + 1) & st->ex_mask)
        if (st->ex[i].key == key) return st->ex[i].count;
    return 0;
}

static HP_NOINST int by_key(const void *x, const void *y)
{
    uint64_t a = ((const hp_ivt_entry *)x)->key, b = ((const hp_ivt_entry *)y)->key;
    return a < b ? -1 : a > b;
}

/* Insertion sort (at most 2 x acc entries; no qsort in a signal-safe runtime path). */
static HP_NOINST void sort_entries(hp_ivt_entry *e, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        hp_ivt_entry x = e[i];
        uint32_t j = i;
        while (j && by_key(&e[j - 1], &x) > 0) e[j] = e[j - 1], j--;
        e[j] = x;
    }
}

/* The completed interval's candidates (and exact candidates) into the timeline. */
static HP_NOINST void interval_end(hp_iv_state *st, int s)
{
    const hp_multihash_candidate *c;
    size_t nc = hp_multihash_report(st->mh, &c);
    uint32_t n = 0;
    uint64_t T = hp_multihash_threshold_count(&g_mh[s]);
    for (size_t i = 0; i < nc; i++) {
        uint64_t truth = st->ex ? exact_count(st, c[i].key) : 0;
        st->cand[n++] = (hp_ivt_entry){c[i].key, c[i].count, truth, 1, truth >= T && st->ex};
    }
    if (st->ex) {
        for (uint64_t u = 0; u < st->ex_n; u++) {
            iv_exact *e = &st->ex[st->ex_used[u]];
            if (e->count >= T) {
                name_put(st, e->key, e->a, e->b);
                int reported = 0;
                for (size_t i = 0; i < nc && !reported; i++) reported = c[i].key == e->key;
                if (!reported) st->cand[n++] = (hp_ivt_entry){e->key, 0, e->count, 0, 1};
            }
            e->count = 0;
        }
        st->ex_n = 0;
    }
    sort_entries(st->cand, n);
    hp_ivt_append(st->tl, st->in_interval, st->cand, n);
    st->in_interval = 0;
}

static HP_NOINST void iv_add(hp_thread *t, int s, uint64_t a, uint64_t b)
{
    hp_iv_state *st = t->iv[s];
    if (HP_UNLIKELY(!st)) {
        if (t->iv_failed & (1u << s)) return;
        if (!(st = state_new(s))) { t->iv_failed |= 1u << s; return; }
        HP_STORE_REL(&t->iv[s], st);
    }
    uint64_t key = hp_multihash_tuple_key(a, b);
    if (st->ex) exact_add(st, key, a, b);
    uint64_t before = hp_multihash_running_stats(st->mh).promoted;
    int done = hp_multihash_update(st->mh, key);
    uint64_t after = done ? hp_multihash_last_stats(st->mh).promoted : hp_multihash_running_stats(st->mh).promoted;
    if (after != before) name_put(st, key, a, b);
    st->events++, st->in_interval++;
    if (done) interval_end(st, s);
}

/* Re-entry guard: a signal handler that runs instrumented code while this thread is inside an
 * update (or a timeline merge) would corrupt the state; its tuples are dropped instead. */
HP_NOINST void hp_rt_iv_add(hp_thread *t, int s, uint64_t a, uint64_t b)
{
    if (t->iv_busy) return;
    t->iv_busy = 1;
    __asm__ volatile("" ::: "memory");
    iv_add(t, s, a, b);
    __asm__ volatile("" ::: "memory");
    t->iv_busy = 0;
}

/* ---------------------------------------------------------------- writer */

/* Every remembered name (at most HP_IV_NAMES), through o when o is given; returns how many. */
static HP_NOINST uint32_t put_names(const hp_iv_state *st, const hp_pt_sink *o)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < HP_IV_NAMES; i++) {
        const hp_ivsec_name *nm = &st->names[i];
        if (!nm->key && !nm->a && !nm->b) continue;
        if (o) {
            uint8_t rec[HP_IVSEC_NAME_SIZE];
            hp_ivsec_put_name(rec, nm);
            o->put(rec, sizeof rec);
        }
        n++;
    }
    return n;
}

/* A slot as read now, its entries clamped to the pool (a flush racing the owner's merge). */
static HP_NOINST hp_ivt_slot slot_at(const hp_ivt *tl, uint32_t i)
{
    hp_ivt_slot sl = tl->slots[i];
    if (sl.off > tl->max_entries) sl.off = tl->max_entries;
    if (sl.n > tl->max_entries - sl.off) sl.n = tl->max_entries - sl.off;
    return sl;
}

static HP_NOINST void write_stream(const hp_iv_state *st, int s, const hp_pt_sink *o)
{
    const hp_ivt *tl = st->tl;
    uint32_t nslots = HP_LOAD_ACQ(&tl->nslots), nentries = 0;
    if (nslots > tl->max_slots) nslots = tl->max_slots;
    for (uint32_t i = 0; i < nslots; i++) nentries += slot_at(tl, i).n;
    hp_ivsec_head h = {.stream = (uint32_t)s, .flags = (st->ex ? HP_IVSEC_EXACT : 0) | (g_how != HP_RT_IV_EXHAUSTIVE ? HP_IVSEC_BURSTY : 0) |
                                 (g_how == HP_RT_IV_PATCH ? HP_IVSEC_PATCH : 0), .p = g_iv[s],
                       .T = hp_multihash_threshold_count(&g_mh[s]), .seed = g_seed, .intervals = tl->intervals,
                       .dropped = tl->dropped, .events = st->events, .tail_events = st->in_interval, .span = tl->span,
                       .nslots = nslots, .nentries = nentries, .nnames = put_names(st, NULL)};
    h.p.counter_bits = g_mh[s].counter_bits;
    g_written[s] = 1;
    if (tl->intervals > g_most[s]) g_most[s] = tl->intervals;
    h.acc_entries = hp_multihash_acc_entries(&g_mh[s]), h.counters_used = g_mh[s].total_counters;
    if (h.p.variant != HP_MH_VARIANT_PAPER) h.flags |= HP_IVSEC_VARIANT;
    uint8_t head[HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE], rec[HP_IVSEC_SLOT_SIZE];
    o->begin(HP_SEC_INTERVALS);
    o->put(head, hp_ivsec_put_head(head, &h));
    for (uint32_t i = 0; i < nslots; i++) {
        hp_ivt_slot sl = slot_at(tl, i);
        hp_ivsec_put_slot(rec, &sl), o->put(rec, sizeof rec);
    }
    for (uint32_t i = 0; i < nslots; i++) {
        hp_ivt_slot sl = slot_at(tl, i);
        for (uint32_t j = 0; j < sl.n; j++) hp_ivsec_put_entry(rec, &tl->pool[sl.off + j]), o->put(rec, sizeof rec);
    }
    put_names(st, o);
    o->end();
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    for (int s = 0; s < HP_IV_NSTREAMS; s++) {
        const hp_iv_state *st = HP_LOAD_ACQ(&t->iv[s]);
        if (st) write_stream(st, s, o);
    }
}

HP_NOINST void hp_rt_iv_warn_sparse(void)
{
    if (g_how == HP_RT_IV_EXHAUSTIVE || g_warned) return;
    for (int s = 0; s < HP_IV_NSTREAMS; s++) {
        if (!g_written[s] || g_most[s] >= HP_IVSEC_FEW_INTERVALS) continue;
        char n[24], len[24];
        n[hp_fmt_u64(n, g_most[s])] = 0;
        len[hp_fmt_u64(len, g_iv[s].interval)] = 0;
        const char *parts[] = {"hotprof: warning: the ", hp_iv_stream_name(s), " interval profile has only ", n,
                               " complete intervals of ", len,
                               g_how == HP_RT_IV_PATCH ? " events seen in patched windows" : " events seen in bursts",
                               ": too few to show phases; sample more (a larger burst or smaller period) or use a smaller interval="};
        hp_say(parts, sizeof parts / sizeof parts[0]);
        g_warned = 1;
    }
}

const hp_pt hp_pt_intervals = {.ptype = HP_PT_INTERVALS, .write_thread = write_thread};

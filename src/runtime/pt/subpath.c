/* subpath.c — the subpath profile type (core/ptype: HP_PT_SUBPATH) on the runtime's writing side:
 * the SUBPATHS section (one per group: the process's hot-list, or every thread's exact counts
 * merged), the group INFO keys subpath.* (core/format/info_keys.h) and the live top-k
 * (hp_pt.live_rows; hotprof_snapshot_topk). The recording is pt/subpath_rec.c (pt/subpath.h);
 * this file reads its state only through hp_rt_osp_params / hp_rt_osp_list_copy and the threads'
 * published hp_thread_osp.
 *
 * Count mode calibrates (ratio estimator): every weight and the blocks are written times
 * g = boundary events counted / events estimated from the triggers (sum of S per trigger), over
 * the process's threads, so the estimates add up to the events the clean code counted (lexgen,
 * 20 seeds: blocks' error sd 0.58% -> 0.14%). INFO subpath.events and events_est give both; the
 * live top-k (snapshot_topk, `hotprof top`) takes the same factor as of its moment.
 *
 * Async-signal-safety: memory and mmap/munmap (the writer may run in a fatal-signal handler).
 */
#define _GNU_SOURCE
#include "runtime/pt/subpath.h"
#include "runtime/pt/pt.h"
#include "runtime/blockmap.h"
#include "core/control/spec.h"
#include "core/format/format.h"
#include "core/format/info_keys.h"
#include "core/ptype/ptype.h"
#include "core/summary/osplist.h"
#include <string.h>
#include <sys/mman.h>

static HP_NOINST void put_record(const hp_pt_sink *o, uint64_t key, uint64_t count, double weight, double p,
                                 uint32_t length, const uint32_t *seq)
{
    uint8_t rec[HP_REC_SUBPATH_FIXED];
    hp_rec_subpath r = {key, count, weight, p, length, seq ? length : 0};
    hp_fmt_put_subpath(rec, &r);
    o->put(rec, sizeof rec);
    if (seq) hp_pt_put_u32s(o, seq, length);
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

/* Count mode's calibration g (see the header); 1 in other modes or before any trigger. The
 * sums it is made of go to *events and *events_est when they are not NULL. */
static HP_NOINST double count_calibration(uint64_t *events, double *events_est)
{
    uint64_t ev = 0;
    double est = 0;
    if (HP_LOAD_ACQ(&hp_g.osp) == HP_OSP_RT_COUNT)
        for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
            const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
            if (o) ev += HP_LOAD_RLX(&o->cevents), est += *(const volatile double *)&o->cevents_est;
        }
    if (events) *events = ev, *events_est = est;
    return ev && est > 0 ? (double)ev / est : 1;
}

static HP_NOINST void write_group(const hp_pt_sink *o)
{
    int mode = HP_LOAD_ACQ(&hp_g.osp);
    if (mode == HP_OSP_RT_EXACT) write_exact(o);
    if (mode != HP_OSP_RT_LIVE && mode != HP_OSP_RT_PATCH && mode != HP_OSP_RT_COUNT) return;
    hp_osp_list *c = hp_rt_osp_list_copy();
    if (!c) return;
    double g = count_calibration(NULL, NULL);
    o->begin(HP_SEC_SUBPATHS);
    for (uint32_t i = 0; i < c->n; i++) {
        const hp_osp_entry *e = &c->e[i];
        put_record(o, e->key, e->count, g * hp_osp_list_weight(c, e), e->p_length, e->length, hp_osp_list_seq(c, e));
    }
    o->end();
    munmap(c, hp_rt_osp_params()->mem);
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
    uint64_t blocks = 0, samples = 0, rejected = 0, collisions = 0, entries = 0, bytes = 0, cuts = 0, bmax = 0;
    uint64_t events;
    double events_est, g = count_calibration(&events, &events_est);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        if (!o) continue;
        uint64_t b = HP_LOAD_RLX(&o->blocks);
        blocks += b, samples += HP_LOAD_RLX(&o->samples), bmax = b > bmax ? b : bmax;
        rejected += HP_LOAD_RLX(&o->rejected), collisions += HP_LOAD_RLX(&o->collisions);
        cuts += hp_rt_osp_count_cuts(o);
        const hp_tab *c = HP_LOAD_ACQ(&o->counts);
        if (c) bytes += hp_tab_bytes(c) + HP_LOAD_RLX(&o->arena_used) * sizeof(uint32_t), entries += c->used;
    }
    double tau = 1, f = 0;
    hp_osp_list *c = mode != HP_OSP_RT_EXACT ? hp_rt_osp_list_copy() : NULL;
    if (c) {
        tau = c->tau, f = hp_osp_f_rule(hp_rt_osp_params()->minf, c->tau, hp_rt_osp_params()->list, (double)bmax), entries = c->n, bytes = hp_osp_list_bytes_used(c);
        collisions += c->collisions;
        munmap(c, hp_rt_osp_params()->mem);
    }
    char params[160];
    hp_osp_params_format(params, sizeof params, hp_rt_osp_params());
    size_t n = 0;
    n = cat(out, n, cap, HP_INFO_SUBPATH_SUMMARY "="), n = cat(out, n, cap, mode == HP_OSP_RT_EXACT ? "exact\n" : "sampled\n");
    n = cat(out, n, cap, HP_INFO_SUBPATH_PARAMS "="), n = cat(out, n, cap, params), n = cat(out, n, cap, "\n");
    n = cat(out, n, cap, HP_INFO_SUBPATH_SKIP "="), n = cat(out, n, cap, mode == HP_OSP_RT_EXACT ? "exact\n"
                                                       : mode == HP_OSP_RT_PATCH ? "patch\n"
                                                       : mode == HP_OSP_RT_COUNT ? "count\n" : "live\n");
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_BLOCKS, g == 1 ? blocks : (uint64_t)(g * (double)blocks + 0.5));
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_SAMPLES, samples);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_REJECTED, rejected);
    n = cat_kv_dec(out, n, cap, HP_INFO_SUBPATH_TAU, tau);
    n = cat_kv_dec(out, n, cap, HP_INFO_SUBPATH_F, f);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_BYTES, bytes);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_ENTRIES, entries);
    n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_COLLISIONS, collisions);
    if (mode != HP_OSP_RT_EXACT) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_DROPPED, hp_rt_osp_dropped());
    if (mode == HP_OSP_RT_COUNT) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_CUT, cuts);
    if (mode == HP_OSP_RT_COUNT) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_PREARM, hp_rt_osp_prearm());
    if (mode == HP_OSP_RT_COUNT) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_EVENTS, events);
    if (mode == HP_OSP_RT_COUNT) n = cat_kv_u64(out, n, cap, HP_INFO_SUBPATH_EVENTS_EST, (uint64_t)(events_est + 0.5));
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
    hp_osp_list *c = mode != HP_OSP_RT_NONE ? hp_rt_osp_list_copy() : NULL;
    if (!c) return 0;
    /* chosen and ordered by the counted share of the estimate, as the report ranks them
     * (analysis/ptype/subpath.h: a subpath held on a few samples of a counting list is mostly
     * its admission term); the rows then get their estimates */
    for (uint32_t i = 0; i < c->n; i++) {
        const hp_osp_entry *e = &c->e[i];
        double est = e->p_length > 0 ? hp_osp_list_weight(c, e) / e->p_length : 0;
        double share = c->counting ? hp_osp_counted_share(e->count, c->tau) : 1;
        keep_row(out, k, &n, e->key, e->length, est * share, hp_osp_list_seq(c, e));
    }
    double g = count_calibration(NULL, NULL); /* as the profile will say */
    for (int i = 0; i < n; i++) {
        const hp_osp_entry *e = hp_osp_list_find(c, out[i].key);
        out[i].value = e && e->p_length > 0 ? g * hp_osp_list_weight(c, e) / e->p_length : 0;
    }
    munmap(c, hp_rt_osp_params()->mem);
    return n;
}

/* The blocks a thread's sampler saw (live: counted; patch: estimated); exact runs count blocks
 * in the shared counters already. */
static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    const hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
    return o && HP_LOAD_ACQ(&hp_g.osp) != HP_OSP_RT_EXACT ? HP_LOAD_RLX(&o->blocks) : 0;
}

const hp_pt hp_pt_subpath = {.ptype = HP_PT_SUBPATH,
                             .write_group = write_group,
                             .group_info = group_info,
                             .live_rows = live_rows,
                             .thread_events = thread_events};

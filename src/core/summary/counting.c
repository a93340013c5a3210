/* counting.c — Gibbons–Matias counting samples on the shared hp_gm_list (see concise.h).
 *
 * Layout in the caller's memory: struct hp_counting whose last member is the hp_gm_list, then the
 * list's arrays. Invariants between updates: list.n <= list.cap; counts > 0; keys distinct;
 * p == 1/tau; tau >= 1 only grows; parts >= 1; `skip` counts the coming occurrences of keys
 * not held that will not enter. count <= true count for every held key, always.
 */
#include "core/summary/counting.h"
#include "core/base/bytes.h"
#include "core/summary/concise.h"
#include "core/summary/exact.h"
#include "core/base/hash.h"
#include "core/base/rng.h"
#include <math.h>

struct hp_counting {
    double tau, f, p;
    uint64_t skip, total;
    uint32_t parts, pad;
    hp_rng rng;
    hp_gm_list list; /* last: its arrays follow */
};

size_t hp_counting_bytes_for(uint32_t n) { return offsetof(hp_counting, list) + hp_gm_list_bytes(n); }

static void *align8(void *mem, size_t *budget)
{
    uintptr_t p = (uintptr_t)mem, a = (p + 7u) & ~(uintptr_t)7u;
    if (!mem || *budget < a - p) return NULL;
    *budget -= a - p;
    return (void *)a;
}

hp_counting *hp_counting_init_ex(void *mem, size_t budget, uint32_t n, double f, uint64_t seed)
{
    hp_counting *c = align8(mem, &budget);
    if (!c || budget < offsetof(hp_counting, list)) return NULL;
    if (n == 0) n = hp_gm_list_cap_for(budget - offsetof(hp_counting, list));
    if (n < HP_GM_MIN_CAP || n > HP_GM_MAX_CAP || hp_counting_bytes_for(n) > budget) return NULL;
    if (f == 0) f = hp_gm_default_factor(n);
    if (!hp_gm_params_ok(n, f, 1.0)) return NULL;
    c->tau = c->p = 1.0;
    c->f = f;
    c->skip = c->total = 0;
    c->parts = 1;
    c->pad = 0;
    hp_rng_seed(&c->rng, seed);
    hp_gm_list_init(&c->list, n);
    return c;
}

hp_counting *hp_counting_init(void *mem, size_t budget, uint64_t seed)
{
    return hp_counting_init_ex(mem, budget, 0, 0, seed);
}

/* GM thinning of one count: first coin heads with `first`, later ones with `later`. */
static uint64_t thin_count(hp_rng *g, uint64_t count, double first, double later)
{
    if (first >= 1.0 || hp_rng_double(g) < first) return count;
    count--;
    if (count == 0) return 0;
    uint64_t tails = hp_rng_geometric(g, later);
    return tails >= count ? 0 : count - tails;
}

/* Thins the whole list from threshold tau to tau2 >= tau. */
static void thin_to(hp_counting *c, double tau2)
{
    hp_gm_entry *e = hp_gm_list_entries(&c->list);
    for (uint32_t i = 0; i < c->list.n; i++) e[i].count = thin_count(&c->rng, e[i].count, c->tau / tau2, 1.0 / tau2);
    hp_gm_list_compact(&c->list);
    c->tau = tau2;
}

static void counting_make_room(hp_counting *c)
{
    while (c->list.n > c->list.cap) {
        double tau2 = hp_gm_next_tau(c->tau, c->f);
        if (tau2 > c->tau) thin_to(c, tau2);
        else { /* at the cap: empty the list */
            c->list.n = 0;
            hp_gm_list_compact(&c->list);
        }
    }
    c->p = 1.0 / c->tau;
    c->skip = hp_rng_geometric(&c->rng, c->p);
}

static void counting_insert(hp_counting *c, uint64_t key, uint64_t count)
{
    hp_gm_list_add(&c->list, key, count);
    if (c->list.n > c->list.cap) counting_make_room(c);
}

void hp_counting_update(hp_counting *c, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    c->total = hp_sat_add(c->total, weight);
    hp_gm_entry *e = hp_gm_list_find(&c->list, key);
    if (e) {
        e->count = hp_sat_add(e->count, weight);
        return;
    }
    if (weight <= c->skip) {
        c->skip -= weight;
        return;
    }
    /* Occurrence number `skip` enters; every later one of this update is counted. */
    uint64_t count = weight - c->skip;
    c->skip = hp_rng_geometric(&c->rng, c->p);
    counting_insert(c, key, count);
}

uint64_t hp_counting_slack(const hp_counting *c)
{
    if (c->tau <= 1.0) return 0;
    double per_part = ceil(log(HP_COUNTING_DELTA / c->parts) / log1p(-1.0 / c->tau));
    return hp_round_estimate(per_part * c->parts);
}

static void counting_estimate(const hp_counting *c, uint64_t key, uint64_t count, hp_estimate *out)
{
    double extra = c->tau > 1.0 ? HP_COUNTING_GM_FACTOR * c->tau - 1.0 : 0.0;
    out->key = key;
    out->lower = count;
    out->upper = hp_sat_add(count, hp_counting_slack(c));
    if (out->upper > c->total) out->upper = c->total > count ? c->total : count;
    out->count = count ? hp_sat_add(count, hp_round_estimate(extra)) : 0;
    if (out->count > out->upper) out->count = out->upper;
}

int hp_counting_query(const hp_counting *c, uint64_t key, hp_estimate *out)
{
    const hp_gm_entry *e = hp_gm_list_find(&c->list, key);
    counting_estimate(c, key, e ? e->count : 0, out);
    return e != NULL;
}

static int counting_entry(const void *ctx, size_t i, hp_estimate *out)
{
    const hp_counting *c = ctx;
    const hp_gm_entry *e = &hp_gm_list_entries(&c->list)[i];
    counting_estimate(c, e->key, e->count, out);
    return 1;
}

size_t hp_counting_topk(const hp_counting *c, hp_estimate *out, size_t k)
{
    return hp_topk_select(c, c->list.n, counting_entry, out, k);
}

static void merge_entry(hp_counting *dst, uint64_t key, uint64_t count)
{
    hp_gm_entry *e = hp_gm_list_find(&dst->list, key);
    if (e) e->count = hp_sat_add(e->count, count);
    else counting_insert(dst, key, count);
}

int hp_counting_merge(hp_counting *dst, const hp_counting *src)
{
    if (dst == src) return -1;
    if (src->tau > dst->tau) thin_to(dst, src->tau);
    const hp_gm_entry *e = hp_gm_list_entries(&src->list);
    for (uint32_t i = 0; i < src->list.n; i++) {
        uint64_t kept = thin_count(&dst->rng, e[i].count, src->tau / dst->tau, 1.0 / dst->tau);
        if (kept) merge_entry(dst, e[i].key, kept);
    }
    dst->total = hp_sat_add(dst->total, src->total);
    dst->parts = dst->parts + src->parts < dst->parts ? UINT32_MAX : dst->parts + src->parts;
    dst->p = 1.0 / dst->tau;
    dst->skip = hp_rng_geometric(&dst->rng, dst->p);
    return 0;
}

uint64_t hp_counting_total(const hp_counting *c) { return c->total; }
double hp_counting_tau(const hp_counting *c) { return c->tau; }
uint32_t hp_counting_capacity(const hp_counting *c) { return c->list.cap; }
size_t hp_counting_bytes_used(const hp_counting *c) { return hp_counting_bytes_for(c->list.cap); }

/* ---- serialized form: the shared hp_gm_header (see concise.h) with word = parts ---- */

size_t hp_counting_serialized_size(const hp_counting *c) { return HP_GM_HEADER_BYTES + (size_t)c->list.n * 16; }

size_t hp_counting_serialize(const hp_counting *c, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_gm_header h = {HP_SUMMARY_COUNTING, HP_COUNTING_VERSION, c->list.cap, c->parts, c->f, c->tau,
                      c->total, c->skip, c->rng, c->list.n};
    hp_gm_write(&w, &h, &c->list);
    return w.ok ? w.len : 0;
}

hp_counting *hp_counting_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    hp_gm_header h;
    if (!buf) return NULL;
    if (!hp_gm_read_header(&r, &h)) return NULL;
    if (h.kind != HP_SUMMARY_COUNTING || h.version != HP_COUNTING_VERSION || h.word == 0) return NULL;
    hp_counting *c = hp_counting_init_ex(mem, budget, h.cap, h.f, 0);
    if (!c) return NULL;
    c->tau = h.tau;
    c->p = 1.0 / h.tau;
    c->total = h.total;
    c->skip = h.skip;
    c->parts = h.word;
    c->rng = h.rng;
    return hp_gm_read_entries(&c->list, &r, h.n, h.total) ? c : NULL;
}

/* ---- vtable ---- */

static void *vt_init(void *mem, size_t budget, uint64_t seed) { return hp_counting_init(mem, budget, seed); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_counting_update(s, key, w); }
static size_t vt_topk(const void *s, hp_estimate *out, size_t k) { return hp_counting_topk(s, out, k); }
static int vt_query(const void *s, uint64_t key, hp_estimate *out) { return hp_counting_query(s, key, out); }
static int vt_merge(void *dst, const void *src) { return hp_counting_merge(dst, src); }
static size_t vt_ssize(const void *s) { return hp_counting_serialized_size(s); }
static size_t vt_ser(const void *s, void *buf, size_t cap) { return hp_counting_serialize(s, buf, cap); }
static void *vt_deser(void *mem, size_t budget, const void *buf, size_t len)
{
    return hp_counting_deserialize(mem, budget, buf, len);
}
static size_t vt_bytes(const void *s) { return hp_counting_bytes_used(s); }
static uint64_t vt_total(const void *s) { return hp_counting_total(s); }

const hp_summary_vt hp_counting_vt = {
    "counting", HP_SUMMARY_COUNTING, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_ssize, vt_ser, vt_deser, vt_bytes, vt_total,
};

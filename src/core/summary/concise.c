/* concise.c — Gibbons–Matias concise samples, and the hp_gm_list (and its serialized form) they share
 * with counting samples.
 *
 * Layout in the caller's memory: struct hp_concise whose last member is the hp_gm_list, then
 * the list's cap+1 entries, then its index of nslots = 2*(cap+1) uint32 (entry index + 1,
 * 0 = empty; home slot = hp_mix64_xmx(key) scaled to [0, nslots), linear probing with wrap-around).
 * Invariants between updates: list.n <= list.cap; every count > 0; keys distinct; each key is
 * reachable from its home slot by linear probing; p == 1/tau; tau >= 1 only grows; `skip` is
 * the number of coming occurrences (of any key) that will not be sampled. Each occurrence seen
 * so far is in the sample with probability 1/tau, independently, so count*tau is unbiased.
 */
#include "core/summary/concise.h"
#include "core/base/bytes.h"
#include "core/summary/exact.h"
#include "core/base/hash.h"
#include <math.h>
#include <string.h>

/* ---- hp_gm_list ---- */

static uint32_t slots_for_cap(uint32_t cap) { return 2 * (cap + 1); }

size_t hp_gm_list_bytes(uint32_t cap)
{
    return sizeof(hp_gm_list) + (size_t)(cap + 1) * sizeof(hp_gm_entry) + (size_t)slots_for_cap(cap) * 4;
}

uint32_t hp_gm_list_cap_for(size_t bytes)
{
    uint32_t lo = 0, hi = HP_GM_MAX_CAP;
    if (bytes < hp_gm_list_bytes(HP_GM_MIN_CAP)) return 0;
    lo = HP_GM_MIN_CAP;
    while (lo < hi) { /* largest cap with bytes(cap) <= bytes; bytes() is monotone */
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (hp_gm_list_bytes(mid) <= bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static uint32_t *list_index(const hp_gm_list *l) { return hp_gm_list_index(l); }
static uint32_t *list_slot(const hp_gm_list *l, uint64_t key) { return hp_gm_list_slot(l, key); }

void hp_gm_list_init(hp_gm_list *l, uint32_t cap)
{
    l->cap = cap;
    l->n = 0;
    l->nslots = slots_for_cap(cap);
    l->pad = 0;
    memset(list_index(l), 0, (size_t)l->nslots * 4);
}

hp_gm_entry *hp_gm_list_add(hp_gm_list *l, uint64_t key, uint64_t count)
{
    hp_gm_entry *e = &hp_gm_list_entries(l)[l->n];
    e->key = key;
    e->count = count;
    *list_slot(l, key) = ++l->n;
    return e;
}

void hp_gm_list_compact(hp_gm_list *l)
{
    hp_gm_entry *e = hp_gm_list_entries(l);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (e[i].count) e[kept++] = e[i];
    l->n = 0;
    memset(list_index(l), 0, (size_t)l->nslots * 4);
    for (uint32_t i = 0; i < kept; i++) *list_slot(l, e[i].key) = ++l->n;
}

double hp_gm_default_factor(uint32_t cap)
{
    double f = (double)cap / (double)(cap - 1);
    return f > 1.05 ? f : 1.05;
}

int hp_gm_params_ok(uint32_t cap, double f, double tau)
{
    if (cap < HP_GM_MIN_CAP || cap > HP_GM_MAX_CAP) return 0;
    if (!(f > 1.0 && f <= 1024.0)) return 0; /* also rejects NaN */
    return tau >= 1.0 && tau <= HP_GM_MAX_TAU;
}

double hp_gm_next_tau(double tau, double f)
{
    double next = tau * f;
    return next < HP_GM_MAX_TAU ? next : HP_GM_MAX_TAU;
}

uint64_t hp_round_estimate(double x)
{
    if (!(x > 0)) return 0;
    if (x >= 18446744073709549568.0) return UINT64_MAX;
    return (uint64_t)(x + 0.5);
}

/* Poisson confidence limits for the mean given `count` events (Wilson–Hilferty approximation to
 * the exact Garwood chi-square limits; slightly conservative for small counts), each side
 * missing with probability about Phi(-z). */
static double poisson_lower(uint64_t count, double z)
{
    if (count == 0) return 0;
    double c = (double)count, t = 1 - 1 / (9 * c) - z / (3 * sqrt(c));
    return t > 0 ? c * t * t * t : 0;
}

static double poisson_upper(uint64_t count, double z)
{
    double c = (double)count + 1, t = 1 - 1 / (9 * c) + z / (3 * sqrt(c));
    return c * t * t * t;
}

void hp_concise_interval(uint64_t count, double tau, uint64_t total, hp_estimate *out)
{
    out->count = hp_round_estimate((double)count * tau);
    if (tau <= 1.0) { /* nothing was ever thinned: exact */
        out->lower = out->upper = count;
        return;
    }
    uint64_t lower = hp_round_estimate(floor(tau * poisson_lower(count, HP_CONCISE_Z)));
    uint64_t upper = hp_round_estimate(ceil(tau * poisson_upper(count, HP_CONCISE_Z)));
    out->lower = lower > count ? lower : count;
    out->upper = upper < total ? upper : total;
    if (out->upper < out->lower) out->upper = out->lower;
    if (out->count > out->upper) out->count = out->upper;
    if (out->count < out->lower) out->count = out->lower;
}

/* ---- concise samples ---- */

struct hp_concise {
    double tau, f, p;
    uint64_t skip, total;
    hp_rng rng;
    hp_gm_list list; /* last: its arrays follow */
};

size_t hp_concise_bytes_for(uint32_t n) { return offsetof(hp_concise, list) + hp_gm_list_bytes(n); }

static void *align8(void *mem, size_t *budget)
{
    uintptr_t p = (uintptr_t)mem, a = (p + 7u) & ~(uintptr_t)7u;
    if (!mem || *budget < a - p) return NULL;
    *budget -= a - p;
    return (void *)a;
}

hp_concise *hp_concise_init_ex(void *mem, size_t budget, uint32_t n, double f, uint64_t seed)
{
    hp_concise *c = align8(mem, &budget);
    if (!c || budget < offsetof(hp_concise, list)) return NULL;
    if (n == 0) n = hp_gm_list_cap_for(budget - offsetof(hp_concise, list));
    if (n < HP_GM_MIN_CAP || n > HP_GM_MAX_CAP || hp_concise_bytes_for(n) > budget) return NULL;
    if (f == 0) f = hp_gm_default_factor(n);
    if (!hp_gm_params_ok(n, f, 1.0)) return NULL;
    c->tau = c->p = 1.0;
    c->f = f;
    c->skip = c->total = 0;
    hp_rng_seed(&c->rng, seed);
    hp_gm_list_init(&c->list, n);
    return c;
}

hp_concise *hp_concise_init(void *mem, size_t budget, uint64_t seed)
{
    return hp_concise_init_ex(mem, budget, 0, 0, seed);
}

static void thin_binomial(hp_concise *c, double keep)
{
    hp_gm_entry *e = hp_gm_list_entries(&c->list);
    for (uint32_t i = 0; i < c->list.n; i++) e[i].count = hp_rng_binomial(&c->rng, e[i].count, keep);
    hp_gm_list_compact(&c->list);
}

/* Raises tau by f and thins until the list fits; then redraws the skip at the new rate. */
static void concise_make_room(hp_concise *c)
{
    while (c->list.n > c->list.cap) {
        double tau2 = hp_gm_next_tau(c->tau, c->f);
        thin_binomial(c, tau2 > c->tau ? c->tau / tau2 : 0.0);
        c->tau = tau2;
    }
    c->p = 1.0 / c->tau;
    c->skip = hp_rng_geometric(&c->rng, c->p);
}

static void concise_add(hp_concise *c, uint64_t key, uint64_t hits)
{
    hp_gm_entry *e = hp_gm_list_find(&c->list, key);
    if (e) {
        e->count = hp_sat_add(e->count, hits);
        return;
    }
    hp_gm_list_add(&c->list, key, hits);
    if (c->list.n > c->list.cap) concise_make_room(c);
}

void hp_concise_update(hp_concise *c, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    c->total = hp_sat_add(c->total, weight);
    if (weight <= c->skip) {
        c->skip -= weight;
        return;
    }
    /* Occurrence number `skip` is sampled; each later one of this update independently. */
    uint64_t rest = weight - c->skip - 1;
    uint64_t hits = 1 + (rest ? hp_rng_binomial(&c->rng, rest, c->p) : 0);
    c->skip = hp_rng_geometric(&c->rng, c->p);
    concise_add(c, key, hits);
}

static void concise_estimate(const hp_concise *c, const hp_gm_entry *e, hp_estimate *out)
{
    out->key = e->key;
    hp_concise_interval(e->count, c->tau, c->total, out);
}

int hp_concise_query(const hp_concise *c, uint64_t key, hp_estimate *out)
{
    const hp_gm_entry *e = hp_gm_list_find(&c->list, key);
    hp_gm_entry none = {key, 0};
    concise_estimate(c, e ? e : &none, out);
    out->count = e ? out->count : 0;
    out->lower = e ? out->lower : 0;
    return e != NULL;
}

static int concise_entry(const void *ctx, size_t i, hp_estimate *out)
{
    const hp_concise *c = ctx;
    concise_estimate(c, &hp_gm_list_entries(&c->list)[i], out);
    return 1;
}

size_t hp_concise_topk(const hp_concise *c, hp_estimate *out, size_t k)
{
    return hp_topk_select(c, c->list.n, concise_entry, out, k);
}

int hp_concise_merge(hp_concise *dst, const hp_concise *src)
{
    if (dst == src) return -1;
    if (src->tau > dst->tau) { /* bring dst's sample down to src's rate */
        thin_binomial(dst, dst->tau / src->tau);
        dst->tau = src->tau;
    }
    const hp_gm_entry *e = hp_gm_list_entries(&src->list);
    for (uint32_t i = 0; i < src->list.n; i++) {
        uint64_t kept = hp_rng_binomial(&dst->rng, e[i].count, src->tau / dst->tau);
        if (kept) concise_add(dst, e[i].key, kept);
    }
    dst->total = hp_sat_add(dst->total, src->total);
    dst->p = 1.0 / dst->tau;
    dst->skip = hp_rng_geometric(&dst->rng, dst->p);
    return 0;
}

uint64_t hp_concise_total(const hp_concise *c) { return c->total; }
double hp_concise_tau(const hp_concise *c) { return c->tau; }
uint32_t hp_concise_capacity(const hp_concise *c) { return c->list.cap; }
size_t hp_concise_bytes_used(const hp_concise *c) { return hp_concise_bytes_for(c->list.cap); }

uint64_t hp_concise_sample_size(const hp_concise *c)
{
    uint64_t sum = 0;
    const hp_gm_entry *e = hp_gm_list_entries(&c->list);
    for (uint32_t i = 0; i < c->list.n; i++) sum = hp_sat_add(sum, e[i].count);
    return sum;
}

/* ---- serialized form: the shared hp_gm_header with word = 0 (see concise.h) ---- */

static uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bits_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

void hp_gm_write(hp_wbuf *w, const hp_gm_header *h, const hp_gm_list *l)
{
    const hp_gm_entry *e = hp_gm_list_entries(l);
    hp_put_u32(w, h->kind);
    hp_put_u32(w, h->version);
    hp_put_u32(w, l->cap);
    hp_put_u32(w, h->word);
    hp_put_u64(w, f64_bits(h->f));
    hp_put_u64(w, f64_bits(h->tau));
    hp_put_u64(w, h->total);
    hp_put_u64(w, h->skip);
    for (int i = 0; i < 4; i++) hp_put_u64(w, h->rng.s[i]);
    hp_put_u64(w, l->n);
    for (uint32_t i = 0; i < l->n; i++) {
        hp_put_u64(w, e[i].key);
        hp_put_u64(w, e[i].count);
    }
}

int hp_gm_read_header(hp_rbuf *r, hp_gm_header *h)
{
    h->kind = hp_get_u32(r);
    h->version = hp_get_u32(r);
    h->cap = hp_get_u32(r);
    h->word = hp_get_u32(r);
    h->f = bits_f64(hp_get_u64(r));
    h->tau = bits_f64(hp_get_u64(r));
    h->total = hp_get_u64(r);
    h->skip = hp_get_u64(r);
    for (int i = 0; i < 4; i++) h->rng.s[i] = hp_get_u64(r);
    h->n = hp_get_u64(r);
    if (!r->ok || !hp_gm_params_ok(h->cap, h->f, h->tau)) return 0;
    if ((h->rng.s[0] | h->rng.s[1] | h->rng.s[2] | h->rng.s[3]) == 0) return 0;
    return h->n <= h->cap && hp_rbuf_left(r) == h->n * 16;
}

int hp_gm_read_entries(hp_gm_list *l, hp_rbuf *r, uint64_t n, uint64_t total)
{
    uint64_t sum = 0;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t key = hp_get_u64(r), count = hp_get_u64(r);
        if (!r->ok || count == 0 || hp_gm_list_find(l, key)) return 0;
        hp_gm_list_add(l, key, count);
        sum = hp_sat_add(sum, count);
    }
    return sum <= total;
}

size_t hp_concise_serialized_size(const hp_concise *c) { return HP_GM_HEADER_BYTES + (size_t)c->list.n * 16; }

size_t hp_concise_serialize(const hp_concise *c, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_gm_header h = {HP_SUMMARY_CONCISE, HP_CONCISE_VERSION, c->list.cap, 0, c->f, c->tau,
                      c->total, c->skip, c->rng, c->list.n};
    hp_gm_write(&w, &h, &c->list);
    return w.ok ? w.len : 0;
}

hp_concise *hp_concise_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    hp_gm_header h;
    if (!buf) return NULL;
    if (!hp_gm_read_header(&r, &h)) return NULL;
    if (h.kind != HP_SUMMARY_CONCISE || h.version != HP_CONCISE_VERSION || h.word != 0) return NULL;
    hp_concise *c = hp_concise_init_ex(mem, budget, h.cap, h.f, 0);
    if (!c) return NULL;
    c->tau = h.tau;
    c->p = 1.0 / h.tau;
    c->total = h.total;
    c->skip = h.skip;
    c->rng = h.rng;
    return hp_gm_read_entries(&c->list, &r, h.n, h.total) ? c : NULL;
}

/* ---- vtable ---- */

static void *vt_init(void *mem, size_t budget, uint64_t seed) { return hp_concise_init(mem, budget, seed); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_concise_update(s, key, w); }
static size_t vt_topk(const void *s, hp_estimate *out, size_t k) { return hp_concise_topk(s, out, k); }
static int vt_query(const void *s, uint64_t key, hp_estimate *out) { return hp_concise_query(s, key, out); }
static int vt_merge(void *dst, const void *src) { return hp_concise_merge(dst, src); }
static size_t vt_ssize(const void *s) { return hp_concise_serialized_size(s); }
static size_t vt_ser(const void *s, void *buf, size_t cap) { return hp_concise_serialize(s, buf, cap); }
static void *vt_deser(void *mem, size_t budget, const void *buf, size_t len)
{
    return hp_concise_deserialize(mem, budget, buf, len);
}
static size_t vt_bytes(const void *s) { return hp_concise_bytes_used(s); }
static uint64_t vt_total(const void *s) { return hp_concise_total(s); }

const hp_summary_vt hp_concise_vt = {
    "concise", HP_SUMMARY_CONCISE, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_ssize, vt_ser, vt_deser, vt_bytes, vt_total,
};

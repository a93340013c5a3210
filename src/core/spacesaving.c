/* spacesaving.c — Space-Saving with the stream-summary structure (see spacesaving.h).
 *
 * Layout in the caller's memory: struct hp_spacesaving, then m counters, then m+1 buckets (one
 * spare: a counter's new bucket is made before its old one is freed), then the key index
 * (nslots uint32 holding counter index + 1, 0 = empty; linear probing, backward-shift deletion).
 * Invariants between updates:
 *   - counters[0..n) are in use; each is in exactly one bucket, whose count equals its own;
 *   - buckets in use form a list min_b -> ... -> max_b of strictly increasing counts, none empty;
 *     unused buckets form the free list through `next`;
 *   - err <= count for every counter; keys distinct; each key reachable from its home slot;
 *   - when n == m, any key not held has true count <= the min bucket's count.
 */
#include "core/spacesaving.h"
#include "core/bytes.h"
#include "core/exact.h"
#include <string.h>

#define NIL UINT32_MAX

typedef struct ss_counter { uint64_t key, count, err; uint32_t bucket, next, prev, pad; } ss_counter;
typedef struct ss_bucket { uint64_t count; uint32_t head, prev, next, pad; } ss_bucket;

struct hp_spacesaving {
    uint32_t m, n, nslots, mask;
    uint32_t min_b, max_b, free_b, pad;
    uint64_t total;
};

static ss_counter *counters(const hp_spacesaving *s) { return (ss_counter *)(s + 1); }
static ss_bucket *buckets(const hp_spacesaving *s) { return (ss_bucket *)(counters(s) + s->m); }
static uint32_t *index_of(const hp_spacesaving *s) { return (uint32_t *)(buckets(s) + s->m + 1); }

static uint32_t slots_for(uint32_t m)
{
    uint32_t n = 4;
    while (n < 2 * m) n *= 2;
    return n;
}

size_t hp_spacesaving_bytes_for(uint32_t m)
{
    return sizeof(hp_spacesaving) + (size_t)m * sizeof(ss_counter) + (size_t)(m + 1) * sizeof(ss_bucket) +
           (size_t)slots_for(m) * 4;
}

static uint32_t m_for_budget(size_t budget)
{
    uint32_t lo = HP_SPACESAVING_MIN_M, hi = HP_SPACESAVING_MAX_M;
    if (budget < hp_spacesaving_bytes_for(lo)) return 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (hp_spacesaving_bytes_for(mid) <= budget) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* ---- buckets ---- */

static void buckets_reset(hp_spacesaving *s)
{
    ss_bucket *b = buckets(s);
    for (uint32_t i = 0; i <= s->m; i++) b[i].next = i < s->m ? i + 1 : NIL;
    s->free_b = 0;
    s->min_b = s->max_b = NIL;
}

/* Takes a free bucket with `count` and links it right after `after` (NIL: at the front). */
static uint32_t bucket_new_after(hp_spacesaving *s, uint32_t after, uint64_t count)
{
    ss_bucket *b = buckets(s);
    uint32_t id = s->free_b;
    s->free_b = b[id].next;
    b[id].count = count;
    b[id].head = NIL;
    b[id].prev = after;
    b[id].next = after == NIL ? s->min_b : b[after].next;
    if (b[id].next != NIL) b[b[id].next].prev = id;
    else s->max_b = id;
    if (after != NIL) b[after].next = id;
    else s->min_b = id;
    return id;
}

static void bucket_free(hp_spacesaving *s, uint32_t id)
{
    ss_bucket *b = buckets(s);
    if (b[id].prev != NIL) b[b[id].prev].next = b[id].next;
    else s->min_b = b[id].next;
    if (b[id].next != NIL) b[b[id].next].prev = b[id].prev;
    else s->max_b = b[id].prev;
    b[id].next = s->free_b;
    s->free_b = id;
}

static void counter_attach(hp_spacesaving *s, uint32_t c, uint32_t bid)
{
    ss_counter *k = counters(s);
    ss_bucket *b = buckets(s);
    k[c].bucket = bid;
    k[c].count = b[bid].count;
    k[c].prev = NIL;
    k[c].next = b[bid].head;
    if (b[bid].head != NIL) k[b[bid].head].prev = c;
    b[bid].head = c;
}

/* Unlinks counter c from its bucket; returns the bucket if it became empty, else NIL. */
static uint32_t counter_detach(hp_spacesaving *s, uint32_t c)
{
    ss_counter *k = counters(s);
    ss_bucket *b = buckets(s);
    uint32_t bid = k[c].bucket;
    if (k[c].prev != NIL) k[k[c].prev].next = k[c].next;
    else b[bid].head = k[c].next;
    if (k[c].next != NIL) k[k[c].next].prev = k[c].prev;
    return b[bid].head == NIL ? bid : NIL;
}

/* Puts detached counter c into the bucket for `count`, searching forward from `from`
 * (a bucket whose count is below `count`, or NIL to start at the minimum). */
static void counter_place(hp_spacesaving *s, uint32_t c, uint64_t count, uint32_t from)
{
    ss_bucket *b = buckets(s);
    uint32_t prev = NIL, at = from == NIL ? s->min_b : from;
    while (at != NIL && b[at].count < count) {
        prev = at;
        at = b[at].next;
    }
    if (at == NIL || b[at].count != count) at = bucket_new_after(s, prev, count);
    counter_attach(s, c, at);
}

/* Moves counter c to `count` >= its current count. */
static void counter_set_count(hp_spacesaving *s, uint32_t c, uint64_t count)
{
    ss_counter *k = &counters(s)[c];
    ss_bucket *b = buckets(s);
    uint32_t old = k->bucket;
    if (k->prev == NIL && k->next == NIL && (b[old].next == NIL || b[b[old].next].count > count)) {
        b[old].count = k->count = count; /* alone, and the order is kept: relabel the bucket */
        return;
    }
    uint32_t emptied = counter_detach(s, c);
    counter_place(s, c, count, buckets(s)[old].count <= count ? old : NIL);
    if (emptied != NIL && buckets(s)[emptied].head == NIL) bucket_free(s, emptied);
}

/* ---- key index ---- */

static uint32_t *index_slot(const hp_spacesaving *s, uint64_t key)
{
    const ss_counter *k = counters(s);
    uint32_t *idx = index_of(s);
    uint32_t i = (uint32_t)hp_mix64(key) & s->mask;
    while (idx[i] != 0 && k[idx[i] - 1].key != key) i = (i + 1) & s->mask;
    return &idx[i];
}

static uint32_t find_counter(const hp_spacesaving *s, uint64_t key)
{
    uint32_t v = *index_slot(s, key);
    return v ? v - 1 : NIL;
}

/* Deletes key's slot and shifts later members of its probe run back (no tombstones). */
static void index_remove(hp_spacesaving *s, uint64_t key)
{
    uint32_t *idx = index_of(s);
    uint32_t i = (uint32_t)(index_slot(s, key) - idx), j = i;
    idx[i] = 0;
    for (;;) {
        j = (j + 1) & s->mask;
        if (idx[j] == 0) return;
        uint32_t home = (uint32_t)hp_mix64(counters(s)[idx[j] - 1].key) & s->mask;
        int between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (between) continue;
        idx[i] = idx[j];
        idx[j] = 0;
        i = j;
    }
}

/* ---- init and update ---- */

static void *align8(void *mem, size_t *budget)
{
    uintptr_t p = (uintptr_t)mem, a = (p + 7u) & ~(uintptr_t)7u;
    if (!mem || *budget < a - p) return NULL;
    *budget -= a - p;
    return (void *)a;
}

hp_spacesaving *hp_spacesaving_init_m(void *mem, size_t budget, uint32_t m)
{
    hp_spacesaving *s = align8(mem, &budget);
    if (!s || m < HP_SPACESAVING_MIN_M || m > HP_SPACESAVING_MAX_M) return NULL;
    if (hp_spacesaving_bytes_for(m) > budget) return NULL;
    memset(s, 0, sizeof *s);
    s->m = m;
    s->nslots = slots_for(m);
    s->mask = s->nslots - 1;
    memset(index_of(s), 0, (size_t)s->nslots * 4);
    buckets_reset(s);
    return s;
}

hp_spacesaving *hp_spacesaving_init(void *mem, size_t budget)
{
    size_t b = budget;
    if (!align8(mem, &b)) return NULL;
    return hp_spacesaving_init_m(mem, budget, m_for_budget(b));
}

/* A new key with count and err: a free counter if any, else the min counter's. */
static void take_counter(hp_spacesaving *s, uint64_t key, uint64_t count, uint64_t err)
{
    ss_counter *k = counters(s);
    uint32_t c;
    if (s->n < s->m) {
        c = s->n++;
        k[c].key = key;
        k[c].err = err;
        counter_place(s, c, count, NIL);
    } else {
        c = buckets(s)[s->min_b].head;
        index_remove(s, k[c].key);
        k[c].key = key;
        k[c].err = err;
        counter_set_count(s, c, count);
    }
    *index_slot(s, key) = c + 1;
}

void hp_spacesaving_update(hp_spacesaving *s, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    s->total = hp_sat_add(s->total, weight);
    uint32_t c = find_counter(s, key);
    if (c != NIL) {
        counter_set_count(s, c, hp_sat_add(counters(s)[c].count, weight));
    } else {
        uint64_t floor = hp_spacesaving_floor(s);
        take_counter(s, key, hp_sat_add(floor, weight), floor);
    }
}

/* ---- queries ---- */

uint64_t hp_spacesaving_floor(const hp_spacesaving *s)
{
    return s->n == s->m && s->min_b != NIL ? buckets(s)[s->min_b].count : 0;
}

static void counter_estimate(const ss_counter *k, hp_estimate *out)
{
    out->key = k->key;
    out->count = out->upper = k->count;
    out->lower = k->count - k->err;
}

int hp_spacesaving_query(const hp_spacesaving *s, uint64_t key, hp_estimate *out)
{
    uint32_t c = find_counter(s, key);
    if (c != NIL) {
        counter_estimate(&counters(s)[c], out);
        return 1;
    }
    out->key = key;
    out->count = out->lower = 0;
    out->upper = hp_spacesaving_floor(s);
    return 0;
}

static int ss_entry(const void *ctx, size_t i, hp_estimate *out)
{
    counter_estimate(&counters(ctx)[i], out);
    return 1;
}

size_t hp_spacesaving_topk(const hp_spacesaving *s, hp_estimate *out, size_t k)
{
    return hp_topk_select(s, s->n, ss_entry, out, k);
}

uint64_t hp_spacesaving_total(const hp_spacesaving *s) { return s->total; }
uint32_t hp_spacesaving_capacity(const hp_spacesaving *s) { return s->m; }
uint32_t hp_spacesaving_size(const hp_spacesaving *s) { return s->n; }
size_t hp_spacesaving_bytes_used(const hp_spacesaving *s) { return hp_spacesaving_bytes_for(s->m); }

/* ---- rebuild (after merge and deserialize): sort counters by count, relink, reindex ---- */

static void counter_swap(ss_counter *k, uint32_t a, uint32_t b)
{
    ss_counter t = k[a];
    k[a] = k[b];
    k[b] = t;
}

/* Total order (count, then key), so a rebuild is the same whatever order counters came in. */
static int counter_after(const ss_counter *a, const ss_counter *b)
{
    return a->count != b->count ? a->count > b->count : a->key > b->key;
}

static void sift_down_max(ss_counter *k, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && counter_after(&k[l], &k[big])) big = l;
        if (r < n && counter_after(&k[r], &k[big])) big = r;
        if (big == i) return;
        counter_swap(k, i, big);
        i = big;
    }
}

static void sort_counters_by_count(ss_counter *k, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;) sift_down_max(k, n, i);
    for (uint32_t end = n; end > 1; end--) {
        counter_swap(k, 0, end - 1);
        sift_down_max(k, end - 1, 0);
    }
}

static void rebuild(hp_spacesaving *s)
{
    ss_counter *k = counters(s);
    sort_counters_by_count(k, s->n);
    buckets_reset(s);
    memset(index_of(s), 0, (size_t)s->nslots * 4);
    for (uint32_t c = 0; c < s->n; c++) {
        uint32_t last = s->max_b;
        if (last == NIL || buckets(s)[last].count != k[c].count) last = bucket_new_after(s, last, k[c].count);
        counter_attach(s, c, last);
        *index_slot(s, k[c].key) = c + 1;
    }
}

/* ---- merge ---- */

/* Adds src's view of every dst key (its counter, or its floor) to dst's counters. */
static void merge_held(hp_spacesaving *dst, const hp_spacesaving *src, uint64_t src_floor)
{
    ss_counter *k = counters(dst);
    for (uint32_t c = 0; c < dst->n; c++) {
        uint32_t o = find_counter(src, k[c].key);
        uint64_t add = o != NIL ? counters(src)[o].count : src_floor;
        uint64_t add_err = o != NIL ? counters(src)[o].err : src_floor;
        k[c].count = hp_sat_add(k[c].count, add);
        k[c].err = hp_sat_add(k[c].err, add_err);
    }
}

/* Offers every src-only key, with dst's old floor added, to the m largest. */
static void merge_new(hp_spacesaving *dst, const hp_spacesaving *src, uint64_t dst_floor)
{
    const ss_counter *k = counters(src);
    for (uint32_t c = 0; c < src->n; c++) {
        if (find_counter(dst, k[c].key) != NIL) continue;
        uint64_t count = hp_sat_add(k[c].count, dst_floor), err = hp_sat_add(k[c].err, dst_floor);
        if (dst->n == dst->m && count <= buckets(dst)[dst->min_b].count) continue;
        take_counter(dst, k[c].key, count, err);
    }
}

int hp_spacesaving_merge(hp_spacesaving *dst, const hp_spacesaving *src)
{
    if (dst == src || dst->m != src->m) return -1;
    uint64_t dst_floor = hp_spacesaving_floor(dst), src_floor = hp_spacesaving_floor(src);
    merge_held(dst, src, src_floor);
    rebuild(dst);
    merge_new(dst, src, dst_floor);
    dst->total = hp_sat_add(dst->total, src->total);
    return 0;
}

/* ---- consistency check ---- */

static int bucket_list_ok(const hp_spacesaving *s, uint32_t *seen)
{
    const ss_bucket *b = buckets(s);
    const ss_counter *k = counters(s);
    uint32_t prev = NIL, steps = 0;
    for (uint32_t at = s->min_b; at != NIL; prev = at, at = b[at].next) {
        if (at > s->m || ++steps > s->m + 1 || b[at].prev != prev || b[at].head == NIL) return 0;
        if (prev != NIL && b[prev].count >= b[at].count) return 0;
        uint32_t cprev = NIL;
        for (uint32_t c = b[at].head; c != NIL; cprev = c, c = k[c].next) {
            if (c >= s->n || ++*seen > s->n || k[c].bucket != at || k[c].prev != cprev) return 0;
            if (k[c].count != b[at].count || k[c].err > k[c].count) return 0;
        }
    }
    return prev == s->max_b;
}

int hp_spacesaving_check(const hp_spacesaving *s)
{
    uint32_t seen = 0;
    if (!bucket_list_ok(s, &seen) || seen != s->n) return 0;
    for (uint32_t c = 0; c < s->n; c++)
        if (find_counter(s, counters(s)[c].key) != c) return 0;
    return 1;
}

/* ---- serialized form ----
 * u32 kind, u32 version, u32 m, u32 0, u64 total, u64 n, n x (u64 key, u64 count, u64 err). */

#define SS_HEADER_BYTES (4 * 4 + 8 * 2)

size_t hp_spacesaving_serialized_size(const hp_spacesaving *s) { return SS_HEADER_BYTES + (size_t)s->n * 24; }

size_t hp_spacesaving_serialize(const hp_spacesaving *s, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    const ss_counter *k = counters(s);
    hp_put_u32(&w, HP_SUMMARY_SPACESAVING);
    hp_put_u32(&w, HP_SPACESAVING_VERSION);
    hp_put_u32(&w, s->m);
    hp_put_u32(&w, 0);
    hp_put_u64(&w, s->total);
    hp_put_u64(&w, s->n);
    for (uint32_t c = 0; c < s->n; c++) {
        hp_put_u64(&w, k[c].key);
        hp_put_u64(&w, k[c].count);
        hp_put_u64(&w, k[c].err);
    }
    return w.ok ? w.len : 0;
}

static int read_counters(hp_spacesaving *s, hp_rbuf *r, uint64_t n)
{
    ss_counter *k = counters(s);
    for (uint64_t j = 0; j < n; j++) {
        uint64_t key = hp_get_u64(r), count = hp_get_u64(r), err = hp_get_u64(r);
        if (!r->ok || count == 0 || err > count) return 0;
        uint32_t *slot = index_slot(s, key);
        if (*slot) return 0; /* duplicate */
        k[s->n] = (ss_counter){key, count, err, NIL, NIL, NIL, 0};
        *slot = ++s->n;
    }
    return 1;
}

hp_spacesaving *hp_spacesaving_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (!buf) return NULL;
    uint32_t kind = hp_get_u32(&r), version = hp_get_u32(&r), m = hp_get_u32(&r), zero = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r), n = hp_get_u64(&r);
    if (!r.ok || kind != HP_SUMMARY_SPACESAVING || version != HP_SPACESAVING_VERSION || zero) return NULL;
    if (m < HP_SPACESAVING_MIN_M || m > HP_SPACESAVING_MAX_M || n > m) return NULL;
    if (hp_rbuf_left(&r) != n * 24) return NULL;
    hp_spacesaving *s = hp_spacesaving_init_m(mem, budget, m);
    if (!s || !read_counters(s, &r, n)) return NULL;
    s->total = total;
    rebuild(s);
    return s;
}

/* ---- vtable ---- */

static void *vt_init(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_spacesaving_init(mem, budget); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_spacesaving_update(s, key, w); }
static size_t vt_topk(const void *s, hp_estimate *out, size_t k) { return hp_spacesaving_topk(s, out, k); }
static int vt_query(const void *s, uint64_t key, hp_estimate *out) { return hp_spacesaving_query(s, key, out); }
static int vt_merge(void *dst, const void *src) { return hp_spacesaving_merge(dst, src); }
static size_t vt_ssize(const void *s) { return hp_spacesaving_serialized_size(s); }
static size_t vt_ser(const void *s, void *buf, size_t cap) { return hp_spacesaving_serialize(s, buf, cap); }
static void *vt_deser(void *mem, size_t budget, const void *buf, size_t len)
{
    return hp_spacesaving_deserialize(mem, budget, buf, len);
}
static size_t vt_bytes(const void *s) { return hp_spacesaving_bytes_used(s); }
static uint64_t vt_total(const void *s) { return hp_spacesaving_total(s); }

const hp_summary_vt hp_spacesaving_vt = {
    "spacesaving", HP_SUMMARY_SPACESAVING, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_ssize, vt_ser, vt_deser, vt_bytes, vt_total,
};

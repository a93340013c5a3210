/* exact.c — Exact summary: open addressing with linear probing over (key, count) slots.
 *
 * Layout in the caller's memory: struct hp_exact, then `nslots` slots (any number >= 8, so the
 * whole budget is used; the home slot is hp_mix64_xmx(key) scaled to [0, nslots) by a multiply-high).
 * Invariants: a slot is empty iff count == 0; used <= max_used = 3/4 of nslots; every key appears
 * in at most one slot and is reachable from its home slot, probing forward with wrap-around,
 * without crossing an empty slot (nothing is ever deleted, so no tombstones);
 * sum(counts) + dropped == total.
 */
#include "core/summary/exact.h"
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/summary/topk.h"
#include <string.h>

typedef struct hp_exact_slot { uint64_t key, count; } hp_exact_slot;

struct hp_exact {
    uint64_t nslots, max_used, used, pad;
    uint64_t total, dropped;
    hp_exact_slot slots[];
};

#define EXACT_MIN_SLOTS 8u
#define EXACT_MAX_SLOTS ((uint64_t)1 << 40)

/* ---- table ---- */

size_t hp_exact_bytes_for(size_t slots) { return sizeof(hp_exact) + slots * sizeof(hp_exact_slot); }

static void *align_up(void *mem, size_t *budget)
{
    uintptr_t p = (uintptr_t)mem, a = (p + 7u) & ~(uintptr_t)7u;
    if (!mem || *budget < a - p) return NULL;
    *budget -= a - p;
    return (void *)a;
}

static hp_exact *exact_place(void *mem, size_t budget, uint64_t nslots)
{
    hp_exact *e = align_up(mem, &budget);
    if (!e || nslots < EXACT_MIN_SLOTS || nslots > EXACT_MAX_SLOTS) return NULL;
    if (budget < hp_exact_bytes_for(nslots)) return NULL;
    memset(e, 0, hp_exact_bytes_for(nslots));
    e->nslots = nslots;
    e->max_used = nslots / 4 * 3;
    return e;
}

static uint64_t slots_for_budget(size_t budget)
{
    if (budget < hp_exact_bytes_for(EXACT_MIN_SLOTS)) return 0;
    uint64_t n = (budget - sizeof(hp_exact)) / sizeof(hp_exact_slot);
    return n < EXACT_MAX_SLOTS ? n : EXACT_MAX_SLOTS;
}

hp_exact *hp_exact_init(void *mem, size_t budget)
{
    size_t b = budget;
    void *a = align_up(mem, &b);
    if (!a) return NULL;
    return exact_place(mem, budget, slots_for_budget(b));
}

/* The slot holding key, or the empty slot where it would go. */
static inline hp_exact_slot *exact_find(const hp_exact *e, uint64_t key)
{
    const hp_exact_slot *s = &e->slots[(uint64_t)(((__uint128_t)hp_mix64_xmx(key) * e->nslots) >> 64)];
    const hp_exact_slot *end = e->slots + e->nslots;
    while (s->count != 0 && s->key != key)
        if (++s == end) s = e->slots;
    return (hp_exact_slot *)s;
}

static int exact_add(hp_exact *e, uint64_t key, uint64_t weight)
{
    hp_exact_slot *s = exact_find(e, key);
    if (s->count != 0) {
        s->count = hp_sat_add(s->count, weight);
        return 0;
    }
    if (e->used >= e->max_used) {
        e->dropped = hp_sat_add(e->dropped, weight);
        return -1;
    }
    s->key = key;
    s->count = weight;
    e->used++;
    return 0;
}

int hp_exact_update(hp_exact *e, uint64_t key, uint64_t weight)
{
    if (weight == 0) return 0;
    e->total = hp_sat_add(e->total, weight);
    return exact_add(e, key, weight);
}

uint64_t hp_exact_count(const hp_exact *e, uint64_t key) { return exact_find(e, key)->count; }

int hp_exact_query(const hp_exact *e, uint64_t key, hp_estimate *out)
{
    uint64_t c = hp_exact_count(e, key);
    out->key = key;
    out->count = out->lower = c;
    out->upper = hp_sat_add(c, e->dropped);
    return c != 0;
}

static int exact_entry(const void *ctx, size_t i, hp_estimate *out)
{
    const hp_exact *e = ctx;
    const hp_exact_slot *s = &e->slots[i];
    if (s->count == 0) return 0;
    out->key = s->key;
    out->count = out->lower = s->count;
    out->upper = hp_sat_add(s->count, e->dropped);
    return 1;
}

size_t hp_exact_topk(const hp_exact *e, hp_estimate *out, size_t k)
{
    return hp_topk_select(e, e->nslots, exact_entry, out, k);
}

int hp_exact_merge(hp_exact *dst, const hp_exact *src)
{
    int rc = 0;
    if (dst == src) return -1;
    for (uint64_t i = 0; i < src->nslots; i++) {
        const hp_exact_slot *s = &src->slots[i];
        if (s->count && exact_add(dst, s->key, s->count) != 0) rc = -1;
    }
    dst->dropped = hp_sat_add(dst->dropped, src->dropped);
    dst->total = hp_sat_add(dst->total, src->total);
    return rc || src->dropped ? -1 : 0;
}

uint64_t hp_exact_total(const hp_exact *e) { return e->total; }
int hp_exact_full(const hp_exact *e) { return e->dropped != 0; }
uint64_t hp_exact_dropped(const hp_exact *e) { return e->dropped; }
size_t hp_exact_size(const hp_exact *e) { return (size_t)e->used; }
size_t hp_exact_capacity(const hp_exact *e) { return (size_t)e->max_used; }
size_t hp_exact_bytes_used(const hp_exact *e) { return hp_exact_bytes_for(e->nslots); }

/* ---- serialized form ----
 * u32 kind, u32 version, u64 nslots, u64 total, u64 dropped, u64 n, n x (u64 key, u64 count). */

#define EXACT_HEADER_BYTES (4 + 4 + 8 * 4)

size_t hp_exact_serialized_size(const hp_exact *e) { return EXACT_HEADER_BYTES + (size_t)e->used * 16; }

size_t hp_exact_serialize(const hp_exact *e, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_EXACT);
    hp_put_u32(&w, HP_EXACT_VERSION);
    hp_put_u64(&w, e->nslots);
    hp_put_u64(&w, e->total);
    hp_put_u64(&w, e->dropped);
    hp_put_u64(&w, e->used);
    /* Slot order from just after an empty slot: re-inserting in this order rebuilds the same
     * layout, so serialized bytes are canonical and probe lengths survive a round trip. */
    uint64_t start = 0;
    while (e->slots[start].count != 0) start++; /* exists: used <= 3/4 of nslots */
    for (uint64_t j = 1; j <= e->nslots && w.ok; j++) {
        const hp_exact_slot *s = &e->slots[(start + j) % e->nslots];
        if (s->count == 0) continue;
        hp_put_u64(&w, s->key);
        hp_put_u64(&w, s->count);
    }
    return w.ok ? w.len : 0;
}

/* Reads n entries into e; 0 if any is invalid or a duplicate. */
static int exact_read_entries(hp_exact *e, hp_rbuf *r, uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t key = hp_get_u64(r), count = hp_get_u64(r);
        if (!r->ok || count == 0) return 0;
        hp_exact_slot *s = exact_find(e, key);
        if (s->count != 0) return 0; /* duplicate */
        s->key = key;
        s->count = count;
        e->used++;
        sum = hp_sat_add(sum, count);
    }
    return hp_sat_add(sum, e->dropped) == e->total;
}

hp_exact *hp_exact_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (!buf) return NULL;
    uint32_t kind = hp_get_u32(&r), version = hp_get_u32(&r);
    uint64_t nslots = hp_get_u64(&r), total = hp_get_u64(&r), dropped = hp_get_u64(&r);
    uint64_t n = hp_get_u64(&r);
    if (!r.ok || kind != HP_SUMMARY_EXACT || version != HP_EXACT_VERSION) return NULL;
    if (nslots < EXACT_MIN_SLOTS || nslots > EXACT_MAX_SLOTS) return NULL;
    if (n > nslots / 4 * 3 || hp_rbuf_left(&r) != n * 16) return NULL;
    hp_exact *e = exact_place(mem, budget, nslots);
    if (!e) return NULL;
    e->total = total;
    e->dropped = dropped;
    return exact_read_entries(e, &r, n) ? e : NULL;
}

/* ---- vtable ---- */

static void *vt_init(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_exact_init(mem, budget); }
static void vt_update(void *s, uint64_t key, uint64_t w) { (void)hp_exact_update(s, key, w); }
static size_t vt_topk(const void *s, hp_estimate *out, size_t k) { return hp_exact_topk(s, out, k); }
static int vt_query(const void *s, uint64_t key, hp_estimate *out) { return hp_exact_query(s, key, out); }
static int vt_merge(void *dst, const void *src) { return hp_exact_merge(dst, src); }
static size_t vt_ssize(const void *s) { return hp_exact_serialized_size(s); }
static size_t vt_ser(const void *s, void *buf, size_t cap) { return hp_exact_serialize(s, buf, cap); }
static void *vt_deser(void *mem, size_t budget, const void *buf, size_t len)
{
    return hp_exact_deserialize(mem, budget, buf, len);
}
static size_t vt_bytes(const void *s) { return hp_exact_bytes_used(s); }
static uint64_t vt_total(const void *s) { return hp_exact_total(s); }

const hp_summary_vt hp_exact_vt = {
    "exact", HP_SUMMARY_EXACT, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_ssize, vt_ser, vt_deser, vt_bytes, vt_total,
};

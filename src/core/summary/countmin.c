/* countmin.c — Count-Min with conservative update + indexed top-k min-heap. See countmin.h.
 *
 * Memory layout of a Count-Min summary inside the caller's buffer:
 *   hp_countmin header | uint32_t counters[HP_CM_ROWS][width] | hp_topheap (entries, index)
 * Serialized form (little-endian; version 2): kind u32, version u32, seed u64, width u32,
 * heap cap u32, total u64, counters (rows * width u32), heap size u32, then (key u64, count u64)
 * per entry.
 */
#include "core/summary/countmin.h"
#include <string.h>
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/base/rng.h"

/* ================= hp_topheap ================= */

static hp_topentry *heap_e(const hp_topheap *h) { return (hp_topentry *)(void *)((uint8_t *)(uintptr_t)h + sizeof *h); }
static uint32_t *heap_idx(const hp_topheap *h) { return (uint32_t *)(void *)(heap_e(h) + h->cap); }

static uint32_t idx_size_for(uint32_t cap)
{
    uint32_t s = 4;
    while (s < 2u * cap) s <<= 1;
    return s;
}

size_t hp_topheap_bytes(uint32_t cap)
{
    return sizeof(hp_topheap) + (size_t)cap * sizeof(hp_topentry) + (size_t)idx_size_for(cap) * sizeof(uint32_t);
}

uint32_t hp_topheap_cap_for(size_t bytes)
{
    uint32_t lo = 0, hi = 1u << 24; /* hp_topheap_bytes grows with cap: binary search */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (hp_topheap_bytes(mid) <= bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

hp_topheap *hp_topheap_init(void *mem, uint32_t cap)
{
    hp_topheap *h = (hp_topheap *)mem;
    h->cap = cap;
    h->idx_mask = idx_size_for(cap) - 1;
    h->reserved = 0;
    hp_topheap_clear(h);
    return h;
}

void hp_topheap_clear(hp_topheap *h)
{
    h->n = 0;
    memset(heap_idx(h), 0, (size_t)(h->idx_mask + 1) * sizeof(uint32_t));
}

const hp_topentry *hp_topheap_entries(const hp_topheap *h) { return heap_e(h); }

/* Home slot: Fibonacci hashing (the top bits of key * 2^64/phi depend on every key bit; the
 * index size is a power of two), one multiply: a sift re-probes every entry it moves. */
static uint32_t idx_home(const hp_topheap *h, uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(h->idx_mask + 1)));
}

/* Index slot holding key, or the empty slot where it would go. */
static uint32_t idx_probe(const hp_topheap *h, uint64_t key)
{
    const uint32_t *idx = heap_idx(h);
    const hp_topentry *e = heap_e(h);
    uint32_t s = idx_home(h, key);
    while (idx[s] && e[idx[s] - 1].key != key) s = (s + 1) & h->idx_mask;
    return s;
}

long hp_topheap_find(const hp_topheap *h, uint64_t key)
{
    uint32_t v = heap_idx(h)[idx_probe(h, key)];
    return v ? (long)v - 1 : -1;
}

/* Backward-shift deletion of index slot s (linear probing stays tombstone-free). */
static void idx_delete(hp_topheap *h, uint32_t s)
{
    uint32_t *idx = heap_idx(h);
    const hp_topentry *e = heap_e(h);
    uint32_t hole = s, j = s;
    for (;;) {
        j = (j + 1) & h->idx_mask;
        if (!idx[j]) break;
        uint32_t home = idx_home(h, e[idx[j] - 1].key);
        /* move j into the hole unless its home lies cyclically in (hole, j] */
        int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) { idx[hole] = idx[j]; hole = j; }
    }
    idx[hole] = 0;
}

/* Place entry v at heap position pos and point its index slot there. */
static void heap_place(hp_topheap *h, uint32_t pos, hp_topentry v, uint32_t slot)
{
    heap_e(h)[pos] = v;
    heap_idx(h)[slot] = pos + 1;
}

/* Sifts the entry at pos down; vslot is its index slot. */
static void sift_down_slot(hp_topheap *h, uint32_t pos, uint32_t vslot)
{
    hp_topentry *e = heap_e(h);
    hp_topentry v = e[pos];
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && e[c + 1].count < e[c].count) c++;
        if (e[c].count >= v.count) break;
        heap_place(h, pos, e[c], idx_probe(h, e[c].key));
        pos = c;
    }
    heap_place(h, pos, v, vslot);
}

static void sift_down(hp_topheap *h, uint32_t pos) { sift_down_slot(h, pos, idx_probe(h, heap_e(h)[pos].key)); }

static void sift_up(hp_topheap *h, uint32_t pos)
{
    hp_topentry *e = heap_e(h);
    hp_topentry v = e[pos];
    uint32_t vslot = idx_probe(h, v.key);
    while (pos > 0) {
        uint32_t p = (pos - 1) / 2;
        if (e[p].count <= v.count) break;
        heap_place(h, pos, e[p], idx_probe(h, e[p].key));
        pos = p;
    }
    heap_place(h, pos, v, vslot);
}

uint64_t hp_topheap_floor(const hp_topheap *h)
{
    return h->n < h->cap || h->cap == 0 ? 0 : heap_e(h)[0].count;
}

int hp_topheap_push(hp_topheap *h, uint64_t key, uint64_t count)
{
    if (h->n >= h->cap) return -1;
    uint32_t s = idx_probe(h, key);
    if (heap_idx(h)[s]) return -1;
    hp_topentry v = {key, count};
    heap_place(h, h->n, v, s);
    h->n++;
    sift_up(h, h->n - 1);
    return 0;
}

void hp_topheap_offer(hp_topheap *h, uint64_t key, uint64_t count)
{
    if (h->cap == 0) return;
    uint32_t s = idx_probe(h, key);
    uint32_t v = heap_idx(h)[s];
    hp_topentry *e = heap_e(h);
    if (v) {
        if (count > e[v - 1].count) { e[v - 1].count = count; sift_down_slot(h, v - 1, s); }
        return;
    }
    if (h->n < h->cap) { hp_topheap_push(h, key, count); return; }
    if (count <= e[0].count) return;
    idx_delete(h, idx_probe(h, e[0].key));
    hp_topentry nv = {key, count};
    uint32_t ns = idx_probe(h, key);
    heap_place(h, 0, nv, ns);
    sift_down_slot(h, 0, ns);
}

void hp_topheap_recount(hp_topheap *h, uint64_t (*reestimate)(const void *, uint64_t), const void *ctx)
{
    hp_topentry *e = heap_e(h);
    for (uint32_t i = 0; i < h->n; i++) e[i].count = reestimate(ctx, e[i].key);
    for (uint32_t i = h->n / 2; i-- > 0;) sift_down(h, i);
}

static int entry_before(hp_topentry a, hp_topentry b)
{
    return a.count > b.count || (a.count == b.count && a.key < b.key);
}

size_t hp_topheap_sorted(const hp_topheap *h, hp_topentry *out, size_t k)
{
    size_t m = 0;
    const hp_topentry *e = heap_e(h);
    for (uint32_t i = 0; i < h->n; i++) {
        if (m == k && (k == 0 || !entry_before(e[i], out[m - 1]))) continue;
        size_t j = m < k ? m++ : m - 1;
        while (j > 0 && entry_before(e[i], out[j - 1])) { out[j] = out[j - 1]; j--; }
        out[j] = e[i];
    }
    return m;
}

size_t hp_topheap_topk(const hp_topheap *h, hp_topheap_fill_fn fill, const void *ctx, hp_estimate *out, size_t k)
{
    const hp_topentry *e = heap_e(h);
    size_t m = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        hp_estimate v;
        fill(ctx, e[i].key, e[i].count, &v);
        if (m == k && (k == 0 || v.count <= out[m - 1].count)) continue;
        size_t j = m < k ? m++ : m - 1;
        while (j > 0 && (v.count > out[j - 1].count || (v.count == out[j - 1].count && v.key < out[j - 1].key))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = v;
    }
    return m;
}

void hp_topheap_write(const hp_topheap *h, hp_wbuf *w)
{
    const hp_topentry *e = heap_e(h);
    hp_put_u32(w, h->n);
    for (uint32_t i = 0; i < h->n; i++) { hp_put_u64(w, e[i].key); hp_put_u64(w, e[i].count); }
}

int hp_topheap_read(hp_topheap *h, hp_rbuf *r, int (*entry_ok)(const void *ctx, uint64_t key, uint64_t count),
                    const void *ctx)
{
    uint32_t n = hp_get_u32(r);
    if (!r->ok || n > h->cap || hp_rbuf_left(r) != (size_t)n * 16) return 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t key = hp_get_u64(r), count = hp_get_u64(r);
        if (!entry_ok(ctx, key, count) || hp_topheap_push(h, key, count) != 0) return 0;
    }
    return r->ok;
}

/* ================= Count-Min, conservative update ================= */

#define CM_VERSION 2u /* 2: one mixed hash, one multiply per row (1 hashed each row apart) */

struct hp_countmin {
    uint32_t width, heap_cap;
    uint64_t seed, total;
    uint64_t row_seed[HP_CM_ROWS]; /* [0]: the key hash's seed; [1..]: odd row multipliers */
    /* followed by uint32_t counters[HP_CM_ROWS * width], then the hp_topheap */
};

static uint32_t *cm_counters(const hp_countmin *cm) { return (uint32_t *)(void *)((uint8_t *)(uintptr_t)cm + sizeof *cm); }
static size_t cm_counter_bytes(uint32_t width) { return (size_t)HP_CM_ROWS * width * sizeof(uint32_t); }
static hp_topheap *cm_heap(const hp_countmin *cm)
{
    size_t off = sizeof *cm + cm_counter_bytes(cm->width);
    off = (off + 7) & ~(size_t)7;
    return (hp_topheap *)(void *)((uint8_t *)(uintptr_t)cm + off);
}
static size_t cm_bytes(uint32_t width, uint32_t heap_cap)
{
    size_t off = (sizeof(hp_countmin) + cm_counter_bytes(width) + 7) & ~(size_t)7;
    return off + hp_topheap_bytes(heap_cap);
}

uint32_t hp_countmin_width(const hp_countmin *cm) { return cm->width; }
uint32_t hp_countmin_heap_cap(const hp_countmin *cm) { return cm->heap_cap; }
const hp_topheap *hp_countmin_heap(const hp_countmin *cm) { return cm_heap(cm); }

static hp_countmin *cm_place(void *mem, size_t budget, uint64_t seed, uint32_t width, uint32_t heap_cap)
{
    if (!mem || width == 0 || cm_bytes(width, heap_cap) > budget) return NULL;
    hp_countmin *cm = (hp_countmin *)mem;
    cm->width = width;
    cm->heap_cap = heap_cap;
    cm->seed = seed;
    cm->total = 0;
    uint64_t sm = seed;
    for (int r = 0; r < HP_CM_ROWS; r++) cm->row_seed[r] = hp_splitmix64(&sm) | 1u;
    memset(cm_counters(cm), 0, cm_counter_bytes(width));
    hp_topheap_init(cm_heap(cm), heap_cap);
    return cm;
}

/* Heap share first, then as many counter columns as the rest allows. */
static void cm_shape(size_t budget, uint32_t *width, uint32_t *heap_cap)
{
    *heap_cap = hp_topheap_cap_for(budget / HP_CM_HEAP_SHARE);
    size_t rest = budget > sizeof(hp_countmin) + hp_topheap_bytes(*heap_cap) + 8
                      ? budget - sizeof(hp_countmin) - hp_topheap_bytes(*heap_cap) - 8 : 0;
    size_t w = rest / (HP_CM_ROWS * sizeof(uint32_t));
    *width = w > (1u << 28) ? (1u << 28) : (uint32_t)w;
}

hp_countmin *hp_countmin_init(void *mem, size_t budget, uint64_t seed)
{
    uint32_t width, heap_cap;
    cm_shape(budget, &width, &heap_cap);
    if (heap_cap == 0) return NULL;
    return cm_place(mem, budget, seed, width, heap_cap);
}

/* Row r's column: the high bits of h * a_r (multiply-shift on the mixed key h, a_r a seeded odd
 * multiplier, a_0 = 1), scaled to the width by a multiply-high. One hp_mix64 per key, then one
 * multiply per row (the rows used to cost one hp_mix64 each, and the heap offer another). */
static void cm_slots(const hp_countmin *cm, uint64_t key, uint32_t slot[HP_CM_ROWS])
{
    uint64_t h = hp_mix64(key ^ cm->row_seed[0]);
    slot[0] = hp_reduce(h, cm->width);
    for (int r = 1; r < HP_CM_ROWS; r++)
        slot[r] = (uint32_t)r * cm->width + hp_reduce(h * cm->row_seed[r], cm->width);
}

static uint32_t cm_min(const uint32_t *c, const uint32_t slot[HP_CM_ROWS])
{
    uint32_t m = c[slot[0]];
    for (int r = 1; r < HP_CM_ROWS; r++) if (c[slot[r]] < m) m = c[slot[r]];
    return m;
}

uint64_t hp_countmin_estimate(const hp_countmin *cm, uint64_t key)
{
    uint32_t slot[HP_CM_ROWS];
    cm_slots(cm, key, slot);
    return cm_min(cm_counters(cm), slot);
}

static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

_Static_assert(HP_CM_ROWS == 4, "hp_countmin_update is written out for 4 rows");

void hp_countmin_update(hp_countmin *cm, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    uint32_t w = cm->width, *c = cm_counters(cm);
    uint64_t h = hp_mix64(key ^ cm->row_seed[0]);
    uint32_t *c0 = c + hp_reduce(h, w);
    uint32_t *c1 = c + w + hp_reduce(h * cm->row_seed[1], w);
    uint32_t *c2 = c + 2 * (size_t)w + hp_reduce(h * cm->row_seed[2], w);
    uint32_t *c3 = c + 3 * (size_t)w + hp_reduce(h * cm->row_seed[3], w);
    uint32_t v0 = *c0, v1 = *c1, v2 = *c2, v3 = *c3;
    uint64_t raised = (uint64_t)min_u32(min_u32(v0, v1), min_u32(v2, v3)) + weight;
    uint32_t target = raised > UINT32_MAX ? UINT32_MAX : (uint32_t)raised;
    /* conservative update, without branches: a counter already above target keeps its value */
    *c0 = max_u32(v0, target);
    *c1 = max_u32(v1, target);
    *c2 = max_u32(v2, target);
    *c3 = max_u32(v3, target);
    cm->total += weight;
    /* A heap count is the key's estimate at its last offer, so it never exceeds its estimate now:
     * with a full heap and target <= the minimum, the offer would change nothing (held: count is
     * already >= min >= target; not held: not above the minimum). Skip it: most tail updates. */
    hp_topheap *hp = cm_heap(cm);
    if (hp->n == hp->cap && target <= hp_topheap_entries(hp)[0].count) return;
    hp_topheap_offer(hp, key, target);
}

static uint64_t cm_reestimate(const void *ctx, uint64_t key) { return hp_countmin_estimate((const hp_countmin *)ctx, key); }

int hp_countmin_merge(hp_countmin *dst, const hp_countmin *src)
{
    if (dst->width != src->width || dst->heap_cap != src->heap_cap || dst->seed != src->seed) return -1;
    uint32_t *d = cm_counters(dst);
    const uint32_t *s = cm_counters(src);
    for (size_t i = 0; i < (size_t)HP_CM_ROWS * dst->width; i++) {
        uint64_t v = (uint64_t)d[i] + s[i];
        d[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    }
    dst->total += src->total;
    hp_topheap_recount(cm_heap(dst), cm_reestimate, dst);
    const hp_topheap *sh = cm_heap(src);
    const hp_topentry *se = hp_topheap_entries(sh);
    for (uint32_t i = 0; i < sh->n; i++) hp_topheap_offer(cm_heap(dst), se[i].key, hp_countmin_estimate(dst, se[i].key));
    return 0;
}

/* ---- vtable glue ---- */

static void cm_fill(const hp_countmin *cm, uint64_t key, uint64_t est, hp_estimate *out)
{
    out->key = key;
    out->count = est;
    out->lower = 0;
    out->upper = est >= UINT32_MAX ? UINT64_MAX : est;
}

static void *vt_init(void *mem, size_t budget, uint64_t seed) { return hp_countmin_init(mem, budget, seed); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_countmin_update((hp_countmin *)s, key, w); }

/* ordered by current estimate, not the heap count (heap counts can lag after merges) */
static void cm_fill_current(const void *ctx, uint64_t key, uint64_t count, hp_estimate *out)
{
    const hp_countmin *cm = (const hp_countmin *)ctx;
    (void)count;
    cm_fill(cm, key, hp_countmin_estimate(cm, key), out);
}

static size_t vt_topk(const void *s, hp_estimate *out, size_t k)
{
    const hp_countmin *cm = (const hp_countmin *)s;
    return hp_topheap_topk(cm_heap(cm), cm_fill_current, cm, out, k);
}

static int vt_query(const void *s, uint64_t key, hp_estimate *out)
{
    const hp_countmin *cm = (const hp_countmin *)s;
    cm_fill(cm, key, hp_countmin_estimate(cm, key), out);
    return hp_topheap_find(cm_heap(cm), key) >= 0;
}

static int vt_merge(void *d, const void *s) { return hp_countmin_merge((hp_countmin *)d, (const hp_countmin *)s); }

static size_t vt_serialized_size(const void *s)
{
    const hp_countmin *cm = (const hp_countmin *)s;
    return 4 + 4 + 8 + 4 + 4 + 8 + cm_counter_bytes(cm->width) + 4 + (size_t)cm_heap(cm)->n * 16;
}

static size_t vt_serialize(const void *s, void *buf, size_t cap)
{
    const hp_countmin *cm = (const hp_countmin *)s;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_COUNTMIN_CU);
    hp_put_u32(&w, CM_VERSION);
    hp_put_u64(&w, cm->seed);
    hp_put_u32(&w, cm->width);
    hp_put_u32(&w, cm->heap_cap);
    hp_put_u64(&w, cm->total);
    const uint32_t *c = cm_counters(cm);
    for (size_t i = 0; i < (size_t)HP_CM_ROWS * cm->width; i++) hp_put_u32(&w, c[i]);
    hp_topheap_write(cm_heap(cm), &w);
    return w.ok ? w.len : 0;
}

/* A heap count above the key's estimate cannot have come from this sketch. */
static int cm_entry_ok(const void *ctx, uint64_t key, uint64_t count)
{
    return count <= hp_countmin_estimate((const hp_countmin *)ctx, key);
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_SUMMARY_COUNTMIN_CU || hp_get_u32(&r) != CM_VERSION) return NULL;
    uint64_t seed = hp_get_u64(&r);
    uint32_t width = hp_get_u32(&r), heap_cap = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r);
    if (!r.ok || width == 0 || width > (1u << 28) || heap_cap == 0 || heap_cap > (1u << 24)) return NULL;
    if (hp_rbuf_left(&r) < cm_counter_bytes(width) + 4) return NULL;
    hp_countmin *cm = cm_place(mem, budget, seed, width, heap_cap);
    if (!cm) return NULL;
    cm->total = total;
    uint32_t *c = cm_counters(cm);
    for (size_t i = 0; i < (size_t)HP_CM_ROWS * width; i++) c[i] = hp_get_u32(&r);
    return hp_topheap_read(cm_heap(cm), &r, cm_entry_ok, cm) ? cm : NULL;
}

static size_t vt_bytes_used(const void *s)
{
    const hp_countmin *cm = (const hp_countmin *)s;
    return cm_bytes(cm->width, cm->heap_cap);
}

static uint64_t vt_total(const void *s) { return ((const hp_countmin *)s)->total; }

const hp_summary_vt hp_countmin_cu_vt = {
    "countmin", HP_SUMMARY_COUNTMIN_CU, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize, vt_bytes_used, vt_total,
};

/* spacesaving.c — Space-Saving on a count-sorted counter array (see spacesaving.h).
 *
 * Layout in the caller's memory (28 bytes per counter + 4 index slots per counter):
 *   struct hp_spacesaving | u64 keys[m] | u64 counts[m] | u64 errs[m] | u32 back[m] | idx[4m]
 * Position p in 0..m-1 is one counter (keys[p], counts[p], errs[p]). idx is an open-addressing key
 * index (4m slots, load <= 1/4; home = Fibonacci hash scaled by a multiply-high, linear probing,
 * backward-shift deletion) holding position + 1 (0 = empty), in u16 slots while m <= 65535, else
 * u32 (`narrow`); back[p] is the slot that points at position p. The low load matters: nearly
 * every update of a flat tail is a miss, i.e. an unsuccessful probe plus a delete shift.
 * Invariants between updates:
 *   - counts[0] <= counts[1] <= ... <= counts[m-1]  (the array is sorted by count);
 *   - the m - n free counters have count 0 and sit at positions [0, m-n); the n counters in use
 *     have count >= 1 and sit at [m-n, m); so counts[0] is the floor: 0 while any counter is
 *     free, the min count once all are used;
 *   - for every counter in use: idx[back[p]] == p + 1, its key is reachable from its home slot,
 *     err <= count; keys distinct; free counters have no slot.
 * This is the stream-summary of the paper with each bucket a run of equal counts in the array
 * (same O(1) weight-1 update, no bucket or link records): raising a counter by 1 swaps it with the
 * last counter of its run, then adds 1, which keeps the array sorted. A weight-w raise swaps it
 * with the last counter of each run it passes (one swap per distinct count below count + w, as the
 * bucket walk). A new key takes the last counter of the first run (a free counter, or a min
 * counter when all are used: err = min), then is raised. Run ends are found by galloping.
 */
#include "core/summary/spacesaving.h"
#include "core/base/bytes.h"
#include "core/summary/exact.h"
#include "core/base/hash.h" /* hp_sat_add, hp_topk_select */
#include <string.h>

struct hp_spacesaving {
    uint32_t m, n, nslots, first_end; /* first_end: last position of the first run */
    uint32_t narrow, pad;             /* narrow: index slots are u16 (m <= SS_NARROW_MAX_M) */
    uint64_t total;
};

#define SS_SLOTS_PER_COUNTER 4u
#define SS_NARROW_MAX_M 65535u

static uint64_t *ss_keys(const hp_spacesaving *s) { return (uint64_t *)(uintptr_t)(s + 1); }
static uint64_t *ss_counts(const hp_spacesaving *s) { return ss_keys(s) + s->m; }
static uint64_t *ss_errs(const hp_spacesaving *s) { return ss_counts(s) + s->m; }
static uint32_t *ss_back(const hp_spacesaving *s) { return (uint32_t *)(ss_errs(s) + s->m); }
static void *ss_idx(const hp_spacesaving *s) { return ss_back(s) + s->m; }

/* Index slot i: position + 1 of the counter it points at, 0 if empty. */
static inline uint32_t idx_get(const hp_spacesaving *s, uint32_t i)
{
    return s->narrow ? ((const uint16_t *)ss_idx(s))[i] : ((const uint32_t *)ss_idx(s))[i];
}

static inline void idx_set(const hp_spacesaving *s, uint32_t i, uint32_t v)
{
    if (s->narrow) ((uint16_t *)ss_idx(s))[i] = (uint16_t)v;
    else ((uint32_t *)ss_idx(s))[i] = v;
}

static size_t slot_bytes(uint32_t m) { return m <= SS_NARROW_MAX_M ? 2 : 4; }

size_t hp_spacesaving_bytes_for(uint32_t m)
{
    return sizeof(hp_spacesaving) + (size_t)m * (3 * 8 + 4) + (size_t)m * SS_SLOTS_PER_COUNTER * slot_bytes(m);
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

/* ---- key index ---- */

/* Home slot: Fibonacci hashing (the high bits of key * 2^64/phi depend on every key bit), scaled
 * to the slot count by a multiply-high so the index may have any size. One multiply instead of
 * hp_mix64_xmx's two: the delete shift rehashes every key it passes. */
static uint32_t idx_home(const hp_spacesaving *s, uint64_t key)
{
    return (uint32_t)(((__uint128_t)(key * 0x9e3779b97f4a7c15ull) * s->nslots) >> 64);
}

/* Slot holding key, or the empty slot where it would go. */
static uint32_t idx_probe(const hp_spacesaving *s, uint64_t key)
{
    const uint64_t *keys = ss_keys(s);
    uint32_t i = idx_home(s, key), v;
    while ((v = idx_get(s, i)) != 0 && keys[v - 1] != key)
        if (++i == s->nslots) i = 0;
    return i;
}

static uint32_t find_counter(const hp_spacesaving *s, uint64_t key)
{
    uint32_t v = idx_get(s, idx_probe(s, key));
    return v ? v - 1 : UINT32_MAX;
}

/* Empties slot i and shifts later members of its probe run back (no tombstones). */
static void idx_delete(hp_spacesaving *s, uint32_t i)
{
    uint32_t *back = ss_back(s);
    const uint64_t *keys = ss_keys(s);
    uint32_t j = i, v;
    for (;;) {
        if (++j == s->nslots) j = 0;
        if ((v = idx_get(s, j)) == 0) break;
        uint32_t home = idx_home(s, keys[v - 1]);
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        idx_set(s, i, v);
        back[v - 1] = i;
        i = j;
    }
    idx_set(s, i, 0);
}

/* ---- the sorted array ---- */

/* Last position of the run of count c that contains position p (counts[p] == c): galloping. */
static uint32_t run_end(const hp_spacesaving *s, uint32_t p, uint64_t c)
{
    const uint64_t *counts = ss_counts(s);
    uint32_t lo = p, step = 1; /* counts[lo] == c */
    while (lo + step < s->m && counts[lo + step] == c) {
        lo += step;
        step *= 2;
    }
    uint32_t hi = lo + step < s->m ? lo + step : s->m; /* counts[hi] > c or hi == m */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (counts[mid] == c) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Swaps the counters at positions a and b, slots included. */
static void swap_pos(hp_spacesaving *s, uint32_t a, uint32_t b)
{
    uint64_t *keys = ss_keys(s), *counts = ss_counts(s), *errs = ss_errs(s);
    uint32_t *back = ss_back(s);
    uint64_t k = keys[a], c = counts[a], e = errs[a];
    uint32_t sl = back[a];
    keys[a] = keys[b]; counts[a] = counts[b]; errs[a] = errs[b]; back[a] = back[b];
    keys[b] = k; counts[b] = c; errs[b] = e; back[b] = sl;
    idx_set(s, back[a], a + 1);
    idx_set(s, back[b], b + 1);
}

/* Raises the counter at p to count nc >= its count, keeping the array sorted; returns its new
 * position. Its count is read as "in flight" while it moves: the runs it passes are intact.
 * A counter of the first run swaps with first_end (no search); when it was the run's only
 * member, the next run becomes the first and its end is searched once. */
static uint32_t raise_to(hp_spacesaving *s, uint32_t p, uint64_t nc)
{
    uint64_t *counts = ss_counts(s);
    int from_first = p <= s->first_end;
    if (from_first) {
        uint32_t e = s->first_end;
        if (e != p) swap_pos(s, p, e);
        p = e;
    }
    while (p + 1 < s->m && counts[p + 1] < nc) {
        uint32_t e = run_end(s, p + 1, counts[p + 1]);
        swap_pos(s, p, e);
        p = e;
    }
    counts[p] = nc;
    if (from_first) s->first_end = s->first_end > 0 ? s->first_end - 1 : run_end(s, 0, counts[0]);
    return p;
}

/* ---- init and update ---- */

static void *align8(void *mem, size_t *budget)
{
    uintptr_t p = (uintptr_t)mem, a = (p + 7u) & ~(uintptr_t)7u;
    if (!mem || *budget < a - p) return NULL;
    *budget -= a - p;
    return (void *)a;
}

static void clear_counters(hp_spacesaving *s)
{
    memset(ss_keys(s), 0, (size_t)s->m * 3 * 8);
    memset(ss_back(s), 0, (size_t)s->m * 4);
    memset(ss_idx(s), 0, (size_t)s->nslots * slot_bytes(s->m));
    s->n = 0;
    s->first_end = s->m - 1;
}

hp_spacesaving *hp_spacesaving_init_m(void *mem, size_t budget, uint32_t m)
{
    hp_spacesaving *s = align8(mem, &budget);
    if (!s || m < HP_SPACESAVING_MIN_M || m > HP_SPACESAVING_MAX_M) return NULL;
    if (hp_spacesaving_bytes_for(m) > budget) return NULL;
    memset(s, 0, sizeof *s);
    s->m = m;
    s->nslots = SS_SLOTS_PER_COUNTER * m;
    s->narrow = slot_bytes(m) == 2;
    clear_counters(s);
    return s;
}

hp_spacesaving *hp_spacesaving_init(void *mem, size_t budget)
{
    size_t b = budget;
    if (!align8(mem, &b)) return NULL;
    return hp_spacesaving_init_m(mem, budget, m_for_budget(b));
}

/* A new key whose index slot (empty) is `slot`, with count > floor and err: takes the last
 * counter of the first run (a free one while any is free, else a min counter, whose key is
 * forgotten) and raises it to count. */
static void take_counter(hp_spacesaving *s, uint32_t slot, uint64_t key, uint64_t count, uint64_t err)
{
    uint64_t *keys = ss_keys(s), *counts = ss_counts(s);
    uint32_t *back = ss_back(s);
    uint64_t floor = counts[0];
    uint32_t p = s->first_end, old = back[p];
    keys[p] = key;
    ss_errs(s)[p] = err;
    idx_set(s, slot, p + 1); /* the new key's slot first (4m slots leave room for both), */
    back[p] = slot;
    if (floor != 0) idx_delete(s, old); /* then the evicted key's: the shift sees the new key */
    else s->n++;
    if (p + 1 < s->m && counts[p + 1] < count) {
        raise_to(s, p, count);
        return;
    }
    counts[p] = count; /* stays put (always for weight 1: the next run's count is >= floor + 1) */
    s->first_end = p > 0 ? p - 1 : run_end(s, 0, counts[0]);
}

void hp_spacesaving_update(hp_spacesaving *s, uint64_t key, uint64_t weight)
{
    if (weight == 0) return;
    s->total = hp_sat_add(s->total, weight);
    uint32_t slot = idx_probe(s, key), v = idx_get(s, slot);
    uint64_t *counts = ss_counts(s);
    if (v) {
        uint32_t p = v - 1;
        uint64_t nc = hp_sat_add(counts[p], weight);
        if (p > s->first_end && (p + 1 == s->m || counts[p + 1] >= nc)) counts[p] = nc; /* hot key: stays */
        else raise_to(s, p, nc);
    } else {
        uint64_t floor = counts[0];
        take_counter(s, slot, key, hp_sat_add(floor, weight), floor);
    }
}

/* ---- queries ---- */

uint64_t hp_spacesaving_floor(const hp_spacesaving *s) { return ss_counts(s)[0]; }

static void counter_estimate(const hp_spacesaving *s, uint32_t p, hp_estimate *out)
{
    out->key = ss_keys(s)[p];
    out->count = out->upper = ss_counts(s)[p];
    out->lower = ss_counts(s)[p] - ss_errs(s)[p];
}

int hp_spacesaving_query(const hp_spacesaving *s, uint64_t key, hp_estimate *out)
{
    uint32_t p = find_counter(s, key);
    if (p != UINT32_MAX) {
        counter_estimate(s, p, out);
        return 1;
    }
    out->key = key;
    out->count = out->lower = 0;
    out->upper = hp_spacesaving_floor(s);
    return 0;
}

static int ss_entry(const void *ctx, size_t i, hp_estimate *out)
{
    const hp_spacesaving *s = ctx;
    counter_estimate(s, (uint32_t)(s->m - s->n + i), out);
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

/* ---- rebuild (after merge and deserialize): sort by (count, key), reindex ---- */

/* Total order (count, then key), so a rebuild is the same whatever order counters came in. */
static int pos_after(const hp_spacesaving *s, uint32_t a, uint32_t b)
{
    const uint64_t *keys = ss_keys(s), *counts = ss_counts(s);
    return counts[a] != counts[b] ? counts[a] > counts[b] : keys[a] > keys[b];
}

static void swap_raw(hp_spacesaving *s, uint32_t a, uint32_t b)
{
    uint64_t *keys = ss_keys(s), *counts = ss_counts(s), *errs = ss_errs(s);
    uint64_t k = keys[a], c = counts[a], e = errs[a];
    keys[a] = keys[b]; counts[a] = counts[b]; errs[a] = errs[b];
    keys[b] = k; counts[b] = c; errs[b] = e;
}

static void sift_down_max(hp_spacesaving *s, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && pos_after(s, l, big)) big = l;
        if (r < n && pos_after(s, r, big)) big = r;
        if (big == i) return;
        swap_raw(s, i, big);
        i = big;
    }
}

/* Heap sort of all m positions (free ones have count 0 and key 0, so they stay in front). */
static void rebuild(hp_spacesaving *s)
{
    uint32_t m = s->m;
    for (uint32_t i = m / 2; i-- > 0;) sift_down_max(s, m, i);
    for (uint32_t end = m; end > 1; end--) {
        swap_raw(s, 0, end - 1);
        sift_down_max(s, end - 1, 0);
    }
    memset(ss_idx(s), 0, (size_t)s->nslots * slot_bytes(m));
    memset(ss_back(s), 0, (size_t)m * 4);
    for (uint32_t p = m - s->n; p < m; p++) {
        uint32_t slot = idx_probe(s, ss_keys(s)[p]);
        idx_set(s, slot, p + 1);
        ss_back(s)[p] = slot;
    }
    s->first_end = run_end(s, 0, ss_counts(s)[0]);
}

/* ---- merge ---- */

/* Adds src's view of every dst key (its counter, or its floor) to dst's counters. */
static void merge_held(hp_spacesaving *dst, const hp_spacesaving *src, uint64_t src_floor)
{
    uint64_t *counts = ss_counts(dst), *errs = ss_errs(dst);
    for (uint32_t p = dst->m - dst->n; p < dst->m; p++) {
        uint32_t o = find_counter(src, ss_keys(dst)[p]);
        uint64_t add = o != UINT32_MAX ? ss_counts(src)[o] : src_floor;
        uint64_t add_err = o != UINT32_MAX ? ss_errs(src)[o] : src_floor;
        counts[p] = hp_sat_add(counts[p], add);
        errs[p] = hp_sat_add(errs[p], add_err);
    }
}

/* Offers every src-only key, with dst's old floor added, to the m largest. */
static void merge_new(hp_spacesaving *dst, const hp_spacesaving *src, uint64_t dst_floor)
{
    for (uint32_t p = src->m - src->n; p < src->m; p++) {
        uint64_t key = ss_keys(src)[p];
        uint32_t slot = idx_probe(dst, key);
        if (idx_get(dst, slot)) continue;
        uint64_t count = hp_sat_add(ss_counts(src)[p], dst_floor), err = hp_sat_add(ss_errs(src)[p], dst_floor);
        if (count <= hp_spacesaving_floor(dst)) continue; /* full, and not above the min */
        take_counter(dst, slot, key, count, err);
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

int hp_spacesaving_check(const hp_spacesaving *s)
{
    const uint64_t *keys = ss_keys(s), *counts = ss_counts(s), *errs = ss_errs(s);
    const uint32_t *back = ss_back(s);
    if (s->n > s->m || s->nslots != SS_SLOTS_PER_COUNTER * s->m || s->first_end >= s->m) return 0;
    if (s->narrow != (slot_bytes(s->m) == 2)) return 0;
    if (counts[s->first_end] != counts[0] || (s->first_end + 1 < s->m && counts[s->first_end + 1] == counts[0]))
        return 0;
    uint32_t first = s->m - s->n, slots_used = 0;
    for (uint32_t p = 0; p < s->m; p++) {
        if (p > 0 && counts[p - 1] > counts[p]) return 0;
        if ((counts[p] == 0) != (p < first)) return 0;
        if (p < first) continue;
        if (errs[p] > counts[p] || back[p] >= s->nslots || idx_get(s, back[p]) != p + 1) return 0;
        if (find_counter(s, keys[p]) != p) return 0;
    }
    for (uint32_t i = 0; i < s->nslots; i++) {
        uint32_t v = idx_get(s, i);
        if (!v) continue;
        if (v - 1 < first || v > s->m || back[v - 1] != i) return 0;
        slots_used++;
    }
    return slots_used == s->n;
}

/* ---- serialized form ----
 * u32 kind, u32 version, u32 m, u32 0, u64 total, u64 n, n x (u64 key, u64 count, u64 err). */

#define SS_HEADER_BYTES (4 * 4 + 8 * 2)

size_t hp_spacesaving_serialized_size(const hp_spacesaving *s) { return SS_HEADER_BYTES + (size_t)s->n * 24; }

size_t hp_spacesaving_serialize(const hp_spacesaving *s, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_SPACESAVING);
    hp_put_u32(&w, HP_SPACESAVING_VERSION);
    hp_put_u32(&w, s->m);
    hp_put_u32(&w, 0);
    hp_put_u64(&w, s->total);
    hp_put_u64(&w, s->n);
    for (uint32_t p = s->m - s->n; p < s->m; p++) {
        hp_put_u64(&w, ss_keys(s)[p]);
        hp_put_u64(&w, ss_counts(s)[p]);
        hp_put_u64(&w, ss_errs(s)[p]);
    }
    return w.ok ? w.len : 0;
}

/* Reads n counters into positions [m-n, m) (rebuild() sorts them), rejecting duplicates. */
static int read_counters(hp_spacesaving *s, hp_rbuf *r, uint64_t n)
{
    for (uint64_t j = 0; j < n; j++) {
        uint64_t key = hp_get_u64(r), count = hp_get_u64(r), err = hp_get_u64(r);
        if (!r->ok || count == 0 || err > count) return 0;
        uint32_t slot = idx_probe(s, key), p = s->m - 1 - (uint32_t)j;
        if (idx_get(s, slot)) return 0; /* duplicate */
        ss_keys(s)[p] = key;
        ss_counts(s)[p] = count;
        ss_errs(s)[p] = err;
        idx_set(s, slot, p + 1);
        s->n++;
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

/* tnv.c — TNV table with LFU replacement and periodic lower-half clearing. See tnv.h.
 *
 * Layout: hp_tnv header | hp_tnv_entry e[N] | u64 minset[W] | u64 fp[F]   (W = ceil(N / 64),
 * F = ceil(N / 8)). Entries [0, used) are live, in table order (the order the paper's table has;
 * the clear sorts it). Two small structures make an update cheap instead of a scan of the N
 * entries (the scan cost 3-8 M updates/s at N = 50: nearly every update of a flat tail is a miss):
 *   - fp: one fingerprint byte per position (the top 8 bits of the value's Fibonacci hash), 8 to
 *     a word. A lookup compares all of a word's bytes at once (SWAR: the zero-byte test of
 *     fp ^ 0x0101..01 * f; it may flag a byte above a true match, never miss one) and checks the
 *     flagged live positions' values: ~N/8 branch-free word operations and, on a miss, ~N/256
 *     false candidates. (It replaced a hash index with linear probing and backward-shift
 *     deletion: each miss then probed twice and shifted, ~2x the time in mispredicted loops;
 *     bench/shadow/tnv_bench.sh.) The position the previous update hit or filled is tried first:
 *     a semi-invariant instruction's value repeats.
 *   - min_count and minset: the smallest live count and the bit set of the positions holding it
 *     (nmin = its size). The LFU victim of the paper's rule (smallest count, first in table order)
 *     is the lowest set bit. An entry leaving the minimum clears its bit; when the set empties it
 *     is stale, and one O(N) rescan finds the minimum when a victim is next needed (a miss with
 *     the table full): at most one rescan per miss. (Rescanning at once cost O(N) per update
 *     while a repeating value was the only entry at the minimum: 77% of the time of a stream
 *     repeating its previous value 90% of the time.)
 * Invariants between updates: fp holds the fingerprint of every live position; when nmin > 0,
 * min_count is the smallest live count and minset holds exactly the live positions with that
 * count; nmin = 0 with used > 0: stale (min_count is a lower bound, minset empty). The clear sorts the entries (stable), truncates, and rebuilds
 * both; a replacement keeps the victim's position.
 * Serialized form: kind u32, version u32, N u32, K u32, used u32, since_clear u32, total u64,
 * clears u64, then (value u64, count u64) per live entry in table order (the index and the
 * minimum set are rebuilt on load, so the format is unchanged: version 1).
 * Estimates, top-k and the writing of the entries are valuetable.c's (shared with valuelist.c).
 */
#include "core/summary/tnv.h"
#include "core/base/bytes.h"

#define TNV_VERSION 1u

struct hp_tnv {
    uint32_t n, clear_interval, used, since_clear;
    uint64_t total, clears;
    uint32_t last, nmin; /* last: the position the previous update hit or filled (a hint); nmin: positions in minset */
    uint64_t min_count;
};

static uint32_t min_words(uint32_t n) { return (n + 63) / 64; }
static hp_tnv_entry *tnv_e(const hp_tnv *t) { return (hp_tnv_entry *)(void *)((uint8_t *)(uintptr_t)t + sizeof *t); }
static uint64_t *tnv_minset(const hp_tnv *t) { return (uint64_t *)(void *)(tnv_e(t) + t->n); }
static uint32_t fp_words(uint32_t n) { return (n + 7) / 8; }
static uint64_t *tnv_fp(const hp_tnv *t) { return tnv_minset(t) + min_words(t->n); }

size_t hp_tnv_bytes(uint32_t n_entries)
{
    return sizeof(hp_tnv) + (size_t)n_entries * sizeof(hp_tnv_entry) + (size_t)min_words(n_entries) * 8 +
           (size_t)fp_words(n_entries) * 8;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* ---- fingerprints ---- */

#define FP_ONES 0x0101010101010101ull
#define FP_HIGHS 0x8080808080808080ull

/* Fibonacci hashing: the top bits of value * 2^64/phi depend on every bit of the value. */
static uint64_t fp_of(uint64_t value) { return (value * 0x9e3779b97f4a7c15ull) >> 56; }

static void fp_set(hp_tnv *t, uint32_t p, uint64_t value)
{
    uint64_t *w = &tnv_fp(t)[p / 8];
    unsigned sh = 8 * (p % 8);
    *w = (*w & ~(0xffull << sh)) | fp_of(value) << sh;
}

/* Position of value among the live entries, or -1. */
static long tnv_find(const hp_tnv *t, uint64_t value)
{
    const uint64_t *fp = tnv_fp(t);
    const hp_tnv_entry *e = tnv_e(t);
    uint64_t pattern = fp_of(value) * FP_ONES;
    for (uint32_t w = 0; w * 8 < t->used; w++) {
        uint64_t x = fp[w] ^ pattern;
        uint64_t hit = (x - FP_ONES) & ~x & FP_HIGHS; /* a zero byte (a match) sets its high bit */
        while (hit) {
            uint32_t p = w * 8 + (uint32_t)__builtin_ctzll(hit) / 8;
            if (p < t->used && e[p].value == value) return (long)p;
            hit &= hit - 1;
        }
    }
    return -1;
}

/* ---- the set of positions holding the minimum count ---- */

static void minset_clear(hp_tnv *t)
{
    uint64_t *w = tnv_minset(t);
    for (uint32_t i = 0; i < min_words(t->n); i++) w[i] = 0;
    t->nmin = 0;
}

static void minset_add(hp_tnv *t, uint32_t p)
{
    tnv_minset(t)[p / 64] |= 1ull << (p % 64);
    t->nmin++;
}

/* Recomputes min_count and minset from the live entries: O(N). */
static void min_rescan(hp_tnv *t)
{
    const hp_tnv_entry *e = tnv_e(t);
    uint64_t m = t->used ? e[0].count : 0;
    for (uint32_t p = 1; p < t->used; p++) m = e[p].count < m ? e[p].count : m;
    minset_clear(t);
    t->min_count = m;
    for (uint32_t p = 0; p < t->used; p++)
        if (e[p].count == m) minset_add(t, p);
}

/* Position p's count left the minimum (it grew): drop it from the set (empty: stale). */
static void min_leave(hp_tnv *t, uint32_t p)
{
    tnv_minset(t)[p / 64] &= ~(1ull << (p % 64));
    t->nmin--;
}

/* The LFU victim: the lowest position holding the minimum count (used > 0). */
static uint32_t min_first(const hp_tnv *t)
{
    const uint64_t *w = tnv_minset(t);
    uint32_t i = 0;
    while (w[i] == 0) i++;
    return i * 64 + (uint32_t)__builtin_ctzll(w[i]);
}

/* Rebuilds the fingerprints and the minimum set from entries [0, used). */
static void reindex(hp_tnv *t)
{
    for (uint32_t w = 0; w < fp_words(t->n); w++) tnv_fp(t)[w] = 0;
    for (uint32_t p = 0; p < t->used; p++) fp_set(t, p, tnv_e(t)[p].value);
    min_rescan(t);
}

hp_tnv *hp_tnv_init(void *mem, size_t budget, uint32_t n_entries, uint32_t clear_interval)
{
    if (!mem || n_entries == 0 || n_entries > HP_TNV_MAX_N || clear_interval == 0) return NULL;
    if (hp_tnv_bytes(n_entries) > budget) return NULL;
    hp_tnv *t = (hp_tnv *)mem;
    t->n = n_entries;
    t->clear_interval = clear_interval;
    t->used = 0;
    t->since_clear = 0;
    t->total = 0;
    t->clears = 0;
    t->last = 0;
    reindex(t);
    return t;
}

uint32_t hp_tnv_entries(const hp_tnv *t, const hp_tnv_entry **out)
{
    *out = tnv_e(t);
    return t->used;
}

uint64_t hp_tnv_clears(const hp_tnv *t) { return t->clears; }

/* Stable insertion sort by count, highest first (N is small, and runs once per K updates). */
static void sort_by_count(hp_tnv_entry *e, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        hp_tnv_entry v = e[i];
        uint32_t j = i;
        while (j > 0 && e[j - 1].count < v.count) { e[j] = e[j - 1]; j--; }
        e[j] = v;
    }
}

/* Keep the steady part (the N - N/2 highest counts), clear the rest. */
static void clear_lower_half(hp_tnv *t)
{
    uint32_t steady = t->n - t->n / 2;
    sort_by_count(tnv_e(t), t->used);
    if (t->used > steady) t->used = steady;
    t->clears++;
    reindex(t);
}

static void tnv_insert(hp_tnv *t, uint64_t value, uint64_t weight)
{
    hp_tnv_entry *e = tnv_e(t);
    /* an instruction's values repeat (semi-invariant ones most): the last position first */
    long found = t->last < t->used && e[t->last].value == value ? (long)t->last : tnv_find(t, value);
    if (found >= 0) {
        uint32_t p = t->last = (uint32_t)found;
        uint64_t c = e[p].count;
        e[p].count = sat_add(c, weight);
        if (t->nmin && c == t->min_count && e[p].count != c) min_leave(t, p);
        return;
    }
    if (t->used < t->n) {
        uint32_t p = t->last = t->used++;
        e[p] = (hp_tnv_entry){value, weight};
        fp_set(t, p, value);
        if (p == 0 || (t->nmin && weight < t->min_count)) { minset_clear(t); t->min_count = weight; }
        if ((t->nmin || p == 0) && weight == t->min_count) minset_add(t, p); /* stale: the rescan sees it */
        return;
    }
    if (!t->nmin) min_rescan(t);
    uint32_t p = t->last = min_first(t); /* LFU: smallest count, first in table order */
    e[p] = (hp_tnv_entry){value, weight};
    fp_set(t, p, value);
    if (weight < t->min_count) {
        minset_clear(t);
        t->min_count = weight;
        minset_add(t, p);
    } else if (weight > t->min_count) {
        min_leave(t, p);
    }
}

void hp_tnv_update(hp_tnv *t, uint64_t value, uint64_t weight)
{
    if (weight == 0) return;
    t->total = sat_add(t->total, weight);
    tnv_insert(t, value, weight);
    if (++t->since_clear >= t->clear_interval) {
        clear_lower_half(t);
        t->since_clear = 0;
    }
}


/* ---- vtable glue ---- */

static void *vt_init(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_tnv_init(mem, budget, HP_TNV_DEFAULT_N, HP_TNV_DEFAULT_CLEAR); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_tnv_update((hp_tnv *)s, key, w); }

static size_t vt_topk(const void *s, hp_estimate *out, size_t k)
{
    const hp_tnv *t = (const hp_tnv *)s;
    return hp_vtab_topk(tnv_e(t), t->used, t->total, out, k);
}

static int vt_query(const void *s, uint64_t key, hp_estimate *out)
{
    const hp_tnv *t = (const hp_tnv *)s;
    uint64_t sum = hp_vtab_sum(tnv_e(t), t->used);
    long p = tnv_find(t, key);
    if (p >= 0) { hp_vtab_fill(t->total, key, tnv_e(t)[p].count, sum, out); return 1; }
    hp_vtab_absent(t->total, sum, key, out);
    return 0;
}

static int vt_merge(void *d, const void *s) { (void)d; (void)s; return -1; }

static size_t vt_serialized_size(const void *s) { return 6 * 4 + 8 + 8 + (size_t)((const hp_tnv *)s)->used * 16; }

static size_t vt_serialize(const void *s, void *buf, size_t cap)
{
    const hp_tnv *t = (const hp_tnv *)s;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, HP_SUMMARY_TNV);
    hp_put_u32(&w, TNV_VERSION);
    hp_put_u32(&w, t->n);
    hp_put_u32(&w, t->clear_interval);
    hp_put_u32(&w, t->used);
    hp_put_u32(&w, t->since_clear);
    hp_put_u64(&w, t->total);
    hp_put_u64(&w, t->clears);
    hp_vtab_write(&w, tnv_e(t), t->used);
    return w.ok ? w.len : 0;
}

static void *vt_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_SUMMARY_TNV || hp_get_u32(&r) != TNV_VERSION) return NULL;
    uint32_t n = hp_get_u32(&r), k = hp_get_u32(&r), used = hp_get_u32(&r), since = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r), clears = hp_get_u64(&r);
    if (!r.ok || used > n || since >= k || hp_rbuf_left(&r) != (size_t)used * 16) return NULL;
    hp_tnv *t = hp_tnv_init(mem, budget, n, k);
    if (!t) return NULL;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < used; i++) {
        uint64_t value = hp_get_u64(&r), count = hp_get_u64(&r);
        if (count == 0 || sum + count < sum || tnv_find(t, value) >= 0) return NULL; /* or duplicate */
        sum += count;
        tnv_e(t)[i] = (hp_tnv_entry){value, count};
        t->used = i + 1;
        fp_set(t, i, value);
    }
    if (sum > total) return NULL;
    t->used = used;
    reindex(t);
    t->since_clear = since;
    t->total = total;
    t->clears = clears;
    return r.ok ? t : NULL;
}

static size_t vt_bytes_used(const void *s) { return hp_tnv_bytes(((const hp_tnv *)s)->n); }
static uint64_t vt_total(const void *s) { return ((const hp_tnv *)s)->total; }

const hp_summary_vt hp_tnv_vt = {
    "tnv", HP_SUMMARY_TNV, vt_init, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize, vt_bytes_used, vt_total,
};

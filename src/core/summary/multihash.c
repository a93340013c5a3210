/* multihash.c — interval multi-hash profiler with shielding, retaining, resetting and
 * conservative update. See multihash.h for the algorithm and its invariants.
 *
 * Layout in the caller's buffer (offsets kept in the header, each 8-byte aligned):
 *   header | uint8_t rtab[n][256] | uint32_t counters[n][Z/n] | mh_acc acc[A] |
 *   uint32_t acc_index[2^k >= 2A] | hp_multihash_candidate report[A]
 * acc_index maps a key to its accumulator entry (value pos + 1, 0 = empty; linear probing). It
 * is rebuilt whole when an entry is overwritten or flushed — at most A times per interval.
 * free_slots counts the entries a promotion may take, so a full accumulator refuses in O(1).
 */
#include "core/summary/multihash.h"
#include <math.h>
#include <string.h>
#include "core/base/bytes.h"
#include "core/base/hash.h"
#include "core/base/rng.h"

typedef struct mh_acc { uint64_t key, count; uint32_t state, reserved; } mh_acc;

struct hp_multihash {
    hp_multihash_params p;
    uint32_t per_table, fold_bits, acc_n, idx_mask, counter_max;
    uint32_t free_slots; /* accumulator entries ABSENT or REPLACEABLE: 0 means a promotion must drop */
    uint64_t T, report_n, intervals;
    hp_multihash_stats cur, last;
    size_t off_rtab, off_counters, off_acc, off_idx, off_report;
};

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* ---- parameters ---- */

static int params_valid(const hp_multihash_params *p)
{
    if (!p || p->n_tables == 0 || p->n_tables > 64 || p->total_counters < p->n_tables) return 0;
    if (p->total_counters > (1u << 28) || p->counter_bits == 0 || p->counter_bits > 32) return 0;
    if (!(p->threshold > 0.0 && p->threshold <= 1.0) || p->interval_length == 0) return 0;
    if (p->interval_length > (1ull << 52)) return 0;
    return 1;
}

uint64_t hp_multihash_threshold_count(const hp_multihash_params *p)
{
    if (!params_valid(p)) return 0;
    double t = ceil(p->threshold * (double)p->interval_length - 1e-9);
    return t < 1 ? 1 : (uint64_t)t;
}

uint32_t hp_multihash_acc_entries(const hp_multihash_params *p)
{
    if (!params_valid(p)) return 0;
    double a = ceil(1.0 / p->threshold - 1e-9);
    if (a > (double)p->interval_length) a = (double)p->interval_length;
    if (a > (1u << 20) || (double)p->acc_entries > a) return 0;
    return p->acc_entries ? p->acc_entries : (uint32_t)a;
}

static uint32_t bits_for(uint64_t v) /* ceil(log2(v + 1)) */
{
    uint32_t b = 0;
    while (b < 64 && (v >> b) != 0) b++;
    return b;
}

static uint64_t acc_entry_bits(const hp_multihash_params *p) { return 64 + bits_for(p->interval_length) + 2; }

static uint64_t area_bits(const hp_multihash_params *p)
{
    uint32_t a = hp_multihash_acc_entries(p);
    if (!a) return 0;
    return (uint64_t)p->counter_bits * p->total_counters + a * acc_entry_bits(p);
}

uint64_t hp_multihash_area_bytes(const hp_multihash_params *p)
{
    return (area_bits(p) + 7) / 8;
}

int hp_multihash_variant_divisors(int variant, uint32_t *acc_div, uint32_t *area_div)
{
    if (variant == HP_MH_VARIANT_REBALANCED) return *acc_div = 2, *area_div = 1, 0;
    if (variant == HP_MH_VARIANT_HALF) return *acc_div = 4, *area_div = 2, 0;
    return -1;
}

int hp_multihash_rebalance(const hp_multihash_params *design, uint32_t acc_div, uint32_t area_div, hp_multihash_params *out)
{
    uint64_t budget = area_bits(design);
    if (!budget || !acc_div || !area_div) return -1;
    budget /= area_div;
    hp_multihash_params q = *design;
    q.acc_entries = 0;
    uint32_t full = hp_multihash_acc_entries(&q);
    q.acc_entries = (full + acc_div - 1) / acc_div;
    uint64_t acc_bits = q.acc_entries * acc_entry_bits(&q);
    if (acc_bits >= budget) return -1;
    uint64_t z = (budget - acc_bits) / q.counter_bits;
    z -= z % q.n_tables;
    if (z < q.n_tables || z > (1u << 28)) return -1;
    q.total_counters = (uint32_t)z;
    *out = q;
    return 0;
}

static uint32_t idx_size_for(uint32_t a)
{
    uint32_t s = 4;
    while (s < 2 * a) s <<= 1;
    return s;
}

static void layout(const hp_multihash_params *p, struct hp_multihash *h, size_t *total)
{
    uint32_t per = p->total_counters / p->n_tables, a = hp_multihash_acc_entries(p);
    size_t off = align8(sizeof(struct hp_multihash));
    h->off_rtab = off;
    off = align8(off + (size_t)p->n_tables * 256);
    h->off_counters = off;
    off = align8(off + (size_t)p->n_tables * per * sizeof(uint32_t));
    h->off_acc = off;
    off = align8(off + (size_t)a * sizeof(mh_acc));
    h->off_idx = off;
    off = align8(off + (size_t)idx_size_for(a) * sizeof(uint32_t));
    h->off_report = off;
    *total = off + (size_t)a * sizeof(hp_multihash_candidate);
}

size_t hp_multihash_bytes(const hp_multihash_params *p)
{
    if (!params_valid(p) || !hp_multihash_acc_entries(p)) return 0;
    struct hp_multihash h;
    size_t total;
    layout(p, &h, &total);
    return total;
}

/* ---- accessors ---- */

static uint8_t *rtab(const hp_multihash *mh, uint32_t j) { return (uint8_t *)(uintptr_t)mh + mh->off_rtab + (size_t)j * 256; }
static uint32_t *counters(const hp_multihash *mh) { return (uint32_t *)(void *)((uint8_t *)(uintptr_t)mh + mh->off_counters); }
static mh_acc *acc(const hp_multihash *mh) { return (mh_acc *)(void *)((uint8_t *)(uintptr_t)mh + mh->off_acc); }
static uint32_t *acc_idx(const hp_multihash *mh) { return (uint32_t *)(void *)((uint8_t *)(uintptr_t)mh + mh->off_idx); }
static hp_multihash_candidate *report(const hp_multihash *mh) { return (hp_multihash_candidate *)(void *)((uint8_t *)(uintptr_t)mh + mh->off_report); }

const hp_multihash_params *hp_multihash_get_params(const hp_multihash *mh) { return &mh->p; }
uint64_t hp_multihash_intervals(const hp_multihash *mh) { return mh->intervals; }
hp_multihash_stats hp_multihash_last_stats(const hp_multihash *mh) { return mh->last; }
hp_multihash_stats hp_multihash_running_stats(const hp_multihash *mh) { return mh->cur; }

size_t hp_multihash_report(const hp_multihash *mh, const hp_multihash_candidate **out)
{
    *out = report(mh);
    return (size_t)mh->report_n;
}

/* ---- the paper's hash: randomize, flip, xor-fold ---- */

static inline uint32_t randomize32(const uint8_t *r, uint32_t x)
{
    return (uint32_t)r[x & 255] | (uint32_t)r[(x >> 8) & 255] << 8 | (uint32_t)r[(x >> 16) & 255] << 16 |
           (uint32_t)r[x >> 24] << 24;
}

static uint32_t flip32(uint32_t x) { return __builtin_bswap32(x); }

/* XOR of the bits-wide chunks of v (a fixed number of chunks: no data-dependent exit). */
static inline uint32_t xorfold(uint32_t v, uint32_t bits)
{
    if (bits == 0) return 0;
    if (bits >= 32) return v;
    uint32_t r = 0, mask = (1u << bits) - 1;
    for (uint32_t shift = 0; shift < 32; shift += bits) r ^= (v >> shift) & mask;
    return r;
}

static inline __attribute__((always_inline)) uint32_t table_index(const hp_multihash *mh, uint32_t table,
                                                                  uint64_t key)
{
    const uint8_t *r = rtab(mh, table);
    if (mh->p.fast_hash) { /* the table's seed: 8 bytes of its random permutation (distinct bytes) */
        uint64_t seed;
        memcpy(&seed, r, 8);
        return hp_reduce(hp_mix64(key ^ seed), mh->per_table);
    }
    uint32_t npc = flip32(randomize32(r, (uint32_t)(key >> 32)));
    uint32_t nv = randomize32(r, (uint32_t)key);
    uint32_t folded = xorfold(npc ^ nv, mh->fold_bits);
    return folded < mh->per_table ? folded : folded % mh->per_table; /* power-of-two sizes never divide */
}

uint32_t hp_multihash_index(const hp_multihash *mh, uint32_t table, uint64_t key)
{
    return table_index(mh, table, key);
}

uint32_t hp_multihash_counter(const hp_multihash *mh, uint32_t table, uint32_t index)
{
    return counters(mh)[(size_t)table * mh->per_table + index];
}

/* Each table's random number table: a seeded permutation of 0..255 (Fisher–Yates). */
static void fill_random_tables(hp_multihash *mh)
{
    hp_rng rng;
    hp_rng_seed(&rng, mh->p.seed);
    for (uint32_t j = 0; j < mh->p.n_tables; j++) {
        uint8_t *r = rtab(mh, j);
        for (int i = 0; i < 256; i++) r[i] = (uint8_t)i;
        for (int i = 255; i > 0; i--) {
            uint32_t k = (uint32_t)hp_rng_below(&rng, (uint64_t)i + 1);
            uint8_t t = r[i]; r[i] = r[k]; r[k] = t;
        }
    }
}

/* ---- accumulator ---- */

static uint32_t idx_probe(const hp_multihash *mh, uint64_t key)
{
    const uint32_t *ix = acc_idx(mh);
    const mh_acc *a = acc(mh);
    uint32_t s = (uint32_t)hp_mix64(key) & mh->idx_mask;
    while (ix[s] && a[ix[s] - 1].key != key) s = (s + 1) & mh->idx_mask;
    return s;
}

static long acc_find(const hp_multihash *mh, uint64_t key)
{
    uint32_t v = acc_idx(mh)[idx_probe(mh, key)];
    return v ? (long)v - 1 : -1;
}

static void acc_reindex(hp_multihash *mh)
{
    memset(acc_idx(mh), 0, (size_t)(mh->idx_mask + 1) * sizeof(uint32_t));
    const mh_acc *a = acc(mh);
    for (uint32_t i = 0; i < mh->acc_n; i++)
        if (a[i].state != HP_MH_ABSENT) acc_idx(mh)[idx_probe(mh, a[i].key)] = i + 1;
}

int hp_multihash_acc_state(const hp_multihash *mh, uint64_t key)
{
    long pos = acc_find(mh, key);
    return pos < 0 ? HP_MH_ABSENT : (int)acc(mh)[pos].state;
}

static uint32_t count_free_slots(const hp_multihash *mh)
{
    const mh_acc *a = acc(mh);
    uint32_t n = 0;
    for (uint32_t i = 0; i < mh->acc_n; i++) n += a[i].state != HP_MH_ACTIVE;
    return n;
}

/* Empty entries first, then replaceable ones; -1 if neither. */
static long acc_free_slot(const hp_multihash *mh)
{
    const mh_acc *a = acc(mh);
    long replaceable = -1;
    if (mh->free_slots == 0) return -1;
    for (uint32_t i = 0; i < mh->acc_n; i++) {
        if (a[i].state == HP_MH_ABSENT) return i;
        if (a[i].state == HP_MH_REPLACEABLE && replaceable < 0) replaceable = i;
    }
    return replaceable;
}

static void promote(hp_multihash *mh, uint64_t key, uint64_t count)
{
    long slot = acc_free_slot(mh);
    if (slot < 0) { mh->cur.dropped++; return; }
    mh_acc *e = &acc(mh)[slot];
    int was_replaceable = e->state == HP_MH_REPLACEABLE;
    e->key = key;
    e->count = count;
    e->state = HP_MH_ACTIVE;
    mh->free_slots--;
    mh->cur.promoted++;
    if (was_replaceable) { mh->cur.evicted++; acc_reindex(mh); }
    else acc_idx(mh)[idx_probe(mh, key)] = (uint32_t)slot + 1;
}

/* ---- hash tables ---- */

/* Increments the key's counters (all, or only the minimal ones under conservative update) and
 * returns their new minimum. */
static uint32_t bump_counters(hp_multihash *mh, const uint32_t *slot)
{
    uint32_t *c = counters(mh), n = mh->p.n_tables, m = UINT32_MAX;
    for (uint32_t j = 0; j < n; j++) if (c[slot[j]] < m) m = c[slot[j]];
    uint32_t newmin = UINT32_MAX;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t *v = &c[slot[j]];
        if ((!mh->p.conservative || *v == m) && *v < mh->counter_max) (*v)++;
        if (*v < newmin) newmin = *v;
    }
    return newmin;
}

static void hash_update(hp_multihash *mh, uint64_t key, int may_promote)
{
    uint32_t slot[64];
    for (uint32_t j = 0; j < mh->p.n_tables; j++) slot[j] = j * mh->per_table + table_index(mh, j, key);
    uint32_t newmin = bump_counters(mh, slot);
    if (!may_promote || newmin < mh->T) return;
    uint64_t before = mh->cur.promoted;
    promote(mh, key, newmin);
    if (mh->p.reset && mh->cur.promoted != before)
        for (uint32_t j = 0; j < mh->p.n_tables; j++) counters(mh)[slot[j]] = 0;
}

/* ---- intervals ---- */

static void write_report(hp_multihash *mh)
{
    hp_multihash_candidate *r = report(mh);
    const mh_acc *a = acc(mh);
    size_t n = 0;
    for (uint32_t i = 0; i < mh->acc_n; i++) {
        if (a[i].state == HP_MH_ABSENT || a[i].count < mh->T) continue;
        hp_multihash_candidate v = {a[i].key, a[i].count};
        size_t j = n++;
        while (j > 0 && (r[j - 1].count < v.count || (r[j - 1].count == v.count && r[j - 1].key > v.key))) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = v;
    }
    mh->report_n = n;
}

/* Retaining keeps the reported entries as replaceable with count 0; everything else goes. */
static void carry_accumulator(hp_multihash *mh)
{
    mh_acc *a = acc(mh);
    for (uint32_t i = 0; i < mh->acc_n; i++) {
        int keep = mh->p.retain && a[i].state != HP_MH_ABSENT && a[i].count >= mh->T;
        a[i].state = keep ? HP_MH_REPLACEABLE : HP_MH_ABSENT;
        a[i].count = 0;
    }
    acc_reindex(mh);
    mh->free_slots = count_free_slots(mh);
}

int hp_multihash_end_interval(hp_multihash *mh)
{
    if (mh->cur.events == 0) return 0;
    write_report(mh);
    mh->last = mh->cur;
    memset(&mh->cur, 0, sizeof mh->cur);
    mh->cur.interval = ++mh->intervals;
    memset(counters(mh), 0, (size_t)mh->p.n_tables * mh->per_table * sizeof(uint32_t));
    carry_accumulator(mh);
    return 1;
}

int hp_multihash_update(hp_multihash *mh, uint64_t key)
{
    mh->cur.events++;
    long pos = acc_find(mh, key);
    if (pos >= 0) {
        mh_acc *e = &acc(mh)[pos];
        e->count++;
        if (e->state == HP_MH_REPLACEABLE && e->count >= mh->T) {
            e->state = HP_MH_ACTIVE;
            mh->free_slots--;
        }
        if (!mh->p.shield) hash_update(mh, key, 0);
    } else {
        hash_update(mh, key, 1);
    }
    if (mh->cur.events < mh->p.interval_length) return 0;
    return hp_multihash_end_interval(mh);
}

hp_multihash *hp_multihash_init(void *mem, size_t budget, const hp_multihash_params *p)
{
    size_t need = hp_multihash_bytes(p);
    if (!mem || need == 0 || need > budget) return NULL;
    uint64_t T = hp_multihash_threshold_count(p);
    uint64_t cmax = p->counter_bits == 32 ? UINT32_MAX : (1ull << p->counter_bits) - 1;
    if (T > cmax) return NULL; /* counters could never reach the threshold */
    hp_multihash *mh = (hp_multihash *)mem;
    memset(mh, 0, need);
    mh->p = *p;
    layout(p, mh, &need);
    mh->per_table = p->total_counters / p->n_tables;
    mh->fold_bits = bits_for(mh->per_table - 1);
    mh->acc_n = hp_multihash_acc_entries(p);
    mh->idx_mask = idx_size_for(mh->acc_n) - 1;
    mh->counter_max = (uint32_t)cmax;
    mh->T = T;
    mh->free_slots = mh->acc_n;
    fill_random_tables(mh);
    return mh;
}

/* ---- serialization ---- */

#define MH_VERSION 1u

static void put_stats(hp_wbuf *w, const hp_multihash_stats *s)
{
    hp_put_u64(w, s->interval); hp_put_u64(w, s->events); hp_put_u64(w, s->promoted);
    hp_put_u64(w, s->dropped); hp_put_u64(w, s->evicted);
}

static hp_multihash_stats get_stats(hp_rbuf *r)
{
    hp_multihash_stats s;
    s.interval = hp_get_u64(r); s.events = hp_get_u64(r); s.promoted = hp_get_u64(r);
    s.dropped = hp_get_u64(r); s.evicted = hp_get_u64(r);
    return s;
}

size_t hp_multihash_serialized_size(const hp_multihash *mh)
{
    size_t params = 4 * 4 + 8 + 8 + 4 + 8;
    return 8 + params + 2 * 40 + 16 + (size_t)mh->p.n_tables * mh->per_table * 4 + (size_t)mh->acc_n * 20 +
           (size_t)mh->report_n * 16;
}

size_t hp_multihash_serialize(const hp_multihash *mh, void *buf, size_t cap)
{
    hp_wbuf w = hp_wbuf_make(buf, cap);
    const hp_multihash_params *p = &mh->p;
    uint64_t tbits;
    memcpy(&tbits, &p->threshold, 8);
    hp_put_u32(&w, HP_MULTIHASH_FORMAT_ID);
    hp_put_u32(&w, MH_VERSION);
    hp_put_u32(&w, p->n_tables); hp_put_u32(&w, p->total_counters); hp_put_u32(&w, p->counter_bits);
    hp_put_u32(&w, (p->shield ? 1u : 0u) | (p->retain ? 2u : 0u) | (p->reset ? 4u : 0u) | (p->conservative ? 8u : 0u) | (p->fast_hash ? 16u : 0u));
    hp_put_u64(&w, tbits); hp_put_u64(&w, p->interval_length);
    hp_put_u32(&w, (uint32_t)mh->report_n); hp_put_u64(&w, p->seed);
    put_stats(&w, &mh->cur);
    put_stats(&w, &mh->last);
    hp_put_u64(&w, mh->intervals);
    hp_put_u64(&w, p->acc_entries); /* 0 (version 1's reserved word): the paper's ceil(1/t) */
    const uint32_t *c = counters(mh);
    for (size_t i = 0; i < (size_t)p->n_tables * mh->per_table; i++) hp_put_u32(&w, c[i]);
    const mh_acc *a = acc(mh);
    for (uint32_t i = 0; i < mh->acc_n; i++) { hp_put_u64(&w, a[i].key); hp_put_u64(&w, a[i].count); hp_put_u32(&w, a[i].state); }
    const hp_multihash_candidate *r = report(mh);
    for (uint64_t i = 0; i < mh->report_n; i++) { hp_put_u64(&w, r[i].key); hp_put_u64(&w, r[i].count); }
    return w.ok ? w.len : 0;
}

/* Accumulator entries: state known; absent ones hold count 0; active ones >= T, replaceable
 * ones < T (they turn active at T); no key twice. Rebuilds the index as it goes. */
static int read_accumulator(hp_multihash *mh, hp_rbuf *r)
{
    mh_acc *a = acc(mh);
    for (uint32_t i = 0; i < mh->acc_n; i++) {
        a[i].key = hp_get_u64(r);
        a[i].count = hp_get_u64(r);
        a[i].state = hp_get_u32(r);
        if (!r->ok || a[i].state > HP_MH_REPLACEABLE) return 0;
        if (a[i].state == HP_MH_ABSENT && a[i].count != 0) return 0;
        if (a[i].state == HP_MH_ACTIVE && (a[i].count < mh->T || a[i].count > mh->p.interval_length)) return 0;
        if (a[i].state == HP_MH_REPLACEABLE && a[i].count >= mh->T) return 0;
        if (a[i].state == HP_MH_ABSENT) continue;
        uint32_t s = idx_probe(mh, a[i].key);
        if (acc_idx(mh)[s]) return 0;
        acc_idx(mh)[s] = i + 1;
    }
    mh->free_slots = count_free_slots(mh);
    return 1;
}

static int read_report(hp_multihash *mh, hp_rbuf *r, uint32_t n)
{
    hp_multihash_candidate *c = report(mh);
    for (uint32_t i = 0; i < n; i++) {
        c[i].key = hp_get_u64(r);
        c[i].count = hp_get_u64(r);
        if (c[i].count < mh->T || c[i].count > mh->p.interval_length) return 0;
        if (i > 0 && c[i].count > c[i - 1].count) return 0;
    }
    mh->report_n = n;
    return r->ok;
}

/* The accumulator size sits after the two statistics blocks and the interval count; read it
 * ahead (without moving r) since the layout depends on it. Out of range -> UINT32_MAX (refused). */
static uint32_t peek_acc_entries(const hp_rbuf *r)
{
    hp_rbuf ahead = *r;
    for (int i = 0; i < 11; i++) (void)hp_get_u64(&ahead);
    uint64_t a = hp_get_u64(&ahead);
    return a > UINT32_MAX ? UINT32_MAX : (uint32_t)a;
}

hp_multihash *hp_multihash_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != HP_MULTIHASH_FORMAT_ID || hp_get_u32(&r) != MH_VERSION) return NULL;
    hp_multihash_params p;
    p.n_tables = hp_get_u32(&r); p.total_counters = hp_get_u32(&r); p.counter_bits = hp_get_u32(&r);
    uint32_t flags = hp_get_u32(&r);
    uint64_t tbits = hp_get_u64(&r);
    memcpy(&p.threshold, &tbits, 8);
    p.interval_length = hp_get_u64(&r);
    uint32_t report_n = hp_get_u32(&r);
    p.seed = hp_get_u64(&r);
    p.acc_entries = peek_acc_entries(&r);
    p.shield = flags & 1; p.retain = (flags >> 1) & 1; p.reset = (flags >> 2) & 1; p.conservative = (flags >> 3) & 1;
    p.fast_hash = (flags >> 4) & 1;
    if (!r.ok || flags > 31 || !params_valid(&p)) return NULL;
    hp_multihash *mh = hp_multihash_init(mem, budget, &p);
    if (!mh || report_n > mh->acc_n || hp_rbuf_left(&r) != hp_multihash_serialized_size(mh) - r.pos + (size_t)report_n * 16) return NULL;
    mh->cur = get_stats(&r);
    mh->last = get_stats(&r);
    mh->intervals = hp_get_u64(&r);
    if (hp_get_u64(&r) != p.acc_entries || mh->cur.events >= p.interval_length || mh->cur.interval != mh->intervals) return NULL;
    uint32_t *c = counters(mh);
    for (size_t i = 0; i < (size_t)p.n_tables * mh->per_table; i++)
        if ((c[i] = hp_get_u32(&r)) > mh->counter_max) return NULL;
    if (!read_accumulator(mh, &r) || !read_report(mh, &r, report_n)) return NULL;
    return r.ok && hp_rbuf_left(&r) == 0 ? mh : NULL;
}

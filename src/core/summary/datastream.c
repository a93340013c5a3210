/* datastream.c — hot data stream detector (see datastream.h, docs/datastream.md).
 *
 * Layout in the caller's memory, every region 8-aligned, carved in this order:
 *   hp_ds_state | hp_ds_level[nlevels] | trace[cap] | trace_pc[cap] (with_pc) | prefix[cap + 1]
 *   | per level: Space-Saving region | ex_key[P] | ex_addr[P * L] | ex_pc[P * L] (with_pc)
 *     | index[S] | scratch (hp_ds_hot)
 * with m = counters, P = 2m exemplar slots (the pool) and S = the power of two >= 2P index slots.
 *
 * Hashing: each reference becomes a mixed 64-bit element e = mix(addr ^ seed) (mixed again with the
 * pc when with_pc); a sequence's raw hash is the polynomial sum e_0 B^(n-1) + ... + e_(n-1) mod 2^64
 * (B odd), so the raw hash of every window of a trace is prefix[i + L] - prefix[i] * B^L; a window's
 * key is mix(raw ^ L). The same raw hash of an exemplar's first or last L - 1 elements links windows
 * into chains. Distinct sequences collide with probability about 2^-64 per pair.
 *
 * Exemplar pool invariants: pool entries [0, pool_n) are distinct keys, each reachable from its
 * home slot in the index (linear probing, slot value = pool position + 1, 0 = empty); every key
 * held by the level's summary is in the pool. Entries whose key is no longer held are garbage,
 * removed by a sweep (compact + rebuild index) when the pool is full: the summary holds at most m
 * keys, so a sweep frees at least m = P / 2 slots and costs O(P): amortized O(1) per window.
 */
#include "core/summary/datastream.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include "core/base/hash.h"
#include "core/metrics/metrics.h"
#include "core/summary/spacesaving.h"
#include <string.h>

#define DS_MAGIC 0x53445048u /* "HPDS" */
#define DS_POLY_BASE 0x9e3779b97f4a7c15ull
#define DS_SEED_ADDR 0x6164647265737321ull
#define DS_SEED_PC 0x70632d2d2d2d2d21ull
#define DS_LINK_RATIO 2u /* windows link only if their counts are within a factor of 2 */

struct hp_ds_level {
    uint32_t len, m, pool_cap, pool_n, index_mask, pad;
    uint64_t pow_l;   /* B^len mod 2^64 */
    uint64_t windows; /* windows counted at this length */
    hp_spacesaving *ss;
    void *ss_mem;
    size_t ss_bytes;
    uint64_t *ex_key, *ex_addr, *ex_pc;
    uint32_t *index;
};

/* ---- configuration and layout ---- */

void hp_ds_default_config(hp_ds_config *c)
{
    *c = (hp_ds_config){4096, HP_DS_MIN_WINDOW, HP_DS_MAX_WINDOW, 256, 0, 2, 0, 0x5eed};
}

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

int hp_ds_config_check(const hp_ds_config *c)
{
    if (!c || !is_pow2(c->min_window) || !is_pow2(c->max_window)) return -1;
    if (c->min_window < HP_DS_MIN_WINDOW || c->max_window > HP_DS_MAX_WINDOW || c->min_window > c->max_window) return -1;
    if (c->trace_cap < 2 * c->max_window || c->trace_cap > HP_DS_MAX_TRACE) return -1;
    if (c->counters < HP_SPACESAVING_MIN_M || c->counters > HP_DS_MAX_COUNTERS) return -1;
    if (c->with_pc > 1 || c->min_freq < 2) return -1;
    return 0;
}

static uint32_t level_count(const hp_ds_config *c)
{
    uint32_t n = 0;
    for (uint32_t l = c->min_window; l <= c->max_window; l *= 2) n++;
    return n;
}

static uint32_t index_slots(uint32_t pool_cap)
{
    uint32_t s = 4;
    while (s < 2 * pool_cap) s *= 2;
    return s;
}

typedef struct carver { uint8_t *base; size_t off; } carver;

static void *carve(carver *c, size_t bytes)
{
    size_t at = (c->off + 7) & ~(size_t)7;
    c->off = at + bytes;
    return c->base ? c->base + at : NULL;
}

/* Scratch of hp_ds_hot: per-level window arrays (m) and cross-level candidate arrays (C). */
typedef struct ds_cand {
    uint32_t level, chain_off, nwin, len;
    uint64_t freq, err, heat, hash;
    uint32_t dropped, truncated;
} ds_cand;

typedef struct ds_scratch {
    hp_estimate *est;       /* m */
    uint32_t *win_pos;      /* m: pool position of each hot window */
    uint64_t *win_count, *win_lower; /* Space-Saving count (>= true) and count - err (<= true) */
    hp_metric_item *by_prefix; /* m: (prefix hash, window) */
    int32_t *succ;          /* m */
    uint32_t *npred;        /* m */
    uint8_t *flags;         /* m: bit 0 visited, bit 1 has a link in */
    ds_cand *cand;          /* C */
    uint32_t *chain;        /* C: windows of each chain, back to back */
    hp_metric_item *order;  /* C */
    uint32_t *set;          /* set_slots */
    uint32_t set_slots, ncand_max;
    uint64_t *elem, *pre;   /* HP_DS_MAX_STREAM (+1) */
} ds_scratch;

static void carve_scratch(carver *c, uint32_t m, uint32_t nlevels, ds_scratch *s)
{
    uint32_t ncand = m * nlevels;
    s->est = carve(c, (size_t)m * sizeof *s->est);
    s->win_pos = carve(c, (size_t)m * 4);
    s->win_count = carve(c, (size_t)m * 8);
    s->win_lower = carve(c, (size_t)m * 8);
    s->by_prefix = carve(c, (size_t)m * sizeof *s->by_prefix);
    s->succ = carve(c, (size_t)m * 4);
    s->npred = carve(c, (size_t)m * 4);
    s->flags = carve(c, m);
    s->cand = carve(c, (size_t)ncand * sizeof *s->cand);
    s->chain = carve(c, (size_t)ncand * 4);
    s->order = carve(c, (size_t)ncand * sizeof *s->order);
    s->set_slots = index_slots(ncand);
    s->set = carve(c, (size_t)s->set_slots * 4);
    s->ncand_max = ncand;
    s->elem = carve(c, HP_DS_MAX_STREAM * 8);
    s->pre = carve(c, (HP_DS_MAX_STREAM + 1) * 8);
}

static void carve_level(carver *c, const hp_ds_config *cfg, uint32_t len, hp_ds_level *lv)
{
    uint32_t m = cfg->counters, pool = 2 * m;
    lv->len = len, lv->m = m, lv->pool_cap = pool, lv->pool_n = 0;
    lv->index_mask = index_slots(pool) - 1;
    lv->ss_bytes = hp_spacesaving_bytes_for(m);
    lv->ss_mem = carve(c, lv->ss_bytes);
    lv->ex_key = carve(c, (size_t)pool * 8);
    lv->ex_addr = carve(c, (size_t)pool * len * 8);
    lv->ex_pc = cfg->with_pc ? carve(c, (size_t)pool * len * 8) : NULL;
    lv->index = carve(c, (size_t)(lv->index_mask + 1) * 4);
}

/* Carves the whole state into s (with c->base NULL it only measures: s is then a local copy and
 * every pointer it gets is NULL). */
static void carve_state(carver *c, const hp_ds_config *cfg, hp_ds_state *s)
{
    uint32_t nlevels = level_count(cfg);
    hp_ds_level *levels = carve(c, nlevels * sizeof *levels), measure_lv;
    memset(s, 0, sizeof *s);
    s->cfg = *cfg, s->nlevels = nlevels, s->levels = levels, s->trace_cap = cfg->trace_cap;
    s->trace = carve(c, (size_t)cfg->trace_cap * 8);
    s->trace_pc = cfg->with_pc ? carve(c, (size_t)cfg->trace_cap * 8) : NULL;
    s->prefix = carve(c, ((size_t)cfg->trace_cap + 1) * 8);
    for (uint32_t i = 0, len = cfg->min_window; i < nlevels; i++, len *= 2)
        carve_level(c, cfg, len, levels ? &levels[i] : &measure_lv);
    size_t before = c->off;
    ds_scratch sc;
    carve_scratch(c, cfg->counters, nlevels, &sc);
    s->scratch = c->base ? c->base + before : NULL;
    s->scratch_bytes = c->off - before;
    s->bytes = c->off;
}

size_t hp_ds_bytes_for(const hp_ds_config *c)
{
    if (hp_ds_config_check(c)) return 0;
    carver cv = {NULL, 0};
    hp_ds_state measure;
    carve(&cv, sizeof measure);
    carve_state(&cv, c, &measure);
    return cv.off;
}

static uint64_t pow_of(uint64_t base, uint32_t e)
{
    uint64_t r = 1;
    while (e--) r *= base;
    return r;
}

hp_ds_state *hp_ds_init(void *mem, size_t budget, const hp_ds_config *c)
{
    size_t need = hp_ds_bytes_for(c);
    if (!mem || !need || need > budget || ((uintptr_t)mem & 7)) return NULL;
    carver cv = {mem, 0};
    hp_ds_state *s = carve(&cv, sizeof *s);
    carve_state(&cv, c, s);
    for (uint32_t i = 0; i < s->nlevels; i++) {
        hp_ds_level *lv = &s->levels[i];
        lv->pow_l = pow_of(DS_POLY_BASE, lv->len);
        lv->windows = 0;
        lv->ss = hp_spacesaving_init_m(lv->ss_mem, lv->ss_bytes, lv->m);
        memset(lv->index, 0, (size_t)(lv->index_mask + 1) * 4);
        if (!lv->ss) return NULL;
    }
    return s;
}

/* ---- hashing ---- */

static uint64_t element(const hp_ds_state *s, uint64_t addr, uint64_t pc)
{
    uint64_t e = hp_mix64(addr ^ s->cfg.seed ^ DS_SEED_ADDR);
    return s->cfg.with_pc ? hp_mix64(e ^ pc ^ DS_SEED_PC) : e;
}

static uint64_t raw_hash(const hp_ds_state *s, const uint64_t *addr, const uint64_t *pc, uint32_t n)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < n; i++) h = h * DS_POLY_BASE + element(s, addr[i], pc ? pc[i] : 0);
    return h;
}

static uint64_t window_key(uint64_t raw, uint32_t len) { return hp_mix64(raw ^ ((uint64_t)len << 56) ^ len); }

/* ---- exemplar pool ---- */

static uint64_t *ex_addr(const hp_ds_level *lv, uint32_t pos) { return lv->ex_addr + (size_t)pos * lv->len; }
static uint64_t *ex_pc(const hp_ds_level *lv, uint32_t pos) { return lv->ex_pc ? lv->ex_pc + (size_t)pos * lv->len : NULL; }

/* Pool position of key, or -1. */
static int64_t pool_find(const hp_ds_level *lv, uint64_t key)
{
    for (uint32_t i = (uint32_t)key & lv->index_mask;; i = (i + 1) & lv->index_mask) {
        uint32_t v = lv->index[i];
        if (!v) return -1;
        if (lv->ex_key[v - 1] == key) return v - 1;
    }
}

static void index_insert(hp_ds_level *lv, uint64_t key, uint32_t pos)
{
    uint32_t i = (uint32_t)key & lv->index_mask;
    while (lv->index[i]) i = (i + 1) & lv->index_mask;
    lv->index[i] = pos + 1;
}

static void pool_move(hp_ds_level *lv, uint32_t to, uint32_t from)
{
    lv->ex_key[to] = lv->ex_key[from];
    memmove(ex_addr(lv, to), ex_addr(lv, from), (size_t)lv->len * 8);
    if (lv->ex_pc) memmove(ex_pc(lv, to), ex_pc(lv, from), (size_t)lv->len * 8);
}

/* Drops exemplars whose key the summary no longer holds; rebuilds the index. */
static void pool_sweep(hp_ds_level *lv)
{
    hp_estimate e;
    uint32_t w = 0;
    for (uint32_t r = 0; r < lv->pool_n; r++) {
        if (!hp_spacesaving_query(lv->ss, lv->ex_key[r], &e)) continue;
        if (w != r) pool_move(lv, w, r);
        w++;
    }
    lv->pool_n = w;
    memset(lv->index, 0, (size_t)(lv->index_mask + 1) * 4);
    for (uint32_t i = 0; i < w; i++) index_insert(lv, lv->ex_key[i], i);
}

static void pool_add(hp_ds_level *lv, uint64_t key, const uint64_t *addr, const uint64_t *pc)
{
    if (pool_find(lv, key) >= 0) return;
    if (lv->pool_n == lv->pool_cap) pool_sweep(lv);
    uint32_t pos = lv->pool_n++;
    lv->ex_key[pos] = key;
    memcpy(ex_addr(lv, pos), addr, (size_t)lv->len * 8);
    if (lv->ex_pc) {
        if (pc) memcpy(ex_pc(lv, pos), pc, (size_t)lv->len * 8);
        else memset(ex_pc(lv, pos), 0, (size_t)lv->len * 8);
    }
    index_insert(lv, key, pos);
}

/* ---- burst processing ---- */

static void fill_prefix(hp_ds_state *s, uint32_t n)
{
    s->prefix[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        s->prefix[i + 1] = s->prefix[i] * DS_POLY_BASE + element(s, s->trace[i], s->trace_pc ? s->trace_pc[i] : 0);
}

static void process_level(hp_ds_state *s, hp_ds_level *lv, uint32_t n)
{
    if (n < lv->len) return;
    for (uint32_t i = 0; i + lv->len <= n; i++) {
        uint64_t key = window_key(s->prefix[i + lv->len] - s->prefix[i] * lv->pow_l, lv->len);
        hp_spacesaving_update(lv->ss, key, 1);
        pool_add(lv, key, s->trace + i, s->trace_pc ? s->trace_pc + i : NULL);
    }
    lv->windows += n - lv->len + 1;
}

void hp_ds_burst_end(hp_ds_state *s)
{
    uint32_t n = s->trace_len;
    s->trace_len = 0;
    if (n < s->cfg.min_window) return;
    fill_prefix(s, n);
    for (uint32_t i = 0; i < s->nlevels; i++) process_level(s, &s->levels[i], n);
    s->bursts++;
}

/* ---- chaining windows into streams (hp_ds_hot) ---- */

static ds_scratch scratch_of(const hp_ds_state *s)
{
    carver c = {(uint8_t *)s->scratch, 0};
    ds_scratch sc;
    carve_scratch(&c, s->cfg.counters, s->nlevels, &sc);
    return sc;
}

/* Fills the scratch window arrays with the held windows of lv with count >= min_freq. */
static uint32_t gather_windows(const hp_ds_state *s, const hp_ds_level *lv, ds_scratch *sc)
{
    size_t k = hp_spacesaving_topk(lv->ss, sc->est, lv->m);
    uint32_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (sc->est[i].lower < s->cfg.min_freq) continue; /* count alone may be all error */
        int64_t pos = pool_find(lv, sc->est[i].key);
        if (pos < 0) continue; /* cannot happen (invariant); skip rather than trust it */
        sc->win_pos[n] = (uint32_t)pos;
        sc->win_count[n] = sc->est[i].count;
        sc->win_lower[n] = sc->est[i].lower;
        n++;
    }
    return n;
}

static uint64_t win_prefix_hash(const hp_ds_state *s, const hp_ds_level *lv, uint32_t pos)
{
    return raw_hash(s, ex_addr(lv, pos), ex_pc(lv, pos), lv->len - 1);
}

static uint64_t win_suffix_hash(const hp_ds_state *s, const hp_ds_level *lv, uint32_t pos)
{
    const uint64_t *pc = ex_pc(lv, pos);
    return raw_hash(s, ex_addr(lv, pos) + 1, pc ? pc + 1 : NULL, lv->len - 1);
}

/* Window b starts with the last len - 1 references of window a. */
static int overlaps(const hp_ds_level *lv, uint32_t a, uint32_t b)
{
    size_t n = (size_t)(lv->len - 1) * 8;
    if (memcmp(ex_addr(lv, a) + 1, ex_addr(lv, b), n)) return 0;
    return !lv->ex_pc || !memcmp(ex_pc(lv, a) + 1, ex_pc(lv, b), n);
}

static size_t lower_bound(const hp_metric_item *it, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (it[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int similar(uint64_t a, uint64_t b) { return a <= b * DS_LINK_RATIO && b <= a * DS_LINK_RATIO; }

/* succ[w] = the one window that continues w, when it is w's only continuation, w is its only
 * predecessor, and their counts are similar; -1 otherwise. */
static void link_windows(const hp_ds_state *s, const hp_ds_level *lv, ds_scratch *sc, uint32_t n)
{
    uint32_t nsucc_of_w;
    int32_t last;
    for (uint32_t w = 0; w < n; w++) {
        sc->by_prefix[w] = (hp_metric_item){win_prefix_hash(s, lv, sc->win_pos[w]), (double)w};
        sc->npred[w] = 0, sc->flags[w] = 0;
    }
    hp_metric_sort_by_key(sc->by_prefix, n);
    for (uint32_t w = 0; w < n; w++) {
        uint64_t suffix = win_suffix_hash(s, lv, sc->win_pos[w]);
        nsucc_of_w = 0, last = -1;
        for (size_t i = lower_bound(sc->by_prefix, n, suffix); i < n && sc->by_prefix[i].key == suffix; i++) {
            uint32_t v = (uint32_t)sc->by_prefix[i].weight;
            if (!overlaps(lv, sc->win_pos[w], sc->win_pos[v])) continue;
            nsucc_of_w++, last = (int32_t)v;
            sc->npred[v]++;
        }
        sc->succ[w] = nsucc_of_w == 1 ? last : -1;
    }
    for (uint32_t w = 0; w < n; w++) {
        int32_t v = sc->succ[w];
        if (v < 0) continue;
        if (sc->npred[v] != 1 || !similar(sc->win_lower[w], sc->win_lower[v])) sc->succ[w] = -1;
        else sc->flags[v] |= 2;
    }
}

static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

/* Follows the chain from window w; appends it as a candidate if hot enough. */
static void walk_chain(const hp_ds_state *s, uint32_t level, ds_scratch *sc, uint32_t w, uint32_t *ncand,
                       uint32_t *nchain)
{
    const hp_ds_level *lv = &s->levels[level];
    ds_cand c = {level, *nchain, 0, 0, UINT64_MAX, 0, 0, 0, 0, 0};
    uint32_t max_win = HP_DS_MAX_STREAM - lv->len + 1;
    for (int32_t v = (int32_t)w; v >= 0 && !(sc->flags[v] & 1); v = sc->succ[v]) {
        sc->flags[v] |= 1;
        if (c.nwin == max_win) {
            c.truncated = 1;
            continue; /* mark the rest visited, keep the first max_win */
        }
        sc->chain[*nchain + c.nwin++] = sc->win_pos[v];
        c.freq = c.freq < sc->win_count[v] ? c.freq : sc->win_count[v];
        uint64_t err = sc->win_count[v] - sc->win_lower[v];
        c.err = c.err > err ? c.err : err;
    }
    c.len = lv->len + c.nwin - 1;
    c.heat = sat_mul(c.len, c.freq);
    if (c.heat < s->cfg.min_heat || *ncand == sc->ncand_max) return;
    sc->cand[(*ncand)++] = c;
    *nchain += c.nwin;
}

static void chain_level(const hp_ds_state *s, uint32_t level, ds_scratch *sc, uint32_t *ncand, uint32_t *nchain)
{
    const hp_ds_level *lv = &s->levels[level];
    uint32_t n = gather_windows(s, lv, sc);
    link_windows(s, lv, sc, n);
    for (uint32_t w = 0; w < n; w++) /* chain heads first ... */
        if (!(sc->flags[w] & 2)) walk_chain(s, level, sc, w, ncand, nchain);
    for (uint32_t w = 0; w < n; w++) /* ... then what is left: cycles (periodic traces) */
        if (!(sc->flags[w] & 1)) walk_chain(s, level, sc, w, ncand, nchain);
}

/* ---- candidates: materialize, dedupe, suppress contained ---- */

/* Writes candidate c's references into out (len, addr, pc); returns len. */
static uint32_t materialize(const hp_ds_state *s, const ds_scratch *sc, const ds_cand *c, uint64_t *addr,
                            uint64_t *pc)
{
    const hp_ds_level *lv = &s->levels[c->level];
    const uint32_t *win = sc->chain + c->chain_off;
    const uint64_t *first_pc = ex_pc(lv, win[0]);
    memcpy(addr, ex_addr(lv, win[0]), (size_t)lv->len * 8);
    for (uint32_t i = 0; i < lv->len; i++) pc[i] = first_pc ? first_pc[i] : 0;
    for (uint32_t j = 1; j < c->nwin; j++) {
        const uint64_t *wpc = ex_pc(lv, win[j]);
        addr[lv->len + j - 1] = ex_addr(lv, win[j])[lv->len - 1];
        pc[lv->len + j - 1] = wpc ? wpc[lv->len - 1] : 0;
    }
    return c->len;
}

static uint64_t set_key(uint64_t hash, uint32_t len) { return hp_mix64(hash ^ ((uint64_t)len * DS_SEED_PC)); }

static void set_put(ds_scratch *sc, uint32_t ci)
{
    uint32_t mask = sc->set_slots - 1, i = (uint32_t)set_key(sc->cand[ci].hash, sc->cand[ci].len) & mask;
    while (sc->set[i]) i = (i + 1) & mask;
    sc->set[i] = ci + 1;
}

/* Candidate index with this (hash, len), or -1. */
static int64_t set_get(const ds_scratch *sc, uint64_t hash, uint32_t len)
{
    uint32_t mask = sc->set_slots - 1;
    for (uint32_t i = (uint32_t)set_key(hash, len) & mask;; i = (i + 1) & mask) {
        uint32_t v = sc->set[i];
        if (!v) return -1;
        const ds_cand *c = &sc->cand[v - 1];
        if (c->hash == hash && c->len == len) return v - 1;
    }
}

static void hash_candidates(const hp_ds_state *s, ds_scratch *sc, uint32_t ncand)
{
    uint64_t addr[HP_DS_MAX_STREAM], pc[HP_DS_MAX_STREAM];
    for (uint32_t i = 0; i < ncand; i++) {
        uint32_t len = materialize(s, sc, &sc->cand[i], addr, pc);
        sc->cand[i].hash = raw_hash(s, addr, s->cfg.with_pc ? pc : NULL, len);
    }
}

/* Equal sequences found at several window lengths: keep the one from the longest window (its
 * windows occur least often elsewhere, so its frequency is the tightest). */
static int better_duplicate(const ds_cand *a, const ds_cand *b)
{
    if (a->level != b->level) return a->level > b->level;
    return a->heat > b->heat;
}

static void drop_duplicates(ds_scratch *sc, uint32_t ncand)
{
    memset(sc->set, 0, (size_t)sc->set_slots * 4);
    for (uint32_t i = 0; i < ncand; i++) {
        int64_t j = set_get(sc, sc->cand[i].hash, sc->cand[i].len);
        if (j < 0) {
            set_put(sc, i);
            continue;
        }
        ds_cand *kept = &sc->cand[j], *now = &sc->cand[i];
        if (!better_duplicate(now, kept)) {
            now->dropped = 1;
            continue;
        }
        ds_cand tmp = *kept;
        *kept = *now; /* the set points at j: keep the better one there */
        *now = tmp;
        now->dropped = 1;
    }
}

/* Drops every candidate that is a proper substring of d, when d is at least as hot. */
static void suppress_inside(const hp_ds_state *s, ds_scratch *sc, uint32_t d)
{
    uint64_t addr[HP_DS_MAX_STREAM], pc[HP_DS_MAX_STREAM];
    uint32_t len = materialize(s, sc, &sc->cand[d], addr, pc);
    sc->pre[0] = 0;
    for (uint32_t i = 0; i < len; i++) sc->pre[i + 1] = sc->pre[i] * DS_POLY_BASE + element(s, addr[i], pc[i]);
    uint64_t pw = DS_POLY_BASE; /* B^l: multiplied once more before each use */
    for (uint32_t l = 2; l < len; l++) {
        pw *= DS_POLY_BASE;
        for (uint32_t i = 0; i + l <= len; i++) {
            int64_t c = set_get(sc, sc->pre[i + l] - sc->pre[i] * pw, l);
            if (c >= 0 && (uint32_t)c != d && sc->cand[c].heat <= sc->cand[d].heat) sc->cand[c].dropped = 1;
        }
    }
}

static void suppress_contained(const hp_ds_state *s, ds_scratch *sc, uint32_t ncand)
{
    for (uint32_t d = 0; d < ncand; d++)
        if (!sc->cand[d].dropped) suppress_inside(s, sc, d);
}

static void write_stream(const hp_ds_state *s, const ds_scratch *sc, const ds_cand *c, hp_ds_stream *out)
{
    memset(out, 0, sizeof *out);
    out->len = materialize(s, sc, c, out->addr, out->pc);
    out->truncated = c->truncated;
    out->window = s->levels[c->level].len;
    out->freq = c->freq, out->err = c->err, out->heat = c->heat;
}

size_t hp_ds_hot(hp_ds_state *s, hp_ds_stream *out, size_t max)
{
    ds_scratch sc = scratch_of(s);
    uint32_t ncand = 0, nchain = 0, nkept = 0;
    for (uint32_t level = 0; level < s->nlevels; level++) chain_level(s, level, &sc, &ncand, &nchain);
    hash_candidates(s, &sc, ncand);
    drop_duplicates(&sc, ncand);
    suppress_contained(s, &sc, ncand);
    for (uint32_t i = 0; i < ncand; i++) {
        const ds_cand *c = &sc.cand[i];
        if (c->dropped) continue;
        uint64_t tie = ((uint64_t)(HP_DS_MAX_STREAM - c->len) << 32) | i; /* longer first, then found first */
        sc.order[nkept++] = (hp_metric_item){tie, (double)c->heat};
    }
    hp_metric_sort_by_weight(sc.order, nkept);
    size_t n = nkept < max ? nkept : max;
    for (size_t i = 0; i < n; i++) write_stream(s, &sc, &sc.cand[(uint32_t)sc.order[i].key], &out[i]);
    return n;
}

void hp_ds_set_min_heat(hp_ds_state *s, uint64_t min_heat) { s->cfg.min_heat = min_heat; }

size_t hp_ds_windows(const hp_ds_state *s, uint32_t window)
{
    hp_estimate e;
    size_t n = 0;
    for (uint32_t i = 0; i < s->nlevels; i++) {
        const hp_ds_level *lv = &s->levels[i];
        if (lv->len != window) continue;
        for (uint32_t p = 0; p < lv->pool_n; p++)
            if (hp_spacesaving_query(lv->ss, lv->ex_key[p], &e) && e.lower >= s->cfg.min_freq) n++;
    }
    return n;
}

/* ---- merge ---- */

static int same_shape(const hp_ds_config *a, const hp_ds_config *b)
{
    return a->min_window == b->min_window && a->max_window == b->max_window && a->counters == b->counters &&
           a->with_pc == b->with_pc && a->min_freq == b->min_freq && a->seed == b->seed;
}

static int merge_level(hp_ds_level *dst, const hp_ds_level *src)
{
    hp_estimate e;
    if (hp_spacesaving_merge(dst->ss, src->ss)) return -1;
    for (uint32_t p = 0; p < src->pool_n; p++)
        if (hp_spacesaving_query(dst->ss, src->ex_key[p], &e))
            pool_add(dst, src->ex_key[p], ex_addr(src, p), ex_pc(src, p));
    dst->windows += src->windows;
    return 0;
}

int hp_ds_merge(hp_ds_state *dst, const hp_ds_state *src)
{
    if (!dst || !src || dst == src || !same_shape(&dst->cfg, &src->cfg)) return -1;
    for (uint32_t i = 0; i < dst->nlevels; i++)
        if (merge_level(&dst->levels[i], &src->levels[i])) return -1;
    dst->refs_seen += src->refs_seen;
    dst->bursts += src->bursts;
    return 0;
}

/* ---- serialization ---- */

#define DS_HEADER_BYTES (4 + 4 + 6 * 4 + 4 * 8)

static size_t exemplar_bytes(const hp_ds_state *s, const hp_ds_level *lv)
{
    return 8 + (size_t)lv->len * 8 * (1 + s->cfg.with_pc);
}

size_t hp_ds_serialized_size(const hp_ds_state *s)
{
    size_t n = DS_HEADER_BYTES + 4;
    for (uint32_t i = 0; i < s->nlevels; i++) {
        const hp_ds_level *lv = &s->levels[i];
        n += 8 + 4 + hp_spacesaving_serialized_size(lv->ss) + 4;
        n += (size_t)hp_spacesaving_size(lv->ss) * exemplar_bytes(s, lv);
    }
    return n;
}

static void put_header(hp_wbuf *w, const hp_ds_state *s)
{
    const hp_ds_config *c = &s->cfg;
    hp_put_u32(w, DS_MAGIC);
    hp_put_u32(w, HP_DS_VERSION);
    hp_put_u32(w, c->trace_cap), hp_put_u32(w, c->min_window), hp_put_u32(w, c->max_window);
    hp_put_u32(w, c->counters), hp_put_u32(w, c->with_pc), hp_put_u32(w, c->min_freq);
    hp_put_u64(w, c->min_heat), hp_put_u64(w, c->seed), hp_put_u64(w, s->refs_seen), hp_put_u64(w, s->bursts);
}

static void put_level(hp_wbuf *w, const hp_ds_level *lv)
{
    hp_estimate e;
    size_t ss_len = hp_spacesaving_serialized_size(lv->ss);
    hp_put_u64(w, lv->windows);
    hp_put_u32(w, (uint32_t)ss_len);
    if (w->ok && w->cap - w->len >= ss_len) w->len += hp_spacesaving_serialize(lv->ss, w->p + w->len, ss_len);
    else w->ok = 0;
    hp_put_u32(w, hp_spacesaving_size(lv->ss));
    for (uint32_t p = 0; p < lv->pool_n; p++) {
        if (!hp_spacesaving_query(lv->ss, lv->ex_key[p], &e)) continue;
        hp_put_u64(w, lv->ex_key[p]);
        for (uint32_t i = 0; i < lv->len; i++) hp_put_u64(w, ex_addr(lv, p)[i]);
        for (uint32_t i = 0; lv->ex_pc && i < lv->len; i++) hp_put_u64(w, ex_pc(lv, p)[i]);
    }
}

size_t hp_ds_serialize(const hp_ds_state *s, void *buf, size_t cap)
{
    size_t need = hp_ds_serialized_size(s);
    if (!buf || cap < need) return 0;
    hp_wbuf w = hp_wbuf_make(buf, need);
    put_header(&w, s);
    for (uint32_t i = 0; i < s->nlevels; i++) put_level(&w, &s->levels[i]);
    hp_put_u32(&w, hp_crc32(0, buf, w.len));
    return w.ok && w.len == need ? need : 0;
}

static int get_header(hp_rbuf *r, hp_ds_config *c, uint64_t *refs, uint64_t *bursts)
{
    if (hp_get_u32(r) != DS_MAGIC || hp_get_u32(r) != HP_DS_VERSION) return -1;
    c->trace_cap = hp_get_u32(r), c->min_window = hp_get_u32(r), c->max_window = hp_get_u32(r);
    c->counters = hp_get_u32(r), c->with_pc = hp_get_u32(r), c->min_freq = hp_get_u32(r);
    c->min_heat = hp_get_u64(r), c->seed = hp_get_u64(r);
    *refs = hp_get_u64(r), *bursts = hp_get_u64(r);
    return r->ok && !hp_ds_config_check(c) ? 0 : -1;
}

static int get_exemplar(const hp_ds_state *s, hp_ds_level *lv, hp_rbuf *r)
{
    uint64_t addr[HP_DS_MAX_WINDOW], pc[HP_DS_MAX_WINDOW] = {0};
    hp_estimate e;
    uint64_t key = hp_get_u64(r);
    for (uint32_t i = 0; i < lv->len; i++) addr[i] = hp_get_u64(r);
    for (uint32_t i = 0; lv->ex_pc && i < lv->len; i++) pc[i] = hp_get_u64(r);
    if (!r->ok || window_key(raw_hash(s, addr, lv->ex_pc ? pc : NULL, lv->len), lv->len) != key) return -1;
    if (!hp_spacesaving_query(lv->ss, key, &e) || pool_find(lv, key) >= 0) return -1;
    pool_add(lv, key, addr, lv->ex_pc ? pc : NULL);
    return 0;
}

static int get_level(const hp_ds_state *s, hp_ds_level *lv, hp_rbuf *r)
{
    lv->windows = hp_get_u64(r);
    uint32_t ss_len = hp_get_u32(r);
    const uint8_t *blob = hp_get_bytes(r, ss_len);
    if (!blob) return -1;
    lv->ss = hp_spacesaving_deserialize(lv->ss_mem, lv->ss_bytes, blob, ss_len);
    if (!lv->ss || hp_spacesaving_capacity(lv->ss) != lv->m) return -1;
    uint32_t n = hp_get_u32(r);
    if (!r->ok || n != hp_spacesaving_size(lv->ss)) return -1;
    if (hp_rbuf_left(r) / exemplar_bytes(s, lv) < n) return -1;
    for (uint32_t i = 0; i < n; i++)
        if (get_exemplar(s, lv, r)) return -1;
    return 0;
}

int hp_ds_peek_config(const void *buf, size_t len, hp_ds_config *out)
{
    uint64_t refs, bursts;
    if (!buf || len < DS_HEADER_BYTES + 4) return -1;
    hp_rbuf r = hp_rbuf_make(buf, DS_HEADER_BYTES);
    return get_header(&r, out, &refs, &bursts);
}

hp_ds_state *hp_ds_deserialize(void *mem, size_t budget, const void *buf, size_t len)
{
    hp_ds_config c;
    uint64_t refs, bursts;
    if (!buf || len < DS_HEADER_BYTES + 4) return NULL;
    hp_rbuf crc_r = hp_rbuf_make((const uint8_t *)buf + len - 4, 4);
    if (hp_get_u32(&crc_r) != hp_crc32(0, buf, len - 4)) return NULL;
    hp_rbuf r = hp_rbuf_make(buf, len - 4);
    if (get_header(&r, &c, &refs, &bursts)) return NULL;
    hp_ds_state *s = hp_ds_init(mem, budget, &c);
    if (!s) return NULL;
    for (uint32_t i = 0; i < s->nlevels; i++)
        if (get_level(s, &s->levels[i], &r)) return NULL;
    if (hp_rbuf_left(&r) != 0) return NULL;
    s->refs_seen = refs, s->bursts = bursts;
    return s;
}

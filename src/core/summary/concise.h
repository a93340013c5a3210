/* concise.h — Gibbons–Matias concise samples: a bounded uniform sample kept as (key, count) pairs.
 *
 * Every occurrence of every key is kept in the sample with probability 1/tau (tau starts at 1,
 * so a list that never filled is exact). Occurrences to skip are drawn as geometric skips, so an
 * update that is not sampled costs a decrement and no lookup. A sampled key already held gets
 * count+1, else a new entry with count 1. When more than N entries would be held, tau is raised to
 * tau*f and each count is thinned by binomial(count, 1/f), dropping zeros, until at most N remain.
 * Estimate = count * tau (unbiased). Interval: the count of a key seen t times is
 *   Binomial(t, 1/tau), taken as Poisson(t/tau); [lower, upper] = tau * the two-sided z = 3 Poisson
 *   confidence limits for that mean (Wilson–Hilferty form of Garwood's exact limits), clipped to
 *   [count, total]. For any fixed key it holds with probability >= 99.7% (each side misses with
 *   probability <= 0.135%); lower >= count and upper <= total are certain.
 * Parameters: N (entries; from the budget, or explicit — DCPI's per-PC value lists use N = 16) and
 * f (default max(N/(N-1), 1.05); DCPI uses N/(N-1) = 16/15).
 *
 * Also here: hp_gm_list, the (key, count) list with a hash index that concise and counting
 * samples share. It must be the last member of its owner: its arrays follow it in memory. And
 * their shared serialized form (hp_gm_header, hp_gm_write, hp_gm_read_header/_entries).
 */
#ifndef HOTPROF_CORE_CONCISE_H
#define HOTPROF_CORE_CONCISE_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/bytes.h"
#include "core/summary/exact.h"
#include "core/base/hash.h"
#include "core/base/rng.h"
#include "core/summary/summary.h"

/* ---- shared list: entries[0..n) dense, index slots hold entry+1 (0 = empty) ---- */

typedef struct hp_gm_entry { uint64_t key, count; } hp_gm_entry;
typedef struct hp_gm_list {
    uint32_t cap;    /* N: at most N entries between updates, N+1 while one is being added */
    uint32_t n;      /* entries held */
    uint32_t nslots; /* index size: 2 * (cap + 1), so the index is at most half full */
    uint32_t pad;
} hp_gm_list;

#define HP_GM_MIN_CAP 2u
#define HP_GM_MAX_CAP (1u << 28)
#define HP_GM_MAX_TAU 1e300 /* past this (only hostile input gets there) thinning empties the list */

size_t hp_gm_list_bytes(uint32_t cap); /* list header + arrays */
uint32_t hp_gm_list_cap_for(size_t bytes); /* largest cap whose list fits in bytes, 0 if none */
void hp_gm_list_init(hp_gm_list *l, uint32_t cap);
static inline hp_gm_entry *hp_gm_list_entries(const hp_gm_list *l) { return (hp_gm_entry *)(l + 1); }
static inline uint32_t *hp_gm_list_index(const hp_gm_list *l) { return (uint32_t *)(hp_gm_list_entries(l) + l->cap + 1); }
/* The index slot that holds key, or the empty slot where it would go. */
static inline uint32_t *hp_gm_list_slot(const hp_gm_list *l, uint64_t key)
{
    const hp_gm_entry *e = hp_gm_list_entries(l);
    uint32_t *idx = hp_gm_list_index(l);
    uint32_t i = (uint32_t)(((__uint128_t)hp_mix64_xmx(key) * l->nslots) >> 64);
    while (idx[i] != 0 && e[idx[i] - 1].key != key)
        if (++i == l->nslots) i = 0;
    return &idx[i];
}
/* The entry holding key, or NULL. */
static inline hp_gm_entry *hp_gm_list_find(const hp_gm_list *l, uint64_t key)
{
    uint32_t s = *hp_gm_list_slot(l, key);
    return s ? &hp_gm_list_entries(l)[s - 1] : NULL;
}
/* Appends key (which must be absent) with count; the caller keeps n <= cap + 1. */
hp_gm_entry *hp_gm_list_add(hp_gm_list *l, uint64_t key, uint64_t count);
/* Removes entries whose count is 0 and rebuilds the index. */
void hp_gm_list_compact(hp_gm_list *l);
/* The next threshold tau * f, capped at HP_GM_MAX_TAU. */
double hp_gm_next_tau(double tau, double f);
/* Default growth factor for a list of N entries: max(N/(N-1), 1.05). */
double hp_gm_default_factor(uint32_t cap);
/* Validates parameters read from untrusted input. */
int hp_gm_params_ok(uint32_t cap, double f, double tau);
/* The serialized form both samples share:
 *   u32 kind, u32 version, u32 N, u32 word, f64 f, f64 tau, u64 total, u64 skip, 4 x u64 rng,
 *   u64 n, n x (u64 key, u64 count)  (doubles as their IEEE-754 bits; `word` is the owner's). */
typedef struct hp_gm_header {
    uint32_t kind, version, cap, word;
    double f, tau;
    uint64_t total, skip;
    hp_rng rng;
    uint64_t n;
} hp_gm_header;
#define HP_GM_HEADER_BYTES (4 * 4 + 8 * 9)
/* Writes h (with h->cap and h->n taken from l) and then l's entries. */
void hp_gm_write(hp_wbuf *w, const hp_gm_header *h, const hp_gm_list *l);
/* Reads a header; 1 if it was read whole, hp_gm_params_ok(cap, f, tau), the rng state is not all
 * zero, n <= cap and exactly n entries follow (kind, version and word are the caller's to check). */
int hp_gm_read_header(hp_rbuf *r, hp_gm_header *h);
/* Reads n entries into l (empty, cap >= n); 0 on a zero count, a duplicate key, or a sample
 * larger than the stream (sum of counts > total). */
int hp_gm_read_entries(hp_gm_list *l, hp_rbuf *r, uint64_t n, uint64_t total);
/* The z = 3 Poisson interval for `count` samples at threshold tau, clipped to [count, total]. */
void hp_concise_interval(uint64_t count, double tau, uint64_t total, hp_estimate *out);
uint64_t hp_round_estimate(double x); /* rounds, saturating at UINT64_MAX */

/* ---- concise samples ---- */

typedef struct hp_concise hp_concise;
extern const hp_summary_vt hp_concise_vt;

#define HP_CONCISE_VERSION 1u
#define HP_CONCISE_DEFAULT_N 16u
#define HP_CONCISE_Z 3.0

/* N from the budget, default f. */
hp_concise *hp_concise_init(void *mem, size_t budget, uint64_t seed);
/* Explicit N (0: from the budget) and f (0: default). NULL if it does not fit or f <= 1. */
hp_concise *hp_concise_init_ex(void *mem, size_t budget, uint32_t n, double f, uint64_t seed);
size_t hp_concise_bytes_for(uint32_t n);
void hp_concise_update(hp_concise *c, uint64_t key, uint64_t weight);
int hp_concise_query(const hp_concise *c, uint64_t key, hp_estimate *out);
size_t hp_concise_topk(const hp_concise *c, hp_estimate *out, size_t k);
/* Samples of both at the larger tau, then thinned until they fit dst's N. -1 if dst == src. */
int hp_concise_merge(hp_concise *dst, const hp_concise *src);
size_t hp_concise_serialized_size(const hp_concise *c);
size_t hp_concise_serialize(const hp_concise *c, void *buf, size_t cap);
hp_concise *hp_concise_deserialize(void *mem, size_t budget, const void *buf, size_t len);
size_t hp_concise_bytes_used(const hp_concise *c);
uint64_t hp_concise_total(const hp_concise *c);
double hp_concise_tau(const hp_concise *c);
uint32_t hp_concise_capacity(const hp_concise *c); /* N */
uint64_t hp_concise_sample_size(const hp_concise *c); /* sum of counts */

#endif

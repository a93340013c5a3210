/* osp.h — the OSP controller's arithmetic (online subpath profiling,
 * osp-online-subpath-profiling.txt: Figure 2.1, §2.2-2.4, §4.6, §5.1): its settings, the length
 * laws, the skip draws and their adaptation, the weight=cost acceptance, the per-thread sampler
 * (skip, then record one subpath), the exhaustive subpath counter (the ground truth) and the floor
 * of the gaps that patched windows time (hp_osp_gap_floor).
 *
 * Sampler (Figure 2.1): a thread skips `skip` blocks (geometric, mean f), then records the next
 * L blocks (L drawn from the length law), hands the subpath over, and draws the next skip. The
 * starts form a renewal process whose cycle is skip + L, independent of the blocks' ids, so a
 * block position starts a sample with long-run probability 1 / (f + E[L]), and a sample has
 * length L with probability p(L). A sample therefore stands for f + E[L] positions of its length
 * class: its weight is hp_osp_sample_weight = f + E[L] (the mean cycle), and
 *   E[sum of weights of the samples of subpath s] = executions(s) * p(L_s),
 * so weight / p_length is an unbiased estimate of executions(s) (asymptotically: the first cycle
 * has no preceding L). A changing f keeps it unbiased as each sample carries the f it was drawn with.
 *
 * Length laws (p(L) for 2 <= L <= maxlen):
 *   pow2      P(2^n) = 2^-n / Z, n = 1..log2(maxlen)            (Z renormalizes: 1 - 1/maxlen)
 *   uniform   P(2^n) = 1 / log2(maxlen)
 *   any       P(L) = (1/L) / Z for every L in 2..maxlen           (the paper's §4.6)
 *   pow2+3+5  the pow2 weights plus w(3) = 2^-2 and w(5) = 2^-3 (the weights of 4 and 8), all / Z
 * f adaptation (§2.3.4): f = max(minf, minf x tau): the skip mean grows with the hot-list's
 * threshold tau (hp_osp_list, core/summary/osplist.h) as it fills, so that the rate of samples
 * offered to a full list drops with the rate it keeps.
 * weight=cost (§5.1.2): a subpath of mean block cost beta_p (bytes of code per block) among blocks
 * of cost at most beta_m is kept with probability beta_p / beta_m (hp_osp_cost_accept); its
 * record's p_length is p(L) x that probability, so estimates stay unbiased.
 *
 * Exhaustive counter: fed one guard id at a time, it keeps the last maxlen ids in a ring and, for
 * each 2^n <= maxlen that fits in the ids seen so far, reports the subpath of length 2^n ending
 * at this block (its key under the encoding of core/ptype/subpath.h).
 *
 * Pure C11, no allocation: every state is the caller's struct.
 */
#ifndef HOTPROF_CORE_CONTROL_OSP_H
#define HOTPROF_CORE_CONTROL_OSP_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/rng.h"

enum hp_osp_law { HP_OSP_LEN_POW2 = 0, HP_OSP_LEN_UNIFORM = 1, HP_OSP_LEN_ANY = 2, HP_OSP_LEN_POW2_3_5 = 3 };
enum hp_osp_weight { HP_OSP_W_COUNT = 0, HP_OSP_W_LENGTH = 1, HP_OSP_W_COST = 2 };
/* The hot-list's admission rule (core/summary/osplist.h). */
enum hp_osp_list_rule { HP_OSP_LIST_COUNTING = 0, HP_OSP_LIST_CONCISE = 1 };

#define HP_OSP_MAXLEN 1024u        /* = HP_SUBPATH_MAX_LENGTH (core/format/format.h) */
#define HP_OSP_DEFAULT_MEM 65536u
#define HP_OSP_MIN_MEM 1024u
#define HP_OSP_MAX_MEM (1u << 30)
#define HP_OSP_DEFAULT_MAXLEN 32u
#define HP_OSP_DEFAULT_MAXLEN_ANY 1024u
#define HP_OSP_DEFAULT_MINF 64u
#define HP_OSP_MAX_MINF (1u << 30)
#define HP_OSP_COST_CAP 64u        /* weight=cost: a block's cost in code bytes is capped here */

/* The `subpath` clause of a sampling spec (core/control/spec.h). */
typedef struct hp_osp_params {
    uint32_t enabled;
    uint32_t mem;      /* hot-list budget, bytes */
    uint32_t law;      /* enum hp_osp_law */
    uint32_t maxlen;
    uint32_t enc;      /* enum hp_subpath_enc (core/ptype/subpath.h) */
    uint32_t minf;     /* smallest mean skip, blocks */
    uint32_t weight;   /* enum hp_osp_weight */
    uint32_t skiponly; /* 1: skip but never record (measures the skipping overhead) */
    uint32_t list;     /* enum hp_osp_list_rule */
    uint32_t prefixes; /* 1: each sample also offers its shorter prefixes (hp_osp_prefix_next) */
} hp_osp_params;

/* The defaults (disabled). */
void hp_osp_params_default(hp_osp_params *p);

/* A length law prepared once: its normalization and mean. */
typedef struct hp_osp_lawp {
    uint32_t law, maxlen;
    double z;     /* sum of the unnormalized weights */
    double mean;  /* E[L] */
} hp_osp_lawp;

void hp_osp_law_init(hp_osp_lawp *l, uint32_t law, uint32_t maxlen);
/* P(L) under the law (0 for a length it never draws). */
double hp_osp_p_length(const hp_osp_lawp *l, uint32_t length);
/* prefixes=on, one prefix at a time: the next length after prev (0 to start) that a sample of
 * length L offers, every length <= L the law draws, ascending, with P(length drawn >= it) in
 * *tail; 0 when none is left.
 * A block position where a sample starts is counted for its subpath of length l exactly when the
 * drawn L >= l, so weight / P(L >= l) stays unbiased, and each subpath gets P(L >= l) / P(L = l)
 * times the samples (pow2, maxlen 32: 1.9x for length 2, 1.75x for 8), for ~1.9 list offers per
 * sample and no more blocks recorded. */
uint32_t hp_osp_prefix_next(const hp_osp_lawp *l, uint32_t L, uint32_t prev, double *tail);
/* One length drawn from the law. */
uint32_t hp_osp_draw_length(const hp_osp_lawp *l, hp_rng *r);
/* A skip: geometric number of blocks with mean f (f >= 0; 0 -> 0). */
uint64_t hp_osp_draw_skip(hp_rng *r, double f);
/* The mean skip for the list's threshold tau (>= 1): max(minf, minf x tau). */
double hp_osp_f(uint32_t minf, double tau);
/* The mean skip under a list rule (enum hp_osp_list_rule) after `blocks` blocks of the thread:
 * concise, hp_osp_f (f follows tau, the paper's §2.3.4); counting, max(minf, blocks /
 * HP_OSP_SAMPLE_BUDGET) at any tau: every sample of a held key counts, so f need not follow the
 * list, and it grows with the run as the paper's initial f = n / (m x G) (Eq. 2.13) would be set
 * for a run of n blocks. A thread thus offers about HP_OSP_SAMPLE_BUDGET x ln(blocks / (minf x
 * HP_OSP_SAMPLE_BUDGET)) samples after its first minf x HP_OSP_SAMPLE_BUDGET blocks (~0.36 M
 * for 10^9 blocks): the sampling cost grows with the log of the run's length. */
#define HP_OSP_SAMPLE_BUDGET 65536.0
double hp_osp_f_rule(uint32_t minf, double tau, uint32_t list, double blocks);
/* What one sample stands for: f + E[L] (the mean cycle). */
static inline double hp_osp_sample_weight(const hp_osp_lawp *l, double f) { return f + l->mean; }
/* weight=cost: the acceptance probability beta_p / beta_m of a subpath whose blocks cost
 * cost[0..n) (each clipped to 1..cap), cap = beta_m. */
double hp_osp_cost_accept(const uint32_t *cost, size_t n, uint32_t cap);

/* The floor of a timer's gaps: gaps g[0..n) timed around no program code (TSC ticks), sorted in
 * place; returns the mean of those below 4 x their median (longer ones held an interrupt). A mean,
 * not the median: where the TSC advances in steps (21 ticks on the VM this was measured on), the
 * median is one of two steps run to run (42 or 63), while the mean of many gaps keeps the true
 * floor to a fraction of a step; a block's own time (gap - floor) can be less than one step. */
double hp_osp_gap_floor(uint64_t *g, size_t n);

/* ---- the per-thread sampler ---- */
typedef struct hp_osp_sampler {
    uint64_t skip;        /* blocks still to skip (0: recording) */
    uint32_t length;      /* length being recorded */
    uint32_t pos;         /* ids recorded so far */
    double f;             /* mean skip of the current cycle */
    hp_rng rng;
    uint32_t ids[HP_OSP_MAXLEN];
} hp_osp_sampler;

void hp_osp_sampler_init(hp_osp_sampler *s, uint64_t seed, double f, const hp_osp_lawp *l);
/* One block. Returns 1 when ids[0..length) holds a complete subpath (then the caller reads it
 * and calls hp_osp_sampler_next), else 0. */
static inline int hp_osp_sampler_block(hp_osp_sampler *s, uint32_t id)
{
    if (s->skip) { s->skip--; return 0; }
    s->ids[s->pos++] = id;
    return s->pos == s->length;
}
/* After a complete subpath (or to restart): draws the next skip (mean f) and length. */
void hp_osp_sampler_next(hp_osp_sampler *s, double f, const hp_osp_lawp *l);

/* ---- the exhaustive counter ---- */
#define HP_OSP_EXACT_MAX_WINDOWS 10 /* lengths 2, 4, ..., 1024 */
#define HP_OSP_RING (2 * HP_OSP_MAXLEN) /* > maxlen: prefix i - maxlen is still held */
typedef struct hp_osp_exact {
    uint32_t maxlen, enc;
    uint64_t seen;                   /* ids pushed */
    uint32_t ring[HP_OSP_RING];      /* id of block i at ring[i % HP_OSP_RING] */
    uint64_t pfx[HP_OSP_RING];       /* xor of hp_mix64 of ids 0..i at pfx[i % HP_OSP_RING] */
} hp_osp_exact;

typedef struct hp_osp_window { uint64_t key; uint32_t length, pad; } hp_osp_window;

void hp_osp_exact_init(hp_osp_exact *x, uint32_t maxlen, uint32_t enc);
/* Pushes one id; out[] gets the subpaths (length 2^n <= min(maxlen, seen)) ending here, shortest
 * first; returns how many. */
int hp_osp_exact_push(hp_osp_exact *x, uint32_t id, hp_osp_window out[HP_OSP_EXACT_MAX_WINDOWS]);
/* The last `length` ids pushed, first first, into out (canonical rotation with enc=exact). */
void hp_osp_exact_seq(const hp_osp_exact *x, uint32_t length, uint32_t *out);

#endif

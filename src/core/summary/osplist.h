/* osplist.h — OSP's hot-list of weighted subpaths within a memory budget, keeping each entry's
 * block sequence (osp-online-subpath-profiling.txt §2.3; core/control/osp.h says what a sample's
 * weight is). Two admission rules (Gibbons–Matias, SIGMOD 1998; hp_osp_list_init's `counting`):
 *
 * Concise samples (the paper's §2.3.4). Threshold tau (1 at first): a sample offered is admitted
 * with probability 1/tau and then carries weight x tau. An admitted sample of a key held adds 1 to
 * its count and its weight; a new key takes an entry and stores its sequence. When the entries or
 * the sequence arena would overflow the list thins: tau' = 2 tau, each entry's count c becomes
 * c' ~ Binomial(c, tau/tau') and its weight is multiplied by (c'/c) x (tau'/tau); entries
 * reaching 0 are dropped and the arena is compacted. Each step keeps E[weight] unchanged, so
 * weight / p_length stays an unbiased estimate of the subpath's executions.
 *
 * Counting samples. A sample of a key held is always counted (count += 1, weight += its weight,
 * unscaled); a key not held is admitted with probability 1/tau. The samples a key missed before
 * its admission are, for a key offered many more than tau times, tau - 1 in expectation (a
 * geometric wait): the entry's admission term w_adm = (tau - 1) x the admitting sample's weight
 * (samples' weights change over a run — f grows — and the misses came just before it), and
 * hp_osp_list_weight = weight + w_adm. Thinning to tau' = 2 tau drops an entry with the
 * probability that Gibbons–Matias' coin procedure would take its count to 0, (1 - tau/tau') x
 * (1 - 1/tau')^(c - 1), so the list frees as much room as theirs; a survivor keeps its count
 * and has its weight and admission term divided by its survival probability (Horvitz–Thompson:
 * E[estimate] unchanged). Their procedure also takes ~tau' - tau counts off every survivor and
 * adds them back as (tau' - 1) x a weight: for a hot key that random loss was the largest error
 * left (lexgen, tau 512: ~1% of the hottest subpath's ~25 000 counts); here a key admitted at a
 * small tau keeps it for good. Unbiased for keys offered many more than tau times (at admission);
 * a key offered about tau times or less is over-estimated by up to its admission term. A hot key
 * counts tau times as many samples as under concise samples: its relative error shrinks by sqrt(tau).
 *
 * Memory: one caller-provided block of `bytes` holds the struct, the entries, the index (2 slots
 * per entry) and the arena of sequences (u32 guard ids): entries = bytes / HP_OSP_BYTES_PER_ENTRY
 * (an entry, its index slots and room for HP_OSP_AVG_SEQ ids), the arena takes the rest.
 * Collisions: a key held with a different length or (when the caller asks: enc=exact) a different
 * sequence is counted in `collisions` and the sample is dropped.
 *
 * Pure C11: no allocation, the randomness is the list's own rng (seeded by the caller).
 */
#ifndef HOTPROF_CORE_SUMMARY_OSPLIST_H
#define HOTPROF_CORE_SUMMARY_OSPLIST_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/rng.h"

#define HP_OSP_AVG_SEQ 16u
#define HP_OSP_NO_SEQ 0xffffffffu

typedef struct hp_osp_entry {
    uint64_t key, count;
    double weight, p_length;
    double w_adm;   /* counting: the admission term, (tau at admission - 1) x the admitting sample's
                     * weight, divided by the survival probability of each thinning since */
    uint32_t length;
    uint32_t seq;   /* arena offset of its `length` ids, HP_OSP_NO_SEQ if not kept */
} hp_osp_entry;

#define HP_OSP_BYTES_PER_ENTRY (sizeof(hp_osp_entry) + 2 * sizeof(uint32_t) + HP_OSP_AVG_SEQ * sizeof(uint32_t))

typedef struct hp_osp_list {
    uint32_t cap, n, nslots, arena_cap, arena_used, check_seq, counting, pad;
    double tau;
    uint64_t offered, admitted, thinnings, collisions, dropped_seq;
    hp_rng rng;
    hp_osp_entry *e;  /* [cap] */
    uint32_t *slot;   /* [nslots]: entry index + 1, 0 = empty */
    uint32_t *arena;  /* [arena_cap] */
} hp_osp_list;

/* Lays the list out in mem (bytes >= HP_OSP_MIN_LIST_BYTES); NULL if too small.
 * check_seq: 1 to compare sequences of equal keys (enc=exact). Concise samples. */
#define HP_OSP_MIN_LIST_BYTES 512u
hp_osp_list *hp_osp_list_init(void *mem, size_t bytes, uint64_t seed, int check_seq);
/* The same with the admission rule chosen: counting 1 = counting samples, 0 = concise. */
hp_osp_list *hp_osp_list_init_rule(void *mem, size_t bytes, uint64_t seed, int check_seq, int counting);
/* Offers one sample: concise, admitted with probability 1/tau (weight x tau); counting, always
 * counted when its key is held, else admitted with probability 1/tau. seq may be NULL. Returns 1
 * if counted and kept, 0 otherwise. */
int hp_osp_list_offer(hp_osp_list *l, uint64_t key, uint32_t length, const uint32_t *seq, double weight,
                      double p_length);
/* Adds without admission (exact counting: count += c, weight += w); 0 if it did not fit. */
int hp_osp_list_add(hp_osp_list *l, uint64_t key, uint32_t length, const uint32_t *seq, uint64_t c, double w,
                    double p_length);
/* The weight an entry stands for: its weight (concise), or its weight plus (tau - 1) x its mean
 * weight for the samples before its admission (counting). Estimate = this / p_length. */
double hp_osp_list_weight(const hp_osp_list *l, const hp_osp_entry *e);
/* The share of a counting-samples estimate that was counted: c / (c + tau - 1) (1 when tau <= 1
 * or c = 0). Reports rank by estimate x this (analysis/ptype/subpath.h). */
static inline double hp_osp_counted_share(uint64_t count, double tau)
{
    return tau > 1 && count ? (double)count / ((double)count + tau - 1) : 1;
}
/* The entry of key, or NULL. */
hp_osp_entry *hp_osp_list_find(const hp_osp_list *l, uint64_t key);
/* Its stored ids (NULL if none). */
static inline const uint32_t *hp_osp_list_seq(const hp_osp_list *l, const hp_osp_entry *e)
{
    return e->seq == HP_OSP_NO_SEQ ? NULL : l->arena + e->seq;
}
/* Bytes in use: struct + entries held + their index share + arena used. */
size_t hp_osp_list_bytes_used(const hp_osp_list *l);
/* Thins once (tau doubles); exposed for tests. */
void hp_osp_list_thin(hp_osp_list *l);

#endif

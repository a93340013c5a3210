/* counting.h — Gibbons–Matias counting samples (SIGMOD 1998): a hot-list whose held keys count
 * every later occurrence exactly.
 *
 * A key not held enters with probability 1/tau (tau starts at 1: until the list first fills,
 * everything is exact); the entering is decided with geometric skips over the occurrences of keys
 * not held. Once held, each occurrence adds 1. When more than N entries would be held, tau is raised
 * to tau' = tau*f and every count is thinned as GM describe: a first coin with heads probability
 * tau/tau'; on tails the count drops by 1 and further coins with heads probability 1/tau' are
 * flipped, each tails dropping 1 more, until heads or the count is 0; zero entries go. Repeated
 * until at most N entries remain. After this the list is distributed as if the whole stream had
 * been processed at tau', so for a key seen t times the count c satisfies t - c ~ min(t, Geom(1/tau)).
 *
 * Estimates: count = c + (0.418*tau - 1) for tau > 1 (GM's hot-list estimator; the unbiased one for
 * heavy keys would be c + tau - 1), lower = c (certain: every counted occurrence happened),
 * upper = c + P*m where m = ceil(ln(delta/P) / ln(1 - 1/tau)), delta = 0.001 and P = number of
 * merged parts (1 without merges): true <= upper with probability >= 1 - delta per key.
 * Parameters: N (entries; from the budget or explicit) and f (default max(N/(N-1), 1.05)).
 * Prefer counting samples when each update may do a lookup (cheap updates); concise samples when
 * the per-update cost must be a decrement (see docs/summaries.md).
 */
#ifndef HOTPROF_CORE_COUNTING_H
#define HOTPROF_CORE_COUNTING_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"

typedef struct hp_counting hp_counting;
extern const hp_summary_vt hp_counting_vt;

#define HP_COUNTING_VERSION 1u
#define HP_COUNTING_DELTA 0.001
#define HP_COUNTING_GM_FACTOR 0.418

hp_counting *hp_counting_init(void *mem, size_t budget, uint64_t seed);
/* Explicit N (0: from the budget) and f (0: default). */
hp_counting *hp_counting_init_ex(void *mem, size_t budget, uint32_t n, double f, uint64_t seed);
size_t hp_counting_bytes_for(uint32_t n);
void hp_counting_update(hp_counting *c, uint64_t key, uint64_t weight);
int hp_counting_query(const hp_counting *c, uint64_t key, hp_estimate *out);
size_t hp_counting_topk(const hp_counting *c, hp_estimate *out, size_t k);
/* Both lists brought to the larger tau by counting-sample thinning, counts added, then thinned
 * until they fit dst's N; the upper bound widens with the number of parts. -1 if dst == src. */
int hp_counting_merge(hp_counting *dst, const hp_counting *src);
size_t hp_counting_serialized_size(const hp_counting *c);
size_t hp_counting_serialize(const hp_counting *c, void *buf, size_t cap);
hp_counting *hp_counting_deserialize(void *mem, size_t budget, const void *buf, size_t len);
size_t hp_counting_bytes_used(const hp_counting *c);
uint64_t hp_counting_total(const hp_counting *c);
double hp_counting_tau(const hp_counting *c);
uint32_t hp_counting_capacity(const hp_counting *c);
/* Occurrences a key may have beyond its count, with probability >= 1 - delta (the P*m above). */
uint64_t hp_counting_slack(const hp_counting *c);

#endif

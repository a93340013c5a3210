/* spacesaving.h — Space-Saving (Metwally, Agrawal, El Abbadi 2005) on the stream-summary structure.
 *
 * m counters (key, count, err). A held key's update adds its weight. A new key takes a free
 * counter (count = weight, err = 0) or, when all m are used, the counter with the smallest count
 * min: its old key is forgotten, err = min, count = min + weight.
 * Guarantees (deterministic, every key): for a held key, count - err <= true <= count;
 * for a key not held, true <= min when the summary is full (0 otherwise). min <= total/m, so
 * every error is at most total/m; any key with true > total/m is held.
 * Estimates: count = count, lower = count - err, upper = count.
 *
 * Stream-summary, compact (spacesaving.c): the counters sit in one array sorted by count; a run of
 * equal counts is the paper's bucket. A weight-1 update swaps the counter with the last of its run
 * and adds 1: O(1) for the first (min) run, whose end is kept, O(log run length) for the others
 * (galloping search), no search for a counter alone in its run. A weight-w update passes one run per distinct count below count + w (at most
 * the number of distinct counts, <= m); profiles update mostly with weight 1. 28 bytes per counter
 * (key, count, err, index back-pointer) plus 4 index slots of 2 bytes (4 bytes above 65535
 * counters): 36 bytes per counter, so 16 KB holds 454 counters (72 bytes and 223 counters with linked buckets).
 *
 * Merge (same m; Agarwal et al. 2012, mergeable summaries, in the Space-Saving form): each key's
 * count and err become the sum over both sides, a side that does not hold the key contributing its
 * floor (its min if full, else 0) to both; the m largest counts are kept. All guarantees above
 * still hold for the result, and err <= min <= (sum of counts)/m still holds. Without merges the
 * sum of counts is the total; a merge adds at most m * (both floors) to it, so merging two
 * unmerged summaries gives errors <= 2 * (combined total) / m. O(m log m), no extra memory.
 */
#ifndef HOTPROF_CORE_SPACESAVING_H
#define HOTPROF_CORE_SPACESAVING_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"

typedef struct hp_spacesaving hp_spacesaving;
extern const hp_summary_vt hp_spacesaving_vt;

#define HP_SPACESAVING_VERSION 1u /* serialized form unchanged by the compact layout */
#define HP_SPACESAVING_MIN_M 2u
#define HP_SPACESAVING_MAX_M (1u << 28)

/* As many counters as fit in budget (at least 2); NULL if too small. */
hp_spacesaving *hp_spacesaving_init(void *mem, size_t budget);
/* Exactly m counters; NULL if they do not fit. */
hp_spacesaving *hp_spacesaving_init_m(void *mem, size_t budget, uint32_t m);
size_t hp_spacesaving_bytes_for(uint32_t m);
void hp_spacesaving_update(hp_spacesaving *s, uint64_t key, uint64_t weight);
int hp_spacesaving_query(const hp_spacesaving *s, uint64_t key, hp_estimate *out);
size_t hp_spacesaving_topk(const hp_spacesaving *s, hp_estimate *out, size_t k);
/* dst += src; -1 if dst == src or their m differ. */
int hp_spacesaving_merge(hp_spacesaving *dst, const hp_spacesaving *src);
size_t hp_spacesaving_serialized_size(const hp_spacesaving *s);
size_t hp_spacesaving_serialize(const hp_spacesaving *s, void *buf, size_t cap);
hp_spacesaving *hp_spacesaving_deserialize(void *mem, size_t budget, const void *buf, size_t len);
size_t hp_spacesaving_bytes_used(const hp_spacesaving *s);
uint64_t hp_spacesaving_total(const hp_spacesaving *s);
uint32_t hp_spacesaving_capacity(const hp_spacesaving *s); /* m */
uint32_t hp_spacesaving_size(const hp_spacesaving *s);     /* counters in use */
/* Upper bound on the true count of any key not held: the min count if full, else 0. */
uint64_t hp_spacesaving_floor(const hp_spacesaving *s);
/* Checks the stream-summary links and the index (for tests); 1 if consistent. */
int hp_spacesaving_check(const hp_spacesaving *s);

#endif

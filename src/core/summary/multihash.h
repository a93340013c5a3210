/* multihash.h — the interval multi-hash profiler ("Catching Accurate Profiles in Hardware",
 * Sections 5–6), in software.
 *
 * Execution is cut into intervals of `interval_length` events. A key (tuple) is a *candidate* of
 * an interval when it occurs at least T = ceil(t * interval_length) times in it (t = threshold
 * fraction, e.g. 0.01). Structures:
 *   - n hash tables splitting Z counters (Z/n each), counters saturating at 2^counter_bits - 1;
 *     table j indexes with its own hash: npc = flip(randomize_j(hi32)), nv = randomize_j(lo32),
 *     index = xorfold(npc ^ nv, ceil(log2(Z/n))) mod Z/n, where randomize_j replaces each byte
 *     through table j's random 256-entry byte table (a seeded permutation) and flip reverses
 *     the byte order. The key's high 32 bits play the paper's pc, the low 32 bits its value.
 *   - a fully associative accumulator of ceil(1/t) entries (key, count, state): at most 1/t keys
 *     can reach T in one interval, so it never needs to hold more candidates than that. A
 *     smaller accumulator (acc_entries) drops the promotions it has no room for.
 * Update: a key held in the accumulator increments its entry; with shielding it does not touch
 * the hash tables. Otherwise its n counters are incremented — all of them (C0), or with
 * conservative update only those equal to their minimum (C1). When all n counters are >= T the
 * key is promoted into the accumulator with count = that minimum (the hash tables' estimate),
 * taking an empty entry first, else a replaceable one; if none, the promotion is dropped.
 * With resetting (R1) the key's counters are set to 0 at promotion.
 * Interval end: the report is every accumulator entry with count >= T (sorted by count, highest
 * first); the hash tables are zeroed. With retaining, reported entries stay as *replaceable*
 * with count 0 (they still shield; one that reaches T again becomes non-replaceable), all others
 * are flushed; without retaining the accumulator is emptied.
 *
 * Invariants: every counter <= 2^counter_bits - 1; with counters not saturated and R0, each of a
 * key's counters is >= the number of its occurrences that reached the tables this interval (C0
 * and C1 alike), so a true candidate is missed only if its promotion was dropped or it was
 * evicted as a replaceable entry (both counted in hp_multihash_stats), and a reported candidate's
 * count is >= its true count.
 * Area (bytes) = ceil((counter_bits * Z + A * (64 + ceil(log2(L + 1)) + 2)) / 8), A the accumulator's entries:
 * counters, plus per accumulator entry a 64-bit tag, a counter able to reach L, 2 state bits.
 * Everything lives in the caller's buffer; no allocation, no globals.
 */
#ifndef HOTPROF_CORE_MULTIHASH_H
#define HOTPROF_CORE_MULTIHASH_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_multihash_params {
    uint32_t n_tables;       /* n >= 1 */
    uint32_t total_counters; /* Z >= n; each table has Z / n counters */
    uint32_t counter_bits;   /* 1..32; T must fit */
    double threshold;        /* t as a fraction of the interval, 0 < t <= 1 (paper: 0.01, 0.001) */
    uint64_t interval_length;
    int shield, retain, reset, conservative; /* booleans: shielding, retaining, R1, C1 */
    uint64_t seed;           /* random byte tables */
    int fast_hash;           /* 0: the paper's hash (above); 1: one multiply-xorshift mixer per table
                              * (core/base/hash.h hp_mix64 of key ^ a seeded 64-bit table seed, reduced
                              * by multiply-shift): 1 multiply chain instead of 8 byte lookups */
    uint32_t acc_entries;    /* 0: the paper's accumulator of ceil(1/t) entries; else A entries,
                              * 1 <= A <= ceil(1/t) (the "right-sized accumulator" variant: real
                              * intervals hold far fewer than 1/t candidates, docs/intervals.md) */
} hp_multihash_params;

typedef struct hp_multihash_candidate { uint64_t key, count; } hp_multihash_candidate;

typedef struct hp_multihash_stats {
    uint64_t interval;  /* index of the interval (0-based) */
    uint64_t events;    /* events in it */
    uint64_t promoted;  /* promotions into the accumulator */
    uint64_t dropped;   /* promotions refused: no empty or replaceable entry */
    uint64_t evicted;   /* replaceable (retained) entries overwritten by a promotion */
} hp_multihash_stats;

enum hp_multihash_acc_state { HP_MH_ABSENT = 0, HP_MH_ACTIVE = 1, HP_MH_REPLACEABLE = 2 };

typedef struct hp_multihash hp_multihash;

/* Derived sizes; 0 when the parameters are invalid. */
uint64_t hp_multihash_threshold_count(const hp_multihash_params *p); /* T */
uint32_t hp_multihash_acc_entries(const hp_multihash_params *p);     /* ceil(1/t), or acc_entries */
uint64_t hp_multihash_area_bytes(const hp_multihash_params *p);      /* the paper's hardware area */
size_t hp_multihash_bytes(const hp_multihash_params *p);             /* memory this model needs */
/* The rebalanced variants of a design (docs/intervals.md): the same n, bits, t, L and policies;
 * an accumulator of A = ceil(ceil(1/t) / acc_div) entries (real intervals hold far fewer
 * candidates than 1/t: Figure 5), and counters filling the rest of 1/area_div of the design's
 * area: Z = the largest multiple of n with Z * bits + A * entry bits <= area bits / area_div.
 * "rebalanced" is (2, 1): same area; "half" is (4, 2): half the area. Never larger than
 * area / area_div. 0, or -1 (invalid design or divisors, or no room for n counters). */
int hp_multihash_rebalance(const hp_multihash_params *design, uint32_t acc_div, uint32_t area_div, hp_multihash_params *out);
enum { HP_MH_VARIANT_PAPER = 0, HP_MH_VARIANT_REBALANCED = 1, HP_MH_VARIANT_HALF = 2 };
/* The divisors of a named variant (HP_MH_VARIANT_*): 0, or -1 for an unknown one. */
int hp_multihash_variant_divisors(int variant, uint32_t *acc_div, uint32_t *area_div);

hp_multihash *hp_multihash_init(void *mem, size_t budget, const hp_multihash_params *p);
/* Feeds one event; returns 1 when it completed an interval (a new report is ready), else 0. */
int hp_multihash_update(hp_multihash *mh, uint64_t key);
/* Ends the current interval now (e.g. at the end of the run); returns 1 if it held any events. */
int hp_multihash_end_interval(hp_multihash *mh);
/* Candidates of the last completed interval, highest count first; returns how many. */
size_t hp_multihash_report(const hp_multihash *mh, const hp_multihash_candidate **out);
/* Statistics of the last completed interval. */
hp_multihash_stats hp_multihash_last_stats(const hp_multihash *mh);
uint64_t hp_multihash_intervals(const hp_multihash *mh);
/* Statistics of the interval in progress (its promotions so far: a caller that sees `promoted`
 * grow across an update knows that update's key was promoted). */
hp_multihash_stats hp_multihash_running_stats(const hp_multihash *mh);

/* The 64-bit key of a tuple <a, b> (pc, value or branch pc, target): lo32(a) << 32 |
 * (lo32(b) ^ hi32(b)), so the hash sees the paper's (pc, value) halves. The one key of the
 * runtime's interval profiles and of `hotprof sim`, so both see the same key stream. */
static inline uint64_t hp_multihash_tuple_key(uint64_t a, uint64_t b)
{
    return (uint64_t)(uint32_t)a << 32 | (uint32_t)(b ^ (b >> 32));
}

/* Serialized form (little-endian, validated field by field; corrupt input -> NULL):
 * format id u32 (HP_MULTIHASH_FORMAT_ID), version u32, the parameters, the running and last
 * interval statistics, counters, accumulator entries, last report. A deserialized profiler
 * continues exactly where the serialized one stood. */
#define HP_MULTIHASH_FORMAT_ID 0x484d5048u /* "HPMH" */
size_t hp_multihash_serialized_size(const hp_multihash *mh);
size_t hp_multihash_serialize(const hp_multihash *mh, void *buf, size_t cap); /* 0 if cap too small */
hp_multihash *hp_multihash_deserialize(void *mem, size_t budget, const void *buf, size_t len);

/* Introspection for tests and the hardware model. */
uint32_t hp_multihash_index(const hp_multihash *mh, uint32_t table, uint64_t key);
uint32_t hp_multihash_counter(const hp_multihash *mh, uint32_t table, uint32_t index);
int hp_multihash_acc_state(const hp_multihash *mh, uint64_t key); /* enum hp_multihash_acc_state */
const hp_multihash_params *hp_multihash_get_params(const hp_multihash *mh);

#endif

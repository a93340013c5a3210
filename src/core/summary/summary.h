/* summary.h — the one interface every bounded summary (hot-list) implements.
 *
 * A summary keeps counts of 64-bit keys in memory the caller hands it: init() places the whole
 * state (header and tables) inside `mem[0..budget)` and never allocates; bytes_used() <= budget.
 * Each summary also has a typed API of its own (e.g. hp_spacesaving_*); this vtable lets tests,
 * benchmarks and the runtime treat them alike.
 *
 * Estimates: topk() and query() fill hp_estimate with the estimated count and an interval
 * [lower, upper] that contains the true count — always for deterministic summaries (Exact,
 * Space-Saving, Misra–Gries, Count-Min), and with the probability documented on the summary for
 * randomized ones (concise/counting samples, HeavyKeeper).
 *
 * Serialized form: little-endian, starts with the summary's kind id and a format version, and is
 * checked field by field on deserialize(); corrupt input returns NULL, never crashes.
 */
#ifndef HOTPROF_CORE_SUMMARY_H
#define HOTPROF_CORE_SUMMARY_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_estimate {
    uint64_t key;
    uint64_t count; /* the estimate */
    uint64_t lower; /* true count >= lower (see header comment for the guarantee) */
    uint64_t upper; /* true count <= upper */
} hp_estimate;

enum hp_summary_kind {
    HP_SUMMARY_EXACT = 1,
    HP_SUMMARY_CONCISE = 2,      /* Gibbons–Matias concise samples */
    HP_SUMMARY_COUNTING = 3,     /* Gibbons–Matias counting samples */
    HP_SUMMARY_SPACESAVING = 4,
    HP_SUMMARY_COUNTMIN_CU = 5,  /* Count-Min, conservative update, + top-k heap */
    HP_SUMMARY_MISRAGRIES = 6,
    HP_SUMMARY_HEAVYKEEPER = 7,
    HP_SUMMARY_VALUELIST_LLVM = 8,
    HP_SUMMARY_VALUELIST_GCC = 9,
    HP_SUMMARY_TNV = 10,
};

typedef struct hp_summary_vt {
    const char *name; /* short, lower case: "exact", "spacesaving", ... */
    uint32_t kind;    /* enum hp_summary_kind */
    /* Places the summary in mem[0..budget); NULL if the budget is too small. */
    void *(*init)(void *mem, size_t budget, uint64_t seed);
    void (*update)(void *s, uint64_t key, uint64_t weight);
    /* Writes up to k estimates, highest count first; returns how many. */
    size_t (*topk)(const void *s, hp_estimate *out, size_t k);
    /* Estimate for one key (count 0 and lower 0 when not held); returns 1 if held. */
    int (*query)(const void *s, uint64_t key, hp_estimate *out);
    /* dst += src (same kind and parameters); 0 on success, -1 if not possible. */
    int (*merge)(void *dst, const void *src);
    size_t (*serialized_size)(const void *s);
    /* Returns bytes written, 0 if cap is too small. */
    size_t (*serialize)(const void *s, void *buf, size_t cap);
    /* Rebuilds into mem[0..budget); NULL if buf is corrupt or does not fit. */
    void *(*deserialize)(void *mem, size_t budget, const void *buf, size_t len);
    size_t (*bytes_used)(const void *s);
    uint64_t (*total)(const void *s); /* total weight of all updates seen */
} hp_summary_vt;

/* Registry of all summaries (registry.c): NULL-terminated. */
extern const hp_summary_vt *const hp_summaries[];
const hp_summary_vt *hp_summary_find(const char *name);

#endif

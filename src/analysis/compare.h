/* compare.h — `hotprof compare A B`: the accuracy of profile A (sampled) against profile B
 * (exhaustive, the reference), per profile type, with the metrics of core/metrics/metrics.h.
 *
 * The rows compared are the *views* of the analysis profile types (src/analysis/ptype/, each
 * only when both profiles hold members of it), in the order of their `rank`: today methods (heat =
 * calls + back-edges), calls, call_pairs, edges, blocks. A view turns a profile into keyed items.
 *
 * Across builds (the program's build-id differs between A and B, HP_CMP_REBUILT_PROGRAM) addresses
 * do not match, so when the caller hands symbolizers (hp_cmp_opts.sym_a, sym_b) members are keyed
 * by their symbolized portable name instead (hp_rt_portable_name, as `hotprof diff` does; a call
 * pair by caller and callee name), through each view's collect_named; a view without one (blocks,
 * edges: no stable name) is left out and marked `skipped`. Two-version code (`hotprof cc
 * --hooks=dual-*`, docs/dual.md): a call site has one address in the clean copy and one in the
 * instrumented copy, and a count-triggered or patched run records the clean copy's where the
 * exhaustive reference records the instrumented one's; so when either profile carries dual sites
 * (hp_cmp_has_dual_sites) the site-keyed views (call pairs) are matched by caller function and
 * callee name (sites_by_function), the rest by address. hp_cmp_opts.match forces one way.
 * Otherwise, for one build:
 * Keys are module-relative so that two runs of one binary under ASLR agree: an address inside a
 * module becomes (hash of the module's file name, address - load bias); an address outside every
 * module keeps its raw value (counted in unmapped_a / unmapped_b: such keys rarely match); a block
 * the block map does not know is keyed by its guard id. A compound key mixes its parts. Keys are
 * 64-bit hashes, so two distinct members collide with probability about n^2 / 2^65 (negligible);
 * members that do collide are summed.
 *
 * Metrics per type (weights are counts; overlap is scale-invariant, so a sampled profile needs no
 * scaling): HPS overlap (HP_OVERLAP_PAPER, coverage 0.9: identical profiles score the share their
 * 90% prefix holds, printed as `max` = B against itself), the renormalized overlap (identical
 * profiles: 1.0), and top-k / top-100 precision, recall and Kendall tau-b with B as the exact set.
 *
 * Invariants: hp_compare never modifies its profiles and the result holds no pointer into them
 * (it owns no memory either: a result may be copied or freed as a plain struct).
 */
#ifndef HOTPROF_ANALYSIS_COMPARE_H
#define HOTPROF_ANALYSIS_COMPARE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/profile.h"
#include "analysis/symbolize.h"
#include "core/metrics/metrics.h"

#define HP_CMP_MAX_ROWS 16

#define HP_CMP_DEFAULT_K 10
#define HP_CMP_WIDE_K 100
#define HP_CMP_MAX_WARNINGS 16

/* One profile type, as keyed items (distinct keys, weight > 0, sorted by key). */
typedef struct hp_cmp_items { hp_metric_item *items; size_t n; double total; } hp_cmp_items;

/* Collecting items: a view adds (key, weight, mapped) for each member; weights 0 are dropped. */
typedef struct hp_cmp_sink { hp_metric_item *items; size_t n; size_t unmapped; } hp_cmp_sink;
void hp_cmp_sink_add(hp_cmp_sink *s, uint64_t key, uint64_t weight, int mapped);

/* One compare row of a profile type (its file in src/analysis/ptype/ defines it). */
typedef struct hp_cmp_view {
    const char *id;    /* JSON "type" */
    const char *title; /* text row title */
    int rank;          /* position among the rows (output order) */
    size_t (*size)(const hp_profile *p);               /* at most this many items */
    void (*collect)(const hp_profile *p, hp_cmp_sink *s);
    /* keyed by symbolized name (hp_cmp_name_key), for profiles of two builds; NULL: not then */
    void (*collect_named)(const hp_profile *p, hp_symbolizer *sym, hp_cmp_sink *s);
    /* 1: keyed by a call-site address (call pairs): on two-version code a site has one address per
     * copy, so such a view is matched by caller function (collect_named) when either profile is
     * of a dual build (hp_cmp_result.sites_by_function) */
    int site_keyed;
} hp_cmp_view;

typedef struct hp_cmp_row {
    const char *id;            /* the view's id: "methods", "calls", "call_pairs", "edges", "blocks" */
    const char *title;         /* "methods (heat)", ... */
    int in_a, in_b;            /* the profile holds members of this type */
    int skipped;               /* builds differ and the view has no names to match by */
    size_t n_a, n_b, n_common; /* distinct keys in A, in B, in both */
    double total_a, total_b;   /* sum of weights */
    double overlap;            /* hp_overlap, HP_OVERLAP_PAPER, coverage */
    double overlap_max;        /* B against itself: the paper overlap of identical profiles */
    double overlap_renorm;     /* hp_overlap, HP_OVERLAP_RENORMALIZED */
    hp_topk_agreement top_k;   /* k = opts.k */
    hp_topk_agreement top_wide;/* k = HP_CMP_WIDE_K */
} hp_cmp_row;

/* A profile type's own compare section (aptype.h compare_extra), for figures that keyed items
 * cannot express (ranks, bounds): named values and one list of integers. */
#define HP_CMP_EXTRA_VALUES 8
#define HP_CMP_EXTRA_LIST 16
#define HP_CMP_MAX_EXTRAS 4
typedef struct hp_cmp_extra_value {
    const char *key, *label; /* JSON key; text label */
    double value;            /* JSON: as it is */
    double text_scale;       /* text: value x text_scale, then "%" (100 for a share, 1 for a percent) */
} hp_cmp_extra_value;
typedef struct hp_cmp_extra {
    const char *id, *title;  /* JSON member name; text heading */
    size_t common;           /* keys found in both profiles */
    hp_cmp_extra_value values[HP_CMP_EXTRA_VALUES];
    size_t nvalues;
    const char *list_key, *list_label; /* one list of integers, or NULL */
    long list[HP_CMP_EXTRA_LIST];
    size_t nlist;
    const char *note;        /* text: a line explaining the figures, or NULL */
} hp_cmp_extra;

/* How members are matched: auto (by address; by name across two builds; call sites by caller
 * function on two-version code), address (always), name (always: symbolized names). */
typedef enum hp_cmp_match { HP_CMP_MATCH_AUTO = 0, HP_CMP_MATCH_ADDRESS, HP_CMP_MATCH_NAME } hp_cmp_match;

typedef struct hp_cmp_opts {
    size_t k;        /* the top-k of the recall columns (default HP_CMP_DEFAULT_K) */
    double coverage; /* overlap coverage (default HP_OVERLAP_PAPER_COVERAGE) */
    hp_symbolizer *sym_a, *sym_b; /* of A and B: match by name when the builds differ; NULL: never */
    hp_cmp_match match;           /* default auto */
} hp_cmp_opts;

typedef enum hp_cmp_program_check {
    HP_CMP_SAME_PROGRAM = 0,  /* build-ids equal */
    HP_CMP_UNKNOWN_PROGRAM,   /* a build-id is missing: compared by file name only */
    HP_CMP_OTHER_PROGRAM,     /* program names differ */
    HP_CMP_REBUILT_PROGRAM,   /* one program name, build-ids differ: two builds of one program */
} hp_cmp_program_check;

typedef struct hp_cmp_result {
    char name_a[256], name_b[256]; /* the profiles' file names (copied, cut at 255 bytes) */
    hp_cmp_opts opts;
    hp_cmp_row rows[HP_CMP_MAX_ROWS]; /* in rank order */
    size_t nrows;
    size_t n_both;          /* types present in both profiles */
    size_t n_common_keys;   /* common keys over all those types */
    size_t unmapped_a, unmapped_b;
    hp_cmp_program_check program;
    int by_name;            /* members matched by symbolized name (two builds), not by address */
    int sites_by_function;  /* site-keyed views (call pairs) matched by caller function: dual build */
    char warnings[HP_CMP_MAX_WARNINGS][256];
    size_t nwarnings;
    hp_cmp_extra extras[HP_CMP_MAX_EXTRAS]; /* the types' own sections (compare_extra), registry order */
    size_t nextras;
    char refusal[256]; /* non-empty: a type says the two profiles cannot be compared (why) */
} hp_cmp_result;

/* Fills defaults (k 10, coverage 0.9). */
void hp_compare_default_opts(hp_cmp_opts *o);
/* Compares a (sampled) with b (reference); 0 on success, -1 out of memory. */
int hp_compare(const hp_profile *a, const hp_profile *b, const hp_cmp_opts *o, hp_cmp_result *out);

/* The row of view `id`, or NULL. */
const hp_cmp_row *hp_cmp_find_row(const hp_cmp_result *r, const char *id);

/* 1 when A or B is a profile of two-version code whose call sites have two addresses (INFO
 * dual.sites > 0: a bursty run of a `hotprof cc --hooks=dual-*` build, docs/dual.md). */
int hp_cmp_has_dual_sites(const hp_profile *p);
/* 1 when hp_compare with `match` will need the symbolizers of A and B (opts.sym_a, sym_b). */
int hp_cmp_needs_symbols(const hp_profile *a, const hp_profile *b, hp_cmp_match match);

/* Module-relative key of one address; *mapped = 0 when it lies outside every module. */
uint64_t hp_cmp_addr_key(const hp_profile *p, uint64_t addr, int *mapped);
/* Key of a basic block: its pc when the block map knows it (known), else its guard id. */
uint64_t hp_cmp_block_key(const hp_profile *p, int known, uint32_t guard, uint64_t pc, int *mapped);
/* Key of a member by its (portable, symbolized) name, with a per-type tag. */
uint64_t hp_cmp_name_key(uint64_t tag, const char *name);
/* Key of a compound member: its two part keys mixed with a per-type tag. */
uint64_t hp_cmp_pair_key(uint64_t tag, uint64_t first, uint64_t second);
/* The keyed items of one view (caller frees items->items); 0, or -1 out of memory. */
int hp_cmp_collect(const hp_profile *p, const hp_cmp_view *v, hp_cmp_items *out, size_t *unmapped);
/* The program check alone; msg (may be NULL) says what differs. */
hp_cmp_program_check hp_cmp_check_program(const hp_profile *a, const hp_profile *b, char *msg, size_t len);

/* Output: a text table or one JSON object. 0, or -1 if the stream failed. */
int hp_compare_write_text(FILE *out, const hp_cmp_result *r);
int hp_compare_write_json(FILE *out, const hp_cmp_result *r);

#endif

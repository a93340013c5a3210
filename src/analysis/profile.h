/* profile.h — the in-memory profile that `hotprof report`, `compare` and `info` read.
 *
 * hp_profile_read_file() loads a whole hotprof.data (format: src/core/format/format.h, docs/format.md;
 * the reader is reader.c, each profile type's decoder its file in src/analysis/ptype/), checks the
 * file header before reading on (an input that is not a profile ends there: /dev/zero), refuses
 * inputs over HP_READ_MAX_BYTES (1 GiB), checks every header and payload checksum and the
 * consistency of every group (reader_check.c: warnings), decodes the records, and keeps:
 *   - the file header, the INFO key/values, the union of all MODULES sections (deduplicated by
 *     base+path) and the union of all BLOCKMAP sections (guard -> pc, flags);
 *   - the *last complete group* (the data sections up to the last GROUP_END), aggregated across
 *     threads: funcs, call pairs, blocks, edges, and one summary line per thread;
 *   - the list of every section (type, offset, length, group) and the warnings, for `info`.
 * Sections after the last GROUP_END, and a section cut short by the end of the file, are ignored
 * with a warning: a profile of a killed program is still read. Anything else that is wrong
 * (bad magic, unsupported version, checksum mismatch, a payload of the wrong size) is an error:
 * NULL is returned and `err` holds one message naming the file, the section and the offset.
 *
 * A bursty profile (INFO mode=bursty, docs/format.md) holds *sampled* counts in the same arrays;
 * the reader also collects, per profile type (core/control/bursty.h's enum order), the sampling
 * parameters (INFO sample.<type>, sample.<type>.enabled) and the events seen / sampled summed
 * over threads (thread.<tid>.events.<type>, thread.<tid>.sampled.<type>), from which a report
 * scales counts by 1 / observed frequency. Malformed values are warnings, never errors.
 *
 * SUMMARY sections of profile type datastream (one per thread, format.h) are deserialized with
 * core/summary/datastream.h's validating hp_ds_deserialize (a corrupt one is an error, like any corrupt
 * section), merged across the threads of the group (hp_ds_merge; a state of another
 * configuration is skipped with a warning), and kept as the merged detector's hot streams
 * (hp_ds_hot, at most HP_PROFILE_MAX_STREAMS, hottest first). Other summary types are counted only.
 *
 * Invariants of a returned profile: every array holds exactly its `n*` elements; strings are
 * NUL-terminated and contain no control characters (they are replaced by '?'); counts never
 * wrap (they saturate at UINT64_MAX).
 */
#ifndef HOTPROF_ANALYSIS_PROFILE_H
#define HOTPROF_ANALYSIS_PROFILE_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/bursty.h"
#include "core/summary/datastream.h"
#include "core/format/format.h"

typedef struct hp_info_kv { char *key, *value; } hp_info_kv;

typedef struct hp_module {
    uint64_t base, lo, hi;
    char *path;
    uint8_t *buildid;
    uint32_t buildid_len;
} hp_module;

typedef struct hp_func_stat { uint64_t addr, calls, backedges; } hp_func_stat;
typedef struct hp_pair_stat { uint64_t site, callee, count; } hp_pair_stat;
typedef struct hp_block_stat {
    uint32_t guard, flags; /* flags from the block map (bit 0 = function entry) */
    int mapped;            /* 1 if the block map knows this guard (pc is meaningful) */
    uint64_t pc, count;
} hp_block_stat;
typedef struct hp_edge_stat {
    uint32_t from, to;
    int mapped;                  /* 1 if both guards are in the block map */
    uint64_t from_pc, to_pc, count;
} hp_edge_stat;
typedef struct hp_thread_stat { uint64_t tid, events; } hp_thread_stat;
/* One stack of timer samples (ptype/samples.c): a STACKS record as it was recorded (threads are
 * not merged: every section's records are kept; equal stacks of two threads are two entries). */
typedef struct hp_stack_stat {
    uint64_t count, tos;
    uint16_t depth, flags;
    const uint64_t *pcs; /* depth pcs, pcs[0] the interrupted pc (into p->stack_pcs) */
} hp_stack_stat;
/* One (pc, kind, operand)'s value hot-list merged over the threads (ptype/value.c). */
typedef struct hp_value_entry { uint64_t value; double estimate; /* sum of count x tau */ } hp_value_entry;
typedef struct hp_value_stat {
    uint64_t pc, captures;   /* captures summed over threads (saturating) */
    double tau;              /* the largest threshold of its threads' hot-lists */
    uint8_t kind, operand;   /* HP_VK_*, operand as in hp_rec_value */
    uint32_t nthreads;       /* records merged */
    size_t nvalues;          /* distinct values, highest estimate first (ties by value) */
    const hp_value_entry *values; /* into p->value_entries */
} hp_value_stat;
/* One hot subpath (OSP, ptype/subpath.c): the SUBPATHS records of one key summed over the group. */
typedef struct hp_subpath_stat {
    uint64_t key, count;     /* count: samples kept (an exact run: executions) */
    double weight, p_length; /* summed weight; the first record's p_length */
    double estimate;         /* weight / p_length: estimated executions */
    double rank_estimate;    /* the estimate, times the counted share c / (c + tau - 1) with
                                counting samples (analysis/ptype/subpath.h): compare's order */
    double ranked;           /* rank_estimate as weighted by subpath.params (weight=length: x length,
                                weight=cost: x cost / the largest cost; count: rank_estimate) */
    double cost;             /* code bytes of its blocks (next block pc - pc, capped at 256) */
    uint32_t length, nblocks;
    const uint32_t *guards;  /* nblocks guard ids, first block first (into p->subpath_guards) */
    const uint64_t *pcs;     /* their pcs from the block map, 0 when the map does not know one */
} hp_subpath_stat;

/* Bursty sampling of one profile type (see the comment at the top). */
typedef struct hp_sample_stat {
    int known;                  /* sample.<type> was present and well-formed */
    int enabled;                /* sample.<type>.enabled=1 (the setting when the group was written) */
    uint32_t period, burst, jitter;
    uint64_t events, sampled;   /* boundary events while enabled / of those, sampled; summed over threads */
} hp_sample_stat;

/* Hot data streams of the group, merged over threads (see the comment at the top). */
#define HP_PROFILE_MAX_STREAMS 256u
typedef struct hp_stream_set {
    size_t states;           /* datastream SUMMARY sections merged */
    uint64_t refs_seen;      /* sampled references the detectors saw, all threads */
    uint64_t bursts;         /* traces they processed */
    hp_ds_stream *streams;   /* hottest first */
    size_t nstreams;
    hp_ds_state *state;      /* the merged detector itself (for `hotprof merge`), NULL if none */
    void *state_mem;         /* its memory, owned by the profile */
} hp_stream_set;

typedef struct hp_section_ref {
    uint32_t type;
    uint64_t offset, length; /* offset of the section header; payload length */
    int group;               /* index of the group it belongs to (0-based), -1 if none/tail */
    int complete;            /* 0 for a section cut short by the end of the file */
} hp_section_ref;

typedef struct hp_profile {
    char *name; /* file name used in messages */
    uint64_t file_size;
    hp_fmt_file_info header;

    hp_info_kv *info; size_t ninfo;
    hp_module *modules; size_t nmodules;
    hp_section_ref *sections; size_t nsections;
    char **warnings; size_t nwarnings;

    /* the last complete group */
    int have_group;
    size_t ngroups; /* complete groups in the file */
    uint64_t group_seq, group_flags;
    int64_t exit_status;
    hp_func_stat *funcs; size_t nfuncs;
    hp_pair_stat *pairs; size_t npairs;
    hp_block_stat *blocks; size_t nblocks;
    uint64_t *block_pcs; size_t nblock_pcs; /* every mapped block's pc, executed or not, sorted
                                               ascending, duplicates removed (ptype/blocks.c) */
    hp_edge_stat *edges; size_t nedges;
    hp_subpath_stat *subpaths; size_t nsubpaths; /* by `ranked`, highest first, ties by key */
    uint32_t *subpath_guards; uint64_t *subpath_pcs; /* the subpaths' blocks (owned) */
    hp_thread_stat *threads; size_t nthreads;
    size_t nsummaries; /* SUMMARY sections in the group (of any profile type) */
    hp_stream_set ds;  /* the datastream summaries of the group, merged */
    struct hp_iv_thread *ivs; size_t nivs; /* INTERVALS sections of the group (ptype/intervals.c, ivstats.h) */
    size_t nblockmap;  /* distinct guards in the block map */
    hp_stack_stat *stacks; size_t nstacks; /* STACKS records of the group (ptype/samples.c) */
    uint64_t *stack_pcs;   /* their pcs (owned) */
    size_t nstack_sections;/* STACKS sections in the group (threads that sampled) */
    hp_value_stat *values; size_t nvalues; /* by (pc, kind, operand) ascending (ptype/value.c) */
    hp_value_entry *value_entries; /* their values (owned) */
    size_t nvalue_sections;/* VALUES sections in the group */
    hp_subpath_stat *paths; size_t npaths; /* interprocedural paths (ptype/path.c): count = estimate =
                                               * ranked = completions, highest first, ties by key */
    uint32_t *path_guards; uint64_t *path_pcs; /* the paths' blocks (owned) */

    int bursty;        /* INFO mode=bursty: the counts above are sampled */
    hp_sample_stat sample[HP_BURSTY_NTYPES]; /* per hp_bursty_type; zero unless bursty */
} hp_profile;

/* NULL on error, with the message in err (always NUL-terminated when errlen > 0). */
hp_profile *hp_profile_read_file(const char *path, char *err, size_t errlen);
/* Same, from an open descriptor (file, pipe, device), reading at most max_bytes; fd stays open. */
hp_profile *hp_profile_read_fd(int fd, const char *name, uint64_t max_bytes, char *err, size_t errlen);
/* Same, from bytes in memory; `name` is used in messages. The bytes are not kept. */
hp_profile *hp_profile_read_mem(const uint8_t *data, size_t len, const char *name, char *err, size_t errlen);
void hp_profile_free(hp_profile *p);

/* The value of an INFO key (the last one written wins), or NULL. */
const char *hp_profile_info(const hp_profile *p, const char *key);
/* 1 if the profile is from --mode timer (INFO mode=timer): no hook counted anything, so the
 * hook-fed types (methods, call pairs, ...) have nothing to show. */
int hp_profile_is_timer(const hp_profile *p);
/* The module whose [lo, hi) holds addr, or NULL. */
const hp_module *hp_profile_module_at(const hp_profile *p, uint64_t addr);
/* Totals over the group. */
uint64_t hp_profile_total_calls(const hp_profile *p);
uint64_t hp_profile_total_backedges(const hp_profile *p);
uint64_t hp_profile_total_pairs(const hp_profile *p);
uint64_t hp_profile_total_blocks(const hp_profile *p);
uint64_t hp_profile_total_edges(const hp_profile *p);
/* Bursty: sampled / events of a type (HPS's frequency as observed), or 0 if unknown / no events. */
double hp_profile_sample_frequency(const hp_profile *p, int type);

#endif

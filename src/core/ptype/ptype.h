/* ptype.h — a profile type: which events it records, how its key is built, which file section
 * and SUMMARY id carry it, and its names. One descriptor per type, in core/ptype/<type>.c, and
 * one line in the registry (core/ptype/registry.c). The runtime (src/runtime/pt/) and analysis
 * (src/analysis/ptype/) keep their own per-type code keyed by the descriptor's id; nothing
 * outside a type's own files names the type.
 *
 * Invariants: ids are never reused (they index the registry and appear in files through the
 * section / SUMMARY ids); `name` is the word users type (--sample NAME:..., report tables);
 * a type with bursty_type >= 0 is sampled by the HPS controller under that index.
 */
#ifndef HOTPROF_CORE_PTYPE_H
#define HOTPROF_CORE_PTYPE_H
#include <stddef.h>
#include <stdint.h>

enum hp_ptype_id {
    HP_PT_METHODS = 0,    /* hot methods: calls and back-edges per function (FUNCS) */
    HP_PT_CALLPAIRS = 1,  /* hot call pairs: (call site, callee) (CALLPAIRS) */
    HP_PT_BLOCKS = 2,     /* basic blocks: guard id -> executions (BLOCKS, BLOCKMAP) */
    HP_PT_EDGES = 3,      /* branch edges: (from guard, to guard) (EDGES) */
    HP_PT_DATASTREAM = 4, /* hot data streams: a detector per thread (SUMMARY datastream) */
    HP_PT_SUBPATH = 5,    /* hot subpaths (OSP): block sequences from any block (SUBPATHS) */
    HP_PT_INTERVALS = 6,  /* interval multi-hash profiles of the value and edges streams (INTERVALS) */
    HP_PT_SAMPLES = 7,    /* timer PC and stack samples (STACKS): --mode timer */
    HP_PT_VALUE = 8,      /* per-(pc, value kind) hot-lists of interpreted instructions (VALUES) */
    HP_PT_PATH = 9,       /* interprocedural paths between taken back-edges (PATHS) */
    HP_PT_COUNT
};

typedef struct hp_ptype {
    int id;                 /* enum hp_ptype_id */
    const char *name;       /* "methods", "callpairs", ... */
    const char *synonyms;   /* other accepted names, space-separated ("calls"), or "" */
    const char *title;      /* a table's heading in reports */
    int bursty_type;        /* enum hp_bursty_type index, or -1: not sampled by bursts */
    uint32_t section;       /* enum hp_section_type of its records, 0 if SUMMARY only */
    uint32_t summary_id;    /* enum hp_summary_profile of its SUMMARY payload, 0 if none */
    size_t record_size;     /* bytes per record of `section`, 0 if variable */
    const char *key_doc;    /* how the 64-bit key is built, for docs and --help */
    int group_level;        /* 1: its section is written once per group, before the threads
                             * (a process-wide list), not inside a thread */
} hp_ptype;

/* Every profile type, indexed by id; NULL-terminated after HP_PT_COUNT entries. */
extern const hp_ptype *const hp_ptypes[HP_PT_COUNT + 1];

/* The type called name (or one of its synonyms) over len bytes; NULL if none. */
const hp_ptype *hp_ptype_by_name(const char *name, size_t len);
/* The type sampled under HPS type index t, or NULL. */
const hp_ptype *hp_ptype_by_bursty(int t);
/* The type whose SUMMARY payload id is id, or NULL. */
const hp_ptype *hp_ptype_by_summary(uint32_t id);
/* The type whose records fill section type sec, or NULL. */
const hp_ptype *hp_ptype_by_section(uint32_t sec);

#endif

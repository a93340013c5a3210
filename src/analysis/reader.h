/* reader.h — the reader's working state, shared by the reader's files (reader.c: framing, sections,
 * groups; reader_globals.c: INFO, MODULES, BLOCKMAP, sampling keys; reader_check.c: cross-section
 * consistency; reader_file.c: files and descriptors into memory, header first, size limit) and
 * the per-type decoders of src/analysis/ptype/ (aptype.h). Not a public API: callers use profile.h.
 *
 * Invariants while reading: data[0..len) is the whole input and is never written; every section
 * in p->sections has been checked (header CRC, length against what is left, payload CRC) before
 * any decoder sees it, and a complete section's payload length has been checked against its type
 * (reader.c, pass 1) before its records are decoded; acc[id] belongs to profile type id alone.
 */
#ifndef HOTPROF_ANALYSIS_READER_H
#define HOTPROF_ANALYSIS_READER_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pairmap.h"
#include "analysis/profile.h"
#include "core/ptype/ptype.h"

/* The most bytes hp_profile_read_file reads (docs/format.md "Reading a file"): larger inputs, and
 * endless ones (/dev/zero), are refused. Profiles of real runs are kilobytes to a few megabytes. */
#define HP_READ_MAX_BYTES ((uint64_t)1 << 30)

/* What one profile type accumulates over the sections of the last group (its decoder's to use). */
typedef struct hp_apt_acc {
    hp_pairmap map; /* keyed sums (records) */
    void *obj;      /* a type's own object (datastream: the merged detector), in mem */
    void *mem;      /* freed with free() when reading ends */
} hp_apt_acc;

typedef struct hp_reader {
    const uint8_t *data;
    size_t len;
    hp_profile *p;
    char *err;
    size_t errlen;
    int truncated;       /* the last section was cut short */
    hp_pairmap blockmap; /* guard -> (pc, flags), the union of every BLOCKMAP */
    hp_pairmap infokeys; /* hash of an INFO key -> 1 + its index in p->info */
    hp_apt_acc acc[HP_PT_COUNT];
    size_t threads_cap, sections_cap, info_cap, modules_cap;
} hp_reader;

/* Sets the error message "<file>: <fmt...>"; returns 0 so that `return hp_rd_fail(...)` fails. */
int hp_rd_fail(hp_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hp_rd_oom(hp_reader *r);
/* Adds a warning (the text is used as it is: callers start it with the file name). */
void hp_rd_warn(hp_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const uint8_t *hp_rd_payload(const hp_reader *r, const hp_section_ref *s);
/* Adds (a, b) to the values of key (k1, k2), saturating; 0 after hp_rd_oom. */
int hp_rd_accumulate(hp_reader *r, hp_pairmap *m, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b);
/* Grows *arr (elements of size elem) so that it holds at least n+1 elements; 0 if out of memory. */
int hp_rd_reserve(void **arr, size_t *cap, size_t n, size_t elem);

/* reader_globals.c */
int hp_rd_decode_globals(hp_reader *r);  /* INFO, MODULES, BLOCKMAP (pass 2) */
void hp_rd_decode_sampling(hp_reader *r); /* bursty sampling keys from INFO (pass 4) */
/* reader_check.c: cross-section consistency of every complete group (warnings, or 0 after fail). */
int hp_rd_check_groups(hp_reader *r);

#endif

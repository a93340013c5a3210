/* export.h — `hotprof report --format pprof`: one profile type of a hotprof profile as a gzipped
 * pprof profile.proto message (docs/pprof.md), built with builder.h.
 *
 * The writer (export.c) makes one pprof mapping per recorded module, picks the profile type (the
 * report's --type, else the highest fold_rank with rows among types with a `pprof` hook, as
 * --format folded does), lets that type's `pprof` hook (ptype/aptype.h) declare its sample types
 * and add its samples through the helpers below, adds the comments that describe the run, then
 * encodes and gzips. It names no profile type: every export is a loop over hp_aptypes[].
 * Counts are the *recorded* ones (sampled, in a bursty profile); the sampling configuration and
 * the estimate factor go into comments and period (hp_pprof_export_sampling).
 * Invariant: nothing is written to the stream unless the whole message was built and compressed.
 */
#ifndef HOTPROF_ANALYSIS_PPROF_EXPORT_H
#define HOTPROF_ANALYSIS_PPROF_EXPORT_H
#include <stdint.h>
#include <stdio.h>
#include "analysis/pprof/builder.h"
#include "analysis/profile.h"
#include "analysis/symbolize.h"

typedef enum hp_pprof_symbols {
    HP_PPROF_SYMBOLS_FULL, /* functions, files and lines (default) */
    HP_PPROF_SYMBOLS_NONE, /* addresses and mappings only: the reader symbolizes by build-id */
} hp_pprof_symbols;

/* What a type's pprof hook builds with. */
typedef struct hp_pprof_export {
    hp_pprof *b;
    const hp_profile *p;
    hp_symbolizer *s;
    hp_pprof_symbols symbols;
    uint64_t *module_mapping; /* the pprof mapping id of p->modules[i] */
} hp_pprof_export;

/* The location of run-time address addr: its mapping, and (symbols full) its function and line;
 * an address no symbol covers gets the report's name for it ("module+0xOFF"). 0 out of memory. */
uint64_t hp_pprof_export_location(hp_pprof_export *x, uint64_t addr);
/* A location for something that has no address (e.g. an unmapped block): a function called name. */
uint64_t hp_pprof_export_named(hp_pprof_export *x, const char *name);
/* The period and sampling comments of a type sampled under HPS type t (enum hp_bursty_type),
 * whose counts are events of kind `what` ("calls"). 0, or -1 out of memory. */
int hp_pprof_export_sampling(hp_pprof_export *x, int t, const char *what);
/* Clamps a count into a pprof value. */
static inline int64_t hp_pprof_value(uint64_t count) { return count > INT64_MAX ? INT64_MAX : (int64_t)count; }

/* "full" / "none" -> *out; 0, or -1 on another word. */
int hp_pprof_parse_symbols(const char *word, hp_pprof_symbols *out);
/* 0 if `name` is a profile type that can be exported; else -1 and a message naming those that can. */
int hp_pprof_type_check(const char *name, char *msg, size_t len);
/* Builds, encodes, gzips and writes the export of type `type` (NULL: the default); 0, or -1 when
 * out of memory or the stream failed (then nothing or an incomplete gzip was written). */
int hp_pprof_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const char *type, hp_pprof_symbols symbols);

#endif

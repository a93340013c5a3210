/* pathval_spec.h — the grammar of the path and value profiles' settings (docs/paths.md,
 * docs/value-reports.md): two clauses of `hotprof run --sample`, carried to the runtime in
 * HOTPROF_PATHVAL (runtime/config.c) in the canonical form hp_pv_format writes. The CLI and the
 * runtime parse with the same functions, so both accept and reject exactly the same texts.
 *
 *   path[:maxlen=N]          interprocedural paths (synonym "paths"); maxlen 2..1024, default 64
 *   value:summary=S[,K=V..]  per-instruction value profiles of trace-cmp operands and trace-loads
 *                            values (synonym "values"); S tnv | gm (required: it tells these clauses
 *                            from the interval profile's value:summary=multihash, spec.h)
 *       entries=N   tnv only: table entries, 2..64 (HP_VALUE_MAX_ENTRIES), default 50
 *       clear=K     tnv only: updates between lower-half clears, 1..2^30, default 2000
 *       sites=N     value sites (pc, kind, operand) per thread, 16..2^20, default 4096; values at
 *                   sites past the cap are counted as dropped (INFO values.dropped)
 * Clauses are separated by ';'. The canonical form names every key:
 *   "path:maxlen=64;value:summary=tnv,entries=50,clear=2000,sites=4096" (gm: no entries/clear).
 * Both record in exhaustive mode (and in the shadows of shadow mode).
 *
 * Pure C11: no allocation, no system calls, no writable data; errors are one sentence in err.
 */
#ifndef HOTPROF_CORE_CONTROL_PATHVAL_SPEC_H
#define HOTPROF_CORE_CONTROL_PATHVAL_SPEC_H
#include <stddef.h>
#include <stdint.h>

enum hp_pv_summary { HP_PV_TNV = 1, HP_PV_GM = 2 };
#define HP_PV_DEFAULT_ENTRIES 50u
#define HP_PV_DEFAULT_CLEAR 2000u
#define HP_PV_DEFAULT_SITES 4096u
#define HP_PV_MAX_SITES (1u << 20)

typedef struct hp_pv_params {
    int path;          /* 1: record paths */
    uint32_t maxlen;   /* longest path, blocks */
    int values;        /* 0 or enum hp_pv_summary */
    uint32_t entries, clear, sites;
} hp_pv_params;

void hp_pv_defaults(hp_pv_params *p); /* nothing enabled, every key at its default */
/* 1 if the clause (len bytes) is one of these: path[:...], or value:... with summary=tnv|gm. */
int hp_pv_clause_is(const char *text, size_t len);
/* 1 if a summary value (vlen bytes, as after "summary=") names one of these summaries. */
int hp_pv_summary_word(const char *v, size_t vlen);
/* One clause into *p (enabling it). 0, or -1 and err. */
int hp_pv_clause_parse(const char *text, size_t len, hp_pv_params *p, char *err, size_t errlen);
/* ';'-separated clauses; *p is reset to hp_pv_defaults first. 0, or -1 and err. */
int hp_pv_spec_parse(const char *text, hp_pv_params *p, char *err, size_t errlen);
/* The canonical spec of the enabled clauses (NUL-terminated, truncated to cap); its length. */
size_t hp_pv_format(char *out, size_t cap, const hp_pv_params *p);
const char *hp_pv_summary_name(int summary); /* "tnv", "gm", "?" */

#endif

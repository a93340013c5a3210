/* report.h — the `hotprof report` output: one table per profile type (src/analysis/ptype/: hot
 * methods, hot call pairs, and optionally hot blocks, edges and hot data streams), as aligned text
 * (nothing cut: columns widen for long names, rtable.h) or as one JSON object; or one type's
 * table as flame-graph folded stacks or as a gzipped pprof profile (analysis/pprof/export.h);
 * or one self-contained HTML page (analysis/html/html.h).
 *
 * Heat of a method is the HPS measure: invocations + loop back-edges. A call pair's site is a
 * return address, so the caller and the call-site line are looked up at site - 1.
 * Ordering is total and deterministic: ties fall back to the address (then the callee).
 * A bursty profile's counts are shown as estimates (sampled / observed frequency of the table's
 * profile type, see rtable.h); the order is the same as by sampled count.
 */
#ifndef HOTPROF_ANALYSIS_REPORT_H
#define HOTPROF_ANALYSIS_REPORT_H
#include <stddef.h>
#include <stdio.h>
#include "analysis/profile.h"
#include "analysis/symbolize.h"

typedef enum hp_sort_key { HP_SORT_HEAT, HP_SORT_CALLS, HP_SORT_BACKEDGES, HP_SORT_NAME } hp_sort_key;
typedef enum hp_report_format {
    HP_FORMAT_TEXT, HP_FORMAT_JSON, HP_FORMAT_FOLDED, HP_FORMAT_PPROF, HP_FORMAT_HTML
} hp_report_format;

typedef struct hp_report_opts {
    size_t top;            /* rows per table; 0 = all */
    hp_sort_key sort;
    hp_report_format format;
    int blocks, edges;     /* also print the hot blocks / edges tables */
    int streams;           /* also print the hot data streams (p->ds, ptype/datastream.c) */
    const char *only_type; /* text, JSON: only this profile type's table (a core registry name,
                              e.g. "intervals"); NULL: every wanted type */
    const hp_profile *compare_ref; /* HP_FORMAT_HTML: a reference profile to compare with, or NULL */
    const char *fold_type; /* HP_FORMAT_FOLDED, _PPROF: the profile type folded / exported (a core
                              registry name or synonym, core/ptype/ptype.h); NULL: the default
                              (aptype.h, fold_rank) */
    int pprof_symbols;     /* HP_FORMAT_PPROF: enum hp_pprof_symbols (analysis/pprof/export.h) */
    int color;             /* text: ANSI colour (bold headings, hot percentages); the caller decides */
} hp_report_opts;

#define HP_REPORT_DEFAULT_TOP 20

/* 0 on success, -1 on an unknown word. */
int hp_report_parse_sort(const char *word, hp_sort_key *out);
int hp_report_parse_format(const char *word, hp_report_format *out);

/* 0 if `name` names a profile type that --format folded can fold; else -1 and a one-line message
 * in msg naming the types that can be folded (an unknown name, or a type without a folded hook). */
int hp_report_fold_check(const char *name, char *msg, size_t len);

/* Writes the whole report (text, JSON, or the folded stacks of one profile type, folded.h);
 * 0 on success, -1 if out of memory, the stream failed or o->fold_type cannot be folded. */
int hp_report_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);

/* The text report's header (program, command, mode, totals, sampling, how the run ended). */
void hp_report_text_header(FILE *out, const hp_profile *p);

/* Fills order[0..p->nfuncs) with the indexes of p->funcs in report order (for tests and tools);
 * 0 on success, -1 out of memory. */
int hp_report_order_funcs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order);
int hp_report_order_pairs(const hp_profile *p, hp_symbolizer *s, hp_sort_key key, size_t *order);

/* Writes s as a JSON string literal (json.c) (quotes included), escaping what JSON requires. */
void hp_json_string(FILE *out, const char *s);

#endif

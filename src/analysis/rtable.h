/* rtable.h — the pieces every report table is made of, shared by report.c and the per-type
 * tables of src/analysis/ptype/: row limits, percentages, bursty estimates, fixed-width cells,
 * symbolized names and their column widths, and the JSON forms of counts and symbols.
 *
 * Estimates (docs/bursty.md): in a bursty profile (p->bursty) a count of a table sampled under HPS
 * type t is shown as count / f, f the type's observed frequency (sampled / events over threads,
 * from INFO), or B/(B+S) when no events were counted. Exhaustive and patched-burst profiles have no
 * estimates: the helpers then return the count as it is.
 * Invariant: no cell is ever cut. A name or file:line column is as wide as its widest entry among
 * the rows shown, so a function name, a file:line and an inline chain always print whole; rows fit
 * HP_RT_LINE_COLS columns when the names are short enough, and grow past it (never cut) otherwise.
 * Colour: with hp_report_opts.color, headings are bold and percentages of at least
 * HP_RT_RED_PERCENT are red, of at least HP_RT_YELLOW_PERCENT yellow (as perf report does).
 */
#ifndef HOTPROF_ANALYSIS_RTABLE_H
#define HOTPROF_ANALYSIS_RTABLE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/report.h"

#define HP_RT_LINE_COLS 100 /* a text row with short names fits this */
#define HP_RT_RED_PERCENT 5.0
#define HP_RT_YELLOW_PERCENT 0.5
#define HP_RT_CONFIDENCE 0.95 /* of the JSON estimate intervals */

static inline int hp_rt_cmp_desc(uint64_t a, uint64_t b) { return a > b ? -1 : a < b; }
static inline int hp_rt_cmp_asc(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

size_t hp_rt_rows(size_t n, const hp_report_opts *o); /* rows shown of n: the report's top */
double hp_rt_percent(uint64_t part, uint64_t whole);
/* 0..n-1 sorted with cmp(a, b, ctx) over indexes; NULL if out of memory. Caller frees. */
size_t *hp_rt_order(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx);

/* names[i] = the symbolized name of addr_of(p, i) for i < n (name sorts); NULL out of memory. */
typedef uint64_t (*hp_rt_addr_fn)(const hp_profile *, size_t);
char **hp_rt_names(hp_symbolizer *s, size_t n, hp_rt_addr_fn addr_of, const hp_profile *p);
void hp_rt_free_names(char **names, size_t n);

/* ---- bursty estimates (t: enum hp_bursty_type) ---- */
double hp_rt_frequency(const hp_profile *p, int t); /* f above, 0 if unknown */
int hp_rt_estimated(const hp_profile *p, int t);    /* counts of t are shown as estimates */
const char *hp_rt_count_cell(char *buf, size_t n, const hp_profile *p, int t, uint64_t x); /* x or ~est */
const char *hp_rt_count_header(char *buf, size_t n, const hp_profile *p, int t, const char *name);

/* ---- text cells ---- */
int hp_rt_text_width(const char *s);                       /* columns of UTF-8 text */
void hp_rt_cell(FILE *out, const char *s, int width);      /* s whole, padded to width columns */
void hp_rt_last_cell(FILE *out, const char *s, int width); /* the row's end: s whole, newline */
void hp_rt_percent_cell(FILE *out, const hp_report_opts *o, double pct); /* "%5.1f%%", coloured */
/* A table heading (fmt, then a newline), bold with o->color. */
void hp_rt_heading(FILE *out, const hp_report_opts *o, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

typedef struct hp_rt_sym { char name[768], where[512]; const hp_symbol *sym; } hp_rt_sym;
void hp_rt_describe(hp_symbolizer *s, uint64_t addr, hp_rt_sym *r); /* name "0x..." if unknown */
/* The same, the name followed by " → [inlined g] line N" when addr lies in inlined code. */
void hp_rt_describe_inline(hp_symbolizer *s, uint64_t addr, hp_rt_sym *r);
/* A name that survives a rebuild (hotprof diff): the symbol's name, else "module+0xoffset"
 * (module file name, offset from its load address), else "0x<addr>" outside every module. */
void hp_rt_portable_name(const hp_profile *p, hp_symbolizer *s, uint64_t addr, char *buf, size_t n);

/* Widths of the name (hp_rt_describe_inline) and where columns over rows order[0..n) (addr_of
 * gives a row's address):
 * the widest entry of each (at least the header's width), so that nothing is cut. */
void hp_rt_widths(const hp_profile *p, hp_symbolizer *s, const size_t *order, size_t n, hp_rt_addr_fn addr_of,
                  int *wname, int *wwhere);

/* ---- JSON ---- */
/* "<prefix>addr": "0x..", "<prefix>function": .., "<prefix>file": .., "<prefix>line": N */
void hp_rt_json_symbol(FILE *out, hp_symbolizer *s, const char *prefix, uint64_t addr);
void hp_rt_json_count(FILE *out, const hp_profile *p, int t, uint64_t x); /* x or its rounded estimate */
/* An estimated row's "estimated": true, "sampled": x, "ci_lower": .., "ci_upper": .., (or nothing). */
void hp_rt_json_estimate(FILE *out, const hp_profile *p, int t, uint64_t x);

/* ---- header parts that depend on the sampling mode (report_modes.c) ---- */
void hp_report_sampling_text(FILE *out, const hp_profile *p); /* bursty: one line per HPS type */
void hp_report_sampling_json(FILE *out, const hp_profile *p); /* bursty: "sampling", "confidence" */
void hp_report_patched_text(FILE *out, const hp_profile *p);  /* patched bursts: raw counts, exposure */
void hp_report_patched_json(FILE *out, const hp_profile *p);  /* patched bursts: "xray" / "patch"; timer: "timer" */
/* Timer mode: (timer.handler_ns + values.ns) / timer.cpu_ns in percent; < 0 when unknown. */
double hp_report_timer_overhead(const hp_profile *p);

#endif

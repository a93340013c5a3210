/* html.h — `hotprof report --format html`: one self-contained HTML page (inline CSS, inline SVG,
 * no script, no external resource) with the report's header, every wanted profile type's table,
 * an icicle (flame graph) built from the call graph (icicle.h), bar charts of the hottest members
 * of each type, and with a reference profile (hp_report_opts.compare_ref) the accuracy figures of
 * `hotprof compare` (compare.h) and their plot.
 *
 * Every text that comes from a profile (names, paths, INFO values) goes through hp_html_escape.
 * A profile type takes part through its aptype.h hooks: `html` (its own table), else its `text`
 * table shown preformatted; `graph` (its members as call-graph nodes or edges for the icicle);
 * `diff_rows` (named weights: its bar chart). The page is deterministic: same profile, same bytes.
 */
#ifndef HOTPROF_ANALYSIS_HTML_HTML_H
#define HOTPROF_ANALYSIS_HTML_HTML_H
#include <stdio.h>
#include "analysis/report.h"

/* Writes the page; 0, or -1 out of memory or when the stream failed. */
int hp_html_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);

/* s with & < > " ' escaped (text and attribute values); bytes that are not printable ASCII or
 * UTF-8 become '?', control characters too. */
void hp_html_escape(FILE *out, const char *s);
/* The same for at most n bytes of s (never splitting a UTF-8 sequence), then "..." if cut. */
void hp_html_escape_cut(FILE *out, const char *s, size_t n);

/* Table helpers for the types' html hooks: <tr> cells, escaped text, numeric cells right-aligned. */
void hp_html_td(FILE *out, const char *text);
void hp_html_td_num(FILE *out, const char *text);
/* <h2>title</h2> of a section (title escaped; the page wraps each section in <section id=..>). */
void hp_html_heading(FILE *out, const char *title);
/* <table> with a header row of the n column titles (escaped), then <tbody>; and its end. */
void hp_html_table_head(FILE *out, const char *const *cols, size_t n);
void hp_html_table_end(FILE *out);

#endif

/* page.h — the sections of the HTML page (html.h), one file each: flame.c (the icicle),
 * bars.c (bar charts of each type's heaviest members), cmpsec.c and scatter.c (accuracy against a
 * reference),
 * and capture.c (another writer's text shown preformatted). page.c assembles them.
 * Each returns 0, or -1 out of memory.
 */
#ifndef HOTPROF_ANALYSIS_HTML_PAGE_H
#define HOTPROF_ANALYSIS_HTML_PAGE_H
#include <stdio.h>
#include "analysis/report.h"

#define HP_HTML_WIDTH 1200.0 /* px, the width of the charts */

int hp_html_flame(FILE *out, const hp_profile *p, hp_symbolizer *s);
int hp_html_bars(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_html_compare(FILE *out, const hp_profile *p, const hp_profile *ref);
/* The share scatter of the accuracy section (scatter.c), for the views r found in both. */
struct hp_cmp_result;
int hp_html_scatter(FILE *out, const hp_profile *p, const hp_profile *ref, const struct hp_cmp_result *r);

/* Runs write(f, ctx) into memory and writes what it printed, escaped, inside <pre>. */
typedef int (*hp_html_text_fn)(FILE *f, const void *ctx);
int hp_html_pre(FILE *out, hp_html_text_fn write, const void *ctx);

#endif

/* bars.c — bar charts of the HTML page: for each profile type with named weights (its
 * `diff_rows` hook, aptype.h: methods by heat, call pairs "caller;callee" by count; recorded
 * counts), the top N (the report's --top, at most BAR_MAX) as horizontal SVG bars, the longest
 * the heaviest, each with a hover <title> (name, count, share) and its count at the bar's end.
 * Order: count descending, then name (bytewise): deterministic.
 */
#include "analysis/html/html.h"
#include "analysis/html/page.h"
#include "analysis/html/svg.h"
#include "analysis/ptype/aptype.h"
#include "analysis/rtable.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BAR_MAX 25
#define BAR_PX 20.0
#define LABEL_PX 380.0
#define COUNT_PX 110.0

static int by_count_then_name(const void *a, const void *b)
{
    const hp_fold_line *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->stack, y->stack);
}

static void draw_bar(FILE *out, const hp_fold_line *l, size_t i, uint64_t max, uint64_t total)
{
    double room = HP_HTML_WIDTH - LABEL_PX - COUNT_PX, w = room * (double)l->count / (double)max, y = i * BAR_PX;
    char title[700], colour[8], num[32];
    snprintf(title, sizeof title, "%.480s: %" PRIu64 " (%.2f%%)", l->stack, l->count, hp_rt_percent(l->count, total));
    snprintf(num, sizeof num, "%" PRIu64, l->count);
    hp_svg_rect(out, LABEL_PX, y + 2, w > 1 ? w : 1, BAR_PX - 4, hp_svg_colour(l->stack, colour), title);
    hp_svg_text(out, LABEL_PX - 6, y + BAR_PX - 6, LABEL_PX, "end", l->stack);
    hp_svg_text(out, LABEL_PX + w + 4, y + BAR_PX - 6, COUNT_PX + room - w, "start", num);
    hp_svg_group_end(out);
}

static void draw_chart(FILE *out, const char *type, hp_fold *rows, size_t top)
{
    uint64_t total = 0;
    char title[160];
    for (size_t i = 0; i < rows->n; i++) total = hp_sat_add(total, rows->lines[i].count);
    if (rows->n > 1) qsort(rows->lines, rows->n, sizeof *rows->lines, by_count_then_name);
    size_t n = rows->n < top ? rows->n : top;
    snprintf(title, sizeof title, "%s: the %zu heaviest of %zu (recorded counts)", type, n, rows->n);
    fputs("<h3>", out);
    hp_html_escape(out, title);
    fputs("</h3>\n", out);
    if (!n) return (void)fputs("<p>(none)</p>\n", out);
    hp_svg_open(out, "bars", HP_HTML_WIDTH, n * BAR_PX, title);
    for (size_t i = 0; i < n; i++) draw_bar(out, &rows->lines[i], i, rows->lines[0].count, total);
    hp_svg_close(out);
}

int hp_html_bars(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t top = o->top && o->top < BAR_MAX ? o->top : BAR_MAX;
    hp_html_heading(out, "Heaviest members");
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        hp_fold rows;
        if (!t->diff_rows || !t->rows(p)) continue;
        hp_fold_init(&rows);
        int rc = t->diff_rows(&rows, p, s);
        if (!rc) hp_fold_merge(&rows), draw_chart(out, hp_ptypes[t->id]->title, &rows, top);
        hp_fold_free(&rows);
        if (rc) return -1;
    }
    return 0;
}

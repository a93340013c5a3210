/* cmpsec.c — the accuracy section of the HTML page (`report --format html --compare REF`):
 * hp_compare (analysis/compare.h) of the report's profile against REF, shown as exactly the table
 * `hotprof compare` prints (hp_compare_write_text, preformatted), its warnings (a program
 * mismatch is shown, not refused: the page is a report), and an SVG plot per compared type of
 * the HPS overlap, the renormalized overlap and the top-k recall and precision on a 0-100% scale;
 * then the share scatter of scatter.c.
 */
#include "analysis/compare.h"
#include "analysis/html/html.h"
#include "analysis/html/page.h"
#include "analysis/html/svg.h"
#include <stdlib.h>

#define ROW_PX 26.0
#define LABEL_PX 180.0
#define NBARS 4

static const char *const metric_names[NBARS] = {"overlap", "renorm", "recall@k", "precision@k"};
static const char *const metric_colours[NBARS] = {"#d95f02", "#e6ab02", "#1b9e77", "#7570b3"};

static void metrics_of(const hp_cmp_row *w, double v[NBARS])
{
    v[0] = w->overlap, v[1] = w->overlap_renorm, v[2] = w->top_k.recall, v[3] = w->top_k.precision;
}

static void draw_row(FILE *out, const hp_cmp_row *w, size_t i)
{
    double v[NBARS], room = HP_HTML_WIDTH - LABEL_PX - 20, y = i * NBARS * ROW_PX / 2 + 20;
    metrics_of(w, v);
    hp_svg_text(out, LABEL_PX - 6, y + 14, LABEL_PX, "end", w->title);
    for (int m = 0; m < NBARS; m++) {
        char title[300];
        snprintf(title, sizeof title, "%s, %s: %.2f%%", w->title, metric_names[m], 100.0 * v[m]);
        hp_svg_rect(out, LABEL_PX, y + m * ROW_PX / 2, room * (v[m] > 0 ? v[m] : 0) + 1, ROW_PX / 2 - 2,
                    metric_colours[m], title);
        hp_svg_group_end(out);
    }
}

static void plot(FILE *out, const hp_cmp_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nrows; i++) n += r->rows[i].in_a && r->rows[i].in_b;
    if (!n) return (void)fputs("<p>(no profile type in common: nothing to plot)</p>\n", out);
    hp_svg_open(out, "cmp", HP_HTML_WIDTH, 24 + n * NBARS * ROW_PX / 2, "accuracy per profile type");
    for (int m = 0; m < NBARS; m++) {
        fprintf(out, "<rect x=\"%.0f\" y=\"2\" width=\"12\" height=\"12\" fill=\"%s\"/>", LABEL_PX + m * 160.0,
                metric_colours[m]);
        hp_svg_text(out, LABEL_PX + m * 160.0 + 16, 13, 140, "start", metric_names[m]);
    }
    for (size_t i = 0, k = 0; i < r->nrows; i++)
        if (r->rows[i].in_a && r->rows[i].in_b) draw_row(out, &r->rows[i], k++);
    hp_svg_close(out);
}

static int write_table(FILE *f, const void *r) { return hp_compare_write_text(f, r); }

int hp_html_compare(FILE *out, const hp_profile *p, const hp_profile *ref)
{
    hp_cmp_result *r = malloc(sizeof *r);
    hp_cmp_opts o;
    hp_compare_default_opts(&o);
    if (!r || hp_compare(p, ref, &o, r)) return free(r), -1;
    hp_html_heading(out, "Accuracy against the reference profile");
    if (r->nwarnings) fputs("<ul class=\"warn\">\n", out);
    for (size_t i = 0; i < r->nwarnings; i++) {
        fputs("<li>", out);
        hp_html_escape(out, r->warnings[i]);
        fputs("</li>\n", out);
    }
    if (r->nwarnings) fputs("</ul>\n", out);
    int rc = hp_html_pre(out, write_table, r);
    if (!rc) plot(out, r), rc = hp_html_scatter(out, p, ref, r);
    free(r);
    return rc;
}

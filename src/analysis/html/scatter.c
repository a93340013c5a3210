/* scatter.c — the share scatter of the HTML page's accuracy section: for each compare view
 * (compare.h) that both profiles hold, every member present in both as a point at (share in the
 * reference, share in the sampled profile), on log-log axes from 10^-LOG_DECADES to 1, with the
 * diagonal a perfect sample would sit on. Members come from hp_cmp_collect (the same keyed items
 * `hotprof compare` scores), joined by key; members in one profile only cannot sit on a log axis
 * and are counted under the plot instead. Shares are scale-free, so a sampled profile needs no
 * estimate. Points are drawn in key order: deterministic.
 */
#include "analysis/html/html.h"
#include "analysis/html/page.h"
#include "analysis/html/svg.h"
#include "analysis/ptype/aptype.h"
#include <math.h>
#include <stdlib.h>

#define PLOT_PX 360.0
#define MARGIN_PX 44.0
#define LOG_DECADES 6.0

/* Pixel offset of a share along an axis of PLOT_PX (shares under the range sit on its edge). */
static double axis_px(double share)
{
    double d = share > 0 ? log10(share) : -LOG_DECADES;
    if (d < -LOG_DECADES) d = -LOG_DECADES;
    return (d + LOG_DECADES) / LOG_DECADES * PLOT_PX;
}

static void frame(FILE *out, double ox, const char *title)
{
    fprintf(out, "<rect x=\"%.0f\" y=\"20\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#999\"/>", ox,
            PLOT_PX, PLOT_PX);
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"20\" stroke=\"#bbb\" stroke-dasharray=\"4 3\"/>\n", ox,
            20 + PLOT_PX, ox + PLOT_PX);
    hp_svg_text(out, ox + PLOT_PX / 2, 14, PLOT_PX, "middle", title);
    hp_svg_text(out, ox + PLOT_PX / 2, 20 + PLOT_PX + 16, PLOT_PX, "middle", "share in the reference (log)");
    hp_svg_text(out, ox - 4, 32, MARGIN_PX, "end", "1");
    hp_svg_text(out, ox - 4, 20 + PLOT_PX, MARGIN_PX, "end", "1e-6");
}

/* Points of the members in both, joined by key (both arrays sorted by key); returns how many. */
static size_t points(FILE *out, double ox, const hp_cmp_items *a, const hp_cmp_items *b)
{
    size_t i = 0, j = 0, n = 0;
    while (i < a->n && j < b->n) {
        if (a->items[i].key != b->items[j].key) {
            a->items[i].key < b->items[j].key ? i++ : j++;
            continue;
        }
        double sa = a->items[i].weight / a->total, sb = b->items[j].weight / b->total;
        fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"#d95f02\" fill-opacity=\"0.6\"><title>reference "
                     "%.4f%%, sampled %.4f%%</title></circle>\n",
                ox + axis_px(sb), 20 + PLOT_PX - axis_px(sa), 100 * sb, 100 * sa);
        i++, j++, n++;
    }
    return n;
}

/* One plot at ox for view v; *only = members in one profile only. 0, or -1 out of memory. */
static int plot_view(FILE *out, double ox, const hp_profile *p, const hp_profile *ref, const hp_cmp_view *v,
                     size_t *only)
{
    hp_cmp_items a = {0}, b = {0};
    int rc = hp_cmp_collect(p, v, &a, NULL) || hp_cmp_collect(ref, v, &b, NULL) ? -1 : 0;
    if (!rc && a.total > 0 && b.total > 0) {
        frame(out, ox, v->title);
        size_t common = points(out, ox, &a, &b);
        *only = a.n + b.n - 2 * common;
    }
    free(a.items), free(b.items);
    return rc;
}

static size_t views_in_both(const hp_cmp_result *r, const hp_cmp_view **vs, size_t max)
{
    size_t n = 0;
    for (int i = 0; i < HP_PT_COUNT; i++)
        for (size_t k = 0; k < hp_aptypes[i]->nviews && n < max; k++) {
            const hp_cmp_row *row = hp_cmp_find_row(r, hp_aptypes[i]->views[k].id);
            if (row && row->in_a && row->in_b) vs[n++] = &hp_aptypes[i]->views[k];
        }
    return n;
}

int hp_html_scatter(FILE *out, const hp_profile *p, const hp_profile *ref, const hp_cmp_result *r)
{
    const hp_cmp_view *vs[HP_CMP_MAX_ROWS];
    size_t n = views_in_both(r, vs, 3), only[HP_CMP_MAX_ROWS] = {0};
    if (!n) return 0;
    fputs("<h3>Share of each member: sampled (up) against reference (right)</h3>\n", out);
    hp_svg_open(out, "scatter", MARGIN_PX + n * (PLOT_PX + MARGIN_PX), PLOT_PX + 44, "share scatter per type");
    for (size_t i = 0; i < n; i++)
        if (plot_view(out, MARGIN_PX + i * (PLOT_PX + MARGIN_PX), p, ref, vs[i], &only[i])) return -1;
    hp_svg_close(out);
    fputs("<p class=\"note\">Points on the dashed diagonal are members whose share the sample got right. "
          "Members in one profile only (not plotted):", out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s %s %zu", i ? "," : "", vs[i]->title, only[i]);
    fputs(".</p>\n", out);
    return 0;
}

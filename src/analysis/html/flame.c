/* flame.c — the icicle section of the HTML page: the call graph from every profile type's `graph`
 * hook (callgraph.h), the icicle construction of icicle.h, drawn as SVG: one row per depth,
 * widths proportional to the (recorded) heat each frame stands for, a colour per function name,
 * and a hover <title> with the name, the weight and its share of the total.
 */
#include "analysis/html/callgraph.h"
#include "analysis/html/html.h"
#include "analysis/html/icicle.h"
#include "analysis/html/page.h"
#include "analysis/html/svg.h"
#include "analysis/ptype/aptype.h"

#define ROW_PX 18.0

static int fill_graph(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s)
{
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (t->graph && t->graph(g, p, s)) return -1;
    }
    return hp_cg_resolve(g);
}

static void draw_frame(FILE *out, const hp_icicle *ic, const hp_callgraph *g, const hp_icicle_frame *f)
{
    const char *name = f->node == HP_ICICLE_TOP ? "all" : g->names[f->node];
    double scale = HP_HTML_WIDTH / ic->total, x = f->x * scale, w = f->width * scale, y = f->depth * ROW_PX;
    char title[700], colour[8];
    snprintf(title, sizeof title, "%.480s: %.0f (%.2f%%)", name, f->width, 100.0 * f->width / ic->total);
    hp_svg_rect(out, x, y, w, ROW_PX - 1, f->node == HP_ICICLE_TOP ? "#c8c8c8" : hp_svg_colour(name, colour), title);
    hp_svg_text(out, x + 3, y + ROW_PX - 5, w, "start", name);
    hp_svg_group_end(out);
}

static void draw(FILE *out, const hp_icicle *ic, const hp_callgraph *g)
{
    int depth = 0;
    for (size_t i = 0; i < ic->n; i++)
        if (ic->frames[i].depth > depth) depth = ic->frames[i].depth;
    hp_svg_open(out, "flame", HP_HTML_WIDTH, (depth + 1) * ROW_PX, "icicle of the call graph");
    for (size_t i = 0; i < ic->n; i++) draw_frame(out, ic, g, &ic->frames[i]);
    hp_svg_close(out);
}

int hp_html_flame(FILE *out, const hp_profile *p, hp_symbolizer *s)
{
    hp_callgraph g;
    hp_icicle ic = {0};
    hp_icicle_opts o = HP_ICICLE_DEFAULT_OPTS;
    int rc = -1;
    hp_cg_init(&g);
    hp_html_heading(out, "Flame graph (icicle) of the call graph");
    fputs("<p class=\"note\">Built from call pairs, not stacks: each function's heat (calls + back-edges, "
          "recorded counts) is shared among its callers in proportion to their call counts, from the "
          "functions no one calls down; recursion is cut (an edge back to a function already on the path "
          "is dropped), depth is capped at 48 and frames under 0.05% are not drawn. Hover a frame for its "
          "count.</p>\n", out);
    if (!fill_graph(&g, p, s) && !hp_icicle_build(g.n, g.weight, g.edges, g.nedges, &o, &ic)) {
        if (ic.total > 0) draw(out, &ic, &g);
        else fputs("<p>(no counts to draw)</p>\n", out);
        rc = 0;
    }
    hp_icicle_free(&ic);
    hp_cg_free(&g);
    return rc;
}

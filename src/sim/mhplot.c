/* mhplot.c — SVG line chart of error vs tables (mhplot.h). */
#include "sim/mhplot.h"
#include <string.h>

#define W 720
#define H 440
#define LEFT 70
#define RIGHT 230
#define TOP 40
#define BOTTOM 60

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

static void escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", out);
        else if (*s == '>') fputs("&gt;", out);
        else if (*s == '&') fputs("&amp;", out);
        else if (*s == '"') fputs("&quot;", out);
        else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) fputc(*s, out);
    }
}

static double x_at(size_t k, size_t n) { return LEFT + (n > 1 ? (double)k * (W - LEFT - RIGHT) / (double)(n - 1) : (W - LEFT - RIGHT) / 2.0); }
static double y_at(double v, double ymax) { return TOP + (H - TOP - BOTTOM) * (1 - v / ymax); }

static void axes(FILE *out, const hp_mhsim_grid *g, double ymax)
{
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LEFT, TOP, LEFT, H - BOTTOM);
    for (size_t k = 0; k < g->tables.n; k++)
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">%u</text>\n", x_at(k, g->tables.n), H - BOTTOM + 18, g->tables.v[k]);
    for (int i = 0; i <= 4; i++)
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%.3g%%</text>\n", LEFT - 6, y_at(ymax * i / 4, ymax) + 4, ymax * i / 4);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">hash tables</text>\n", (LEFT + W - RIGHT) / 2, H - 20);
    fprintf(out, "<text x=\"16\" y=\"%d\" font-size=\"13\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">mean error E</text>\n", (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
}

int hp_mhplot_svg(FILE *out, const hp_mhsim_grid *g, const hp_mhsim_result *res, const char *title)
{
    size_t total = hp_mhsim_grid_size(g), per_table = g->tables.n ? total / g->tables.n : 0;
    double ymax = 0;
    for (size_t i = 0; i < total; i++)
        if (res[i].e * 100 > ymax) ymax = res[i].e * 100;
    ymax = ymax > 0 ? ymax * 1.1 : 1;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", W, H, W, H);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n<text x=\"%d\" y=\"24\" font-size=\"14\">", W, H, LEFT);
    escape(out, title);
    fputs("</text>\n", out);
    axes(out, g, ymax);
    /* Line j: the configurations that differ only in their table count (tables is the slowest axis). */
    for (size_t j = 0; j < per_table; j++) {
        const char *c = colours[j % (sizeof colours / sizeof colours[0])];
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        for (size_t k = 0; k < g->tables.n; k++) fprintf(out, "%s%.1f,%.1f", k ? " " : "", x_at(k, g->tables.n), y_at(res[k * per_table + j].e * 100, ymax));
        fputs("\"/>\n", out);
        for (size_t k = 0; k < g->tables.n; k++)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x_at(k, g->tables.n), y_at(res[k * per_table + j].e * 100, ymax), c);
        const hp_multihash_params *p = &res[j].p;
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">Z=%u b=%u C%d R%d ret%d sh%d A=%u%s</text>\n", W - RIGHT + 10,
                TOP + 14.0 * (double)j + 10, c, p->total_counters, p->counter_bits, p->conservative, p->reset, p->retain, p->shield,
                hp_multihash_acc_entries(p), p->fast_hash ? " fast" : "");
    }
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

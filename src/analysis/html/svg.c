/* svg.c — inline-SVG helpers (svg.h). */
#include "analysis/html/svg.h"
#include "analysis/html/html.h"
#include <string.h>

void hp_svg_open(FILE *out, const char *cls, double w, double h, const char *label)
{
    fprintf(out, "<svg class=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
            cls, w, h, w, h);
    hp_html_escape(out, label);
    fputs("\">\n", out);
}

void hp_svg_close(FILE *out) { fputs("</svg>\n", out); }

const char *hp_svg_colour(const char *name, char buf[8])
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 16777619u;
    unsigned r = 205 + (h & 0x3f) % 50, g = 80 + ((h >> 8) & 0xff) % 140, b = 40 + ((h >> 16) & 0xff) % 50;
    snprintf(buf, 8, "#%02x%02x%02x", r, g, b);
    return buf;
}

void hp_svg_rect(FILE *out, double x, double y, double w, double h, const char *fill, const char *title)
{
    fputs("<g><title>", out);
    hp_html_escape(out, title);
    fprintf(out, "</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, y, w, h, fill);
}

void hp_svg_group_end(FILE *out) { fputs("</g>\n", out); }

void hp_svg_text(FILE *out, double x, double y, double width, const char *anchor, const char *text)
{
    double fit = (width - 4) / HP_SVG_CHAR_PX;
    if (fit < 3) return;
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\">", x, y, anchor);
    if (strlen(text) > (size_t)fit) hp_html_escape_cut(out, text, (size_t)fit - 3); /* + "..." */
    else hp_html_escape(out, text);
    fputs("</text>", out);
}

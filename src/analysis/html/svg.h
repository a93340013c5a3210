/* svg.h — the few inline-SVG pieces the HTML report draws with (no xmlns or external reference:
 * an <svg> inside HTML needs none): the element itself, rectangles with a hover <title>, text
 * labels cut to fit, and a colour per name. Coordinates are printed with two decimals, so the
 * output is deterministic. Every text is HTML-escaped (html.h).
 */
#ifndef HOTPROF_ANALYSIS_HTML_SVG_H
#define HOTPROF_ANALYSIS_HTML_SVG_H
#include <stdint.h>
#include <stdio.h>

#define HP_SVG_CHAR_PX 7.0 /* the width of a character of the labels' font, about */

/* <svg viewBox="0 0 w h" ...> with an aria-label; end with hp_svg_close. */
void hp_svg_open(FILE *out, const char *cls, double w, double h, const char *label);
void hp_svg_close(FILE *out);
/* A warm colour from a hash of name ("#rrggbb" into buf[8]); the same name, the same colour. */
const char *hp_svg_colour(const char *name, char buf[8]);
/* <g><title>title</title><rect .../>; leaves the <g> open for a label: close with hp_svg_group_end. */
void hp_svg_rect(FILE *out, double x, double y, double w, double h, const char *fill, const char *title);
void hp_svg_group_end(FILE *out);
/* A text label at (x, y) cut to fit width px (nothing if not even 3 characters fit). anchor:
 * "start", "middle" or "end". */
void hp_svg_text(FILE *out, double x, double y, double width, const char *anchor, const char *text);

#endif

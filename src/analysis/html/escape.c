/* escape.c — HTML escaping and the small table helpers of html.h.
 * Invariant: what is written never contains a raw & < > " ' or a control character from the
 * input, so no profile text can open a tag, close an attribute or inject a script.
 */
#include "analysis/html/html.h"
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s, 0 if none (lenient: continuation bytes only). */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    return n;
}

/* Writes the character at c; returns how many bytes it used. */
static size_t put_char(FILE *out, const unsigned char *c)
{
    int n;
    switch (*c) {
    case '&': fputs("&amp;", out); return 1;
    case '<': fputs("&lt;", out); return 1;
    case '>': fputs("&gt;", out); return 1;
    case '"': fputs("&quot;", out); return 1;
    case '\'': fputs("&#39;", out); return 1;
    default: break;
    }
    if (*c == '\n' || *c == '\t') return fputc(*c, out), 1;
    if (*c < 0x20 || *c == 0x7f) return fputc('?', out), 1;
    if (*c < 0x80) return fputc(*c, out), 1;
    if ((n = utf8_len(c)) > 0) return fwrite(c, 1, (size_t)n, out), (size_t)n;
    return fputc('?', out), 1;
}

void hp_html_escape(FILE *out, const char *s)
{
    const unsigned char *c = (const unsigned char *)s;
    while (*c) c += put_char(out, c);
}

void hp_html_escape_cut(FILE *out, const char *s, size_t n)
{
    const unsigned char *c = (const unsigned char *)s, *end = c + n;
    while (*c && c < end) {
        int len = *c >= 0x80 ? utf8_len(c) : 1;
        if (len > 1 && c + len > end) break;
        c += put_char(out, c);
    }
    if (*c) fputs("...", out);
}

void hp_html_td(FILE *out, const char *text)
{
    fputs("<td>", out);
    hp_html_escape(out, text);
    fputs("</td>", out);
}

void hp_html_td_num(FILE *out, const char *text)
{
    fputs("<td class=\"n\">", out);
    hp_html_escape(out, text);
    fputs("</td>", out);
}

void hp_html_heading(FILE *out, const char *title)
{
    fputs("<h2>", out);
    hp_html_escape(out, title);
    fputs("</h2>\n", out);
}

void hp_html_table_head(FILE *out, const char *const *cols, size_t n)
{
    fputs("<table>\n<thead><tr>", out);
    for (size_t i = 0; i < n; i++) {
        fputs("<th>", out);
        hp_html_escape(out, cols[i]);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
}

void hp_html_table_end(FILE *out) { fputs("</tbody>\n</table>\n", out); }

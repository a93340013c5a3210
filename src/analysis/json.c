/* json.c — JSON string literals for every JSON the analysis writes (report, compare).
 * Invariant: the output is valid JSON whatever the bytes: quotes, backslashes and control
 * characters are escaped, well-formed UTF-8 (RFC 3629, no surrogates) is copied, and any other
 * byte becomes '?'.
 */
#include "analysis/report.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629), 0 if it is not one. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f; /* no surrogates */
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (!n || s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

void hp_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        int n;
        if (*c == '"' || *c == '\\') fprintf(out, "\\%c", *c);
        else if (*c == '\n') fputs("\\n", out);
        else if (*c == '\t') fputs("\\t", out);
        else if (*c < 0x20 || *c == 0x7f) fprintf(out, "\\u%04x", *c);
        else if (*c < 0x80) fputc(*c, out);
        else if ((n = utf8_length(c)) > 0) fwrite(c, 1, (size_t)n, out), c += n - 1;
        else fputc('?', out); /* not UTF-8: keep the output valid JSON */
    }
    fputc('"', out);
}


/* capture.c — hp_html_pre (page.h): text written by another writer (a type's text table, the
 * text header, `compare`'s table) captured in memory, then shown escaped in a <pre>.
 */
#define _GNU_SOURCE
#include "analysis/html/html.h"
#include "analysis/html/page.h"
#include <stdlib.h>

int hp_html_pre(FILE *out, hp_html_text_fn write, const void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) return -1;
    int rc = write(mem, ctx);
    if (fclose(mem) || !buf) rc = -1;
    if (!rc) {
        fputs("<pre>", out);
        hp_html_escape(out, buf);
        fputs("</pre>\n", out);
    }
    free(buf);
    return rc;
}

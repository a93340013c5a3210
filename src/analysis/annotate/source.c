/* source.c — a source file read whole and split into lines for `hotprof annotate` (annotate.h).
 * Files over HP_ANNOT_SOURCE_MAX bytes are refused (EFBIG), like any file that cannot be read.
 * Invariant: lines[i] is line i + 1, NUL-terminated, without its '\n' or a '\r' before it; control
 * characters other than tabs become '?' so that a binary file cannot drive the terminal.
 */
#include "analysis/annotate/annotate.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HP_ANNOT_SOURCE_MAX (64u << 20)

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t n = 0, cap = 0;
    if (!f) return NULL;
    for (;;) {
        if (cap - n < 4096) {
            char *t = cap >= HP_ANNOT_SOURCE_MAX ? NULL : realloc(text, cap ? cap * 2 : 65536);
            if (!t) {
                errno = cap >= HP_ANNOT_SOURCE_MAX ? EFBIG : ENOMEM;
                break;
            }
            text = t, cap = cap ? cap * 2 : 65536;
        }
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) errno = EIO;
            else {
                fclose(f);
                text[n] = 0;
                *len = n;
                return text;
            }
            break;
        }
    }
    int e = errno;
    fclose(f);
    free(text);
    errno = e;
    return NULL;
}

static void clean_line(char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '\r') s[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 32 && s[i] != '\t') s[i] = '?';
}

int hp_annot_source_read(const char *path, hp_annot_source *src)
{
    size_t len = 0, n = 1;
    *src = (hp_annot_source){0};
    src->text = read_whole(path, &len);
    if (!src->text) return -1;
    for (size_t i = 0; i < len; i++) n += src->text[i] == '\n';
    src->lines = malloc(n * sizeof *src->lines);
    if (!src->lines) {
        free(src->text);
        src->text = NULL;
        errno = ENOMEM;
        return -1;
    }
    char *line = src->text;
    for (char *nl; (nl = memchr(line, '\n', len - (size_t)(line - src->text))) != NULL; line = nl + 1) {
        *nl = 0;
        src->lines[src->nlines++] = line;
    }
    if (*line) src->lines[src->nlines++] = line; /* a last line without '\n' */
    for (size_t i = 0; i < src->nlines; i++) clean_line(src->lines[i]);
    return 0;
}

const char *hp_annot_source_line(const hp_annot_source *src, int line)
{
    return src && line >= 1 && (size_t)line <= src->nlines ? src->lines[line - 1] : NULL;
}

void hp_annot_source_free(hp_annot_source *src)
{
    free(src->lines);
    free(src->text);
    *src = (hp_annot_source){0};
}

/* folded.c — folded stacks (folded.h): building a line from frames, merging equal stacks and the
 * deterministic order (count descending, then text) in which `report --format folded` prints them.
 */
#include "analysis/folded.h"
#include "core/base/bounds.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void hp_fold_init(hp_fold *f) { *f = (hp_fold){0}; }

void hp_fold_free(hp_fold *f)
{
    for (size_t i = 0; i < f->n; i++) free(f->lines[i].stack);
    free(f->lines);
    *f = (hp_fold){0};
}

/* A frame's characters as written: ';' and control characters -> '_' (one parse only). */
static char sanitized(unsigned char c) { return c == ';' || c < 0x20 || c == 0x7f ? '_' : (char)c; }

static char *join(const char *const *frames, size_t nframes)
{
    size_t len = 1;
    for (size_t i = 0; i < nframes; i++) len += (frames[i][0] ? strlen(frames[i]) : 1) + 1;
    char *s = malloc(len), *w = s;
    if (!s) return NULL;
    for (size_t i = 0; i < nframes; i++) {
        const char *fr = frames[i][0] ? frames[i] : "?";
        if (i) *w++ = ';';
        while (*fr) *w++ = sanitized((unsigned char)*fr++);
    }
    *w = 0;
    return s;
}

int hp_fold_add(hp_fold *f, const char *const *frames, size_t nframes, uint64_t count)
{
    if (!count) return 0;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        hp_fold_line *l = realloc(f->lines, cap * sizeof *l);
        if (!l) return -1;
        f->lines = l, f->cap = cap;
    }
    char *s = join(frames, nframes);
    if (!s) return -1;
    f->lines[f->n++] = (hp_fold_line){s, count};
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(((const hp_fold_line *)a)->stack, ((const hp_fold_line *)b)->stack);
}

static int by_count_then_text(const void *a, const void *b)
{
    const hp_fold_line *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->stack, y->stack);
}

/* Equal stacks (adjacent after sorting by text) become one line. */
void hp_fold_merge(hp_fold *f)
{
    size_t k = 0;
    if (f->n < 2) return; /* nothing to merge (and no array to sort when empty) */
    qsort(f->lines, f->n, sizeof *f->lines, by_text);
    for (size_t i = 0; i < f->n; i++) {
        if (k && !strcmp(f->lines[k - 1].stack, f->lines[i].stack)) {
            f->lines[k - 1].count = hp_sat_add(f->lines[k - 1].count, f->lines[i].count);
            free(f->lines[i].stack);
        } else {
            f->lines[k++] = f->lines[i];
        }
    }
    f->n = k;
}

int hp_fold_write(FILE *out, hp_fold *f)
{
    hp_fold_merge(f);
    if (f->n > 1) qsort(f->lines, f->n, sizeof *f->lines, by_count_then_text);
    for (size_t i = 0; i < f->n; i++) fprintf(out, "%s %" PRIu64 "\n", f->lines[i].stack, f->lines[i].count);
    return ferror(out) ? -1 : 0;
}

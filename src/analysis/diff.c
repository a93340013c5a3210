/* diff.c — `hotprof diff` (diff.h): joining two profiles' named rows per profile type, the order
 * by change, and the text and JSON output; one loop over the analysis profile types.
 */
#include "analysis/diff.h"
#include "analysis/ptype/aptype.h"
#include "analysis/report.h"
#include "analysis/symbolize.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fold_total(const hp_fold *f)
{
    uint64_t s = 0;
    for (size_t i = 0; i < f->n; i++) s = hp_sat_add(s, f->lines[i].count);
    return s;
}

static double share(uint64_t x, uint64_t total) { return total ? 100.0 * (double)x / (double)total : 0.0; }

static int by_change(const void *x, const void *y)
{
    const hp_diff_row *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void add_row(hp_diff_table *t, const char *name, uint64_t ca, uint64_t cb)
{
    hp_diff_row *r = &t->rows[t->n++];
    r->name = name, r->count_a = ca, r->count_b = cb;
    r->share_a = share(ca, t->total_a), r->share_b = share(cb, t->total_b);
    r->delta = r->share_b - r->share_a;
}

int hp_diff_join(hp_fold *a, hp_fold *b, hp_diff_table *t)
{
    hp_fold_merge(a);
    hp_fold_merge(b);
    *t = (hp_diff_table){NULL, 0, a->n, b->n, 0, fold_total(a), fold_total(b)};
    t->rows = calloc(a->n + b->n + 1, sizeof *t->rows);
    if (!t->rows) return -1;
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->lines[i].stack, b->lines[j].stack);
        if (c == 0) t->n_common++;
        add_row(t, c <= 0 ? a->lines[i].stack : b->lines[j].stack, c <= 0 ? a->lines[i].count : 0,
                c >= 0 ? b->lines[j].count : 0);
        i += c <= 0, j += c >= 0;
    }
    qsort(t->rows, t->n, sizeof *t->rows, by_change);
    return 0;
}

void hp_diff_table_free(hp_diff_table *t)
{
    free(t->rows);
    *t = (hp_diff_table){0};
}

int hp_diff_unchanged(const hp_diff_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].delta != 0.0) return 0;
    return 1;
}

/* ---- output ---- */

static void ratio_text(char *buf, size_t n, const hp_diff_row *r)
{
    if (!r->count_a) snprintf(buf, n, "%s", r->count_b ? "new" : "-");
    else if (!r->count_b) snprintf(buf, n, "gone");
    else snprintf(buf, n, "%.2fx", (double)r->count_b / (double)r->count_a);
}

static void text_type(FILE *out, const hp_ptype *c, const hp_diff_table *t, const hp_diff_opts *o)
{
    size_t n = t->n < o->top ? t->n : o->top;
    fprintf(out, "\n%s: %zu in A, %zu in B, %zu in both; totals %" PRIu64 " -> %" PRIu64 "\n", c->title, t->n_a,
            t->n_b, t->n_common, t->total_a, t->total_b);
    if (hp_diff_unchanged(t)) {
        fprintf(out, "  no change (every share is the same in A and B)\n");
        return;
    }
    fprintf(out, "%8s %7s %7s %12s %12s %8s  %s\n", "delta", "A %", "B %", "A count", "B count", "ratio", "name");
    for (size_t i = 0; i < n; i++) {
        const hp_diff_row *r = &t->rows[i];
        char ratio[32];
        ratio_text(ratio, sizeof ratio, r);
        fprintf(out, "%+7.2f%% %6.2f%% %6.2f%% %12" PRIu64 " %12" PRIu64 " %8s  %s\n", r->delta, r->share_a,
                r->share_b, r->count_a, r->count_b, ratio, r->name);
    }
    if (n < t->n) fprintf(out, "  (%zu more; --top N shows more)\n", t->n - n);
}

static void json_row(FILE *out, const hp_diff_row *r, int first)
{
    fprintf(out, "%s\n      {\"name\": ", first ? "" : ",");
    hp_json_string(out, r->name);
    fprintf(out, ", \"count_a\": %" PRIu64 ", \"count_b\": %" PRIu64 ", \"share_a\": %.4f, \"share_b\": %.4f, "
                 "\"delta\": %.4f, \"ratio\": ", r->count_a, r->count_b, r->share_a, r->share_b, r->delta);
    if (r->count_a) fprintf(out, "%.4f}", (double)r->count_b / (double)r->count_a);
    else fputs("null}", out);
}

static void json_type(FILE *out, const hp_ptype *c, const hp_diff_table *t, const hp_diff_opts *o, int first)
{
    size_t n = t->n < o->top ? t->n : o->top;
    fprintf(out, "%s\n    {\"type\": \"%s\", \"n_a\": %zu, \"n_b\": %zu, \"n_common\": %zu, \"total_a\": %" PRIu64
                 ", \"total_b\": %" PRIu64 ", \"no_change\": %s, \"rows\": [", first ? "" : ",", c->name, t->n_a,
            t->n_b, t->n_common, t->total_a, t->total_b, hp_diff_unchanged(t) ? "true" : "false");
    for (size_t i = 0; i < n; i++) json_row(out, &t->rows[i], i == 0);
    fputs(n ? "\n    ]}" : "]}", out);
}

typedef struct diff_ctx { hp_symbolizer *sa, *sb; } diff_ctx;

static int one_type(FILE *out, const hp_aptype *t, const hp_profile *a, const hp_profile *b, const diff_ctx *x,
                    const hp_diff_opts *o, int first)
{
    hp_fold fa, fb;
    hp_diff_table tab = {0};
    hp_fold_init(&fa);
    hp_fold_init(&fb);
    int rc = t->diff_rows(&fa, a, x->sa) || t->diff_rows(&fb, b, x->sb) || hp_diff_join(&fa, &fb, &tab) ? -1 : 0;
    if (!rc && o->json) json_type(out, hp_ptypes[t->id], &tab, o, first);
    else if (!rc) text_type(out, hp_ptypes[t->id], &tab, o);
    hp_diff_table_free(&tab);
    hp_fold_free(&fa);
    hp_fold_free(&fb);
    return rc;
}

static int each_type(FILE *out, const hp_profile *a, const hp_profile *b, const diff_ctx *x, const hp_diff_opts *o)
{
    int first = 1;
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!t->diff_rows || (o->type >= 0 && o->type != t->id)) continue;
        if (one_type(out, t, a, b, x, o, first)) return -1;
        first = 0;
    }
    return 0;
}

int hp_diff_write(FILE *out, const hp_profile *a, const hp_profile *b, const hp_diff_opts *o)
{
    diff_ctx x = {hp_sym_open(a->modules, a->nmodules), hp_sym_open(b->modules, b->nmodules)};
    int rc = -1;
    if (!x.sa || !x.sb) goto out;
    if (o->json) {
        fputs("{\"a\": ", out);
        hp_json_string(out, o->name_a);
        fputs(", \"b\": ", out);
        hp_json_string(out, o->name_b);
        fputs(", \"types\": [", out);
    } else {
        fprintf(out, "# baseline A: %s\n# new B:      %s\n# delta = share in B - share in A (percentage points)\n",
                o->name_a, o->name_b);
    }
    rc = each_type(out, a, b, &x, o);
    if (!rc && o->json) fputs("\n  ]}\n", out);
    if (ferror(out)) rc = -1;
out:
    if (x.sa) hp_sym_close(x.sa);
    if (x.sb) hp_sym_close(x.sb);
    return rc;
}

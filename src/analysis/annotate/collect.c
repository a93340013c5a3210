/* collect.c — which functions a profile has block counts for, finding one by name, and one
 * function's blocks and per-line sums (annotate.h).
 *
 * A function is known by the symbol holding its blocks' pcs (hp_sym_lookup's func_start), so two
 * static functions of one name are two entries (and a name matching both is ambiguous). A
 * function's blocks are the block map's pcs from its start on while the symbolizer puts them in
 * the same function (a function's code is contiguous; a split-off "f.cold" is its own symbol).
 */
#define _GNU_SOURCE
#include "analysis/annotate/annotate.h"
#include "analysis/pairmap.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index ---- */

int hp_annot_fn_cmp(const void *a, const void *b)
{
    const hp_annot_fn *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

int hp_annot_index_add(hp_annot_index *ix, struct hp_pairmap *byaddr, const hp_symbol *sym, uint64_t count)
{
    hp_pair_item *it = hp_pairmap_get(byaddr, sym->func_start, 0);
    if (!it) return -1;
    if (!it->v2) {
        hp_annot_fn *n = realloc(ix->fns, (ix->nfns + 1) * sizeof *n);
        if (!n) return -1;
        ix->fns = n;
        ix->fns[ix->nfns] = (hp_annot_fn){sym->function, sym->func_start, 0};
        it->v1 = ix->nfns++;
        it->v2 = 1;
    }
    ix->fns[it->v1].total = hp_sat_add(ix->fns[it->v1].total, count);
    return 0;
}

int hp_annot_index_build(const hp_profile *p, hp_symbolizer *s, hp_annot_index *ix)
{
    hp_pairmap byaddr = {0};
    int rc = 0;
    *ix = (hp_annot_index){0};
    for (size_t i = 0; i < p->nblocks && !rc; i++) {
        const hp_block_stat *b = &p->blocks[i];
        if (!b->mapped || !b->count) continue;
        const hp_symbol *sym = hp_sym_lookup(s, b->pc);
        if (!sym) rc = -1;
        else if (!sym->function) ix->unnamed++;
        else rc = hp_annot_index_add(ix, &byaddr, sym, b->count);
    }
    hp_pairmap_free(&byaddr);
    if (ix->nfns) qsort(ix->fns, ix->nfns, sizeof *ix->fns, hp_annot_fn_cmp);
    return rc;
}

void hp_annot_index_free(hp_annot_index *ix)
{
    free(ix->fns);
    *ix = (hp_annot_index){0};
}

/* ---- finding a function ---- */

/* name equals symbol, or is symbol followed by a parameter list. */
static int name_matches(const char *name, const char *symbol, int with_params)
{
    size_t n = strlen(symbol);
    if (strncmp(name, symbol, n) != 0) return 0;
    return name[n] == 0 || (with_params && name[n] == '(');
}

/* The only index entry matching, -1 if none, -2 if several (then msg lists them). */
static long find_by(const hp_annot_index *ix, const char *symbol, int with_params, char *msg, size_t len)
{
    long found = -1;
    size_t nmatch = 0, used = 0;
    for (size_t i = 0; i < ix->nfns; i++) {
        if (!name_matches(ix->fns[i].name, symbol, with_params)) continue;
        if (nmatch++ == 0) found = (long)i;
    }
    if (nmatch <= 1) return found;
    used += (size_t)snprintf(msg, len, "'%s' is ambiguous (%zu functions):", symbol, nmatch);
    for (size_t i = 0, k = 0; i < ix->nfns && k < 8 && used < len; i++)
        if (name_matches(ix->fns[i].name, symbol, with_params))
            k++, used += (size_t)snprintf(msg + used, len - used, "%s %s at 0x%" PRIx64, k > 1 ? "," : "",
                                          ix->fns[i].name, ix->fns[i].start);
    if (used < len) snprintf(msg + used, len - used, "; give the full name with its parameters");
    return -2;
}

static void list_close_matches(const hp_annot_index *ix, const char *symbol, char *msg, size_t len)
{
    size_t used = (size_t)snprintf(msg, len, "no profiled function is called '%s'", symbol), k = 0;
    for (size_t i = 0; i < ix->nfns && k < 8 && used < len; i++)
        if (strcasestr(ix->fns[i].name, symbol) || strcasestr(symbol, ix->fns[i].name))
            used += (size_t)snprintf(msg + used, len - used, "%s %s", k++ ? "," : "; close matches:",
                                     ix->fns[i].name);
    for (size_t i = 0; i < ix->nfns && !k && i < 5 && used < len; i++)
        used += (size_t)snprintf(msg + used, len - used, "%s %s", i ? "," : "; the hottest are:", ix->fns[i].name);
}

long hp_annot_find(const hp_annot_index *ix, hp_symbolizer *s, const char *symbol, char *msg, size_t len)
{
    long i = find_by(ix, symbol, 0, msg, len);
    if (i == -1) i = find_by(ix, symbol, 1, msg, len);
    if (i == -1 && strncmp(symbol, "_Z", 2) == 0) {
        char *d = hp_sym_demangle(s, symbol);
        if (d && strcmp(d, symbol) != 0) i = find_by(ix, d, 0, msg, len);
        free(d);
    }
    if (i == -1) list_close_matches(ix, symbol, msg, len);
    return i < 0 ? -1 : i;
}

/* ---- one function ---- */

static int cmp_line(const void *a, const void *b)
{
    const hp_annot_line *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

int hp_annot_sum_lines(const hp_annot_block *b, size_t n, hp_annot_line **out, size_t *nout)
{
    hp_annot_line *l = malloc((n + 1) * sizeof *l);
    size_t k = 0;
    if (!l) return -1;
    for (size_t i = 0; i < n; i++) l[i] = (hp_annot_line){b[i].file, b[i].line, b[i].count, 1};
    if (n) qsort(l, n, sizeof *l, cmp_line);
    for (size_t i = 0; i < n; i++) {
        if (k && cmp_line(&l[k - 1], &l[i]) == 0) {
            l[k - 1].count = hp_sat_add(l[k - 1].count, l[i].count);
            l[k - 1].nblocks++;
        } else {
            l[k++] = l[i];
        }
    }
    *out = l;
    *nout = k;
    return 0;
}

/* The index of file in f->files, added if new; -1 out of memory. */
int hp_annot_file_index(hp_annot_func *f, const char *file)
{
    for (size_t i = 0; i < f->nfiles; i++)
        if (strcmp(f->files[i], file) == 0) return (int)i;
    const char **n = realloc(f->files, (f->nfiles + 1) * sizeof *n);
    if (!n) return -1;
    f->files = n;
    f->files[f->nfiles] = file;
    return (int)f->nfiles++;
}

static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* f->blocks: the block map's pcs of the function, with file and line; counts still 0. */
static int gather_blocks(const hp_profile *p, hp_symbolizer *s, hp_annot_func *f)
{
    size_t first = lower_bound(p->block_pcs, p->nblock_pcs, f->start), n = 0;
    f->blocks = calloc(p->nblock_pcs - first + 1, sizeof *f->blocks);
    if (!f->blocks) return -1;
    for (size_t i = first; i < p->nblock_pcs; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, p->block_pcs[i]);
        if (!sym) return -1;
        if (!sym->function || sym->func_start != f->start) break;
        int file = sym->file ? hp_annot_file_index(f, sym->file) : -1;
        if (sym->file && file < 0) return -1;
        f->blocks[n++] = (hp_annot_block){sym->addr, 0, file, sym->file ? sym->line : 0};
    }
    f->nblocks = n;
    return 0;
}

/* Adds each executed block's count to its pc's entry in f->blocks. */
static void add_counts(const hp_profile *p, hp_annot_func *f)
{
    for (size_t i = 0; i < p->nblocks; i++) {
        const hp_block_stat *b = &p->blocks[i];
        if (!b->mapped || !f->nblocks || b->pc < f->blocks[0].pc || b->pc > f->blocks[f->nblocks - 1].pc) continue;
        size_t lo = 0, hi = f->nblocks;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (f->blocks[mid].pc < b->pc) lo = mid + 1;
            else hi = mid;
        }
        if (lo < f->nblocks && f->blocks[lo].pc == b->pc) {
            f->blocks[lo].count = hp_sat_add(f->blocks[lo].count, b->count);
            f->total = hp_sat_add(f->total, b->count);
        }
    }
}

int hp_annot_collect(const hp_profile *p, hp_symbolizer *s, const hp_annot_fn *fn, hp_annot_func *f)
{
    *f = (hp_annot_func){.name = fn->name, .start = fn->start, .module = hp_profile_module_at(p, fn->start)};
    if (gather_blocks(p, s, f)) return -1;
    add_counts(p, f);
    return hp_annot_sum_lines(f->blocks, f->nblocks, &f->lines, &f->nlines);
}

void hp_annot_func_free(hp_annot_func *f)
{
    free(f->files);
    free(f->blocks);
    free(f->lines);
    *f = (hp_annot_func){0};
}

/* samples_report.c — `hotprof report --type samples`: hot functions by timer samples, self (the
 * interrupted pc in the function) and total (the function anywhere on the stack, once per sample),
 * with percentages of all samples (samples.h has the arithmetic), as a text table and as JSON;
 * the samples' part of the header totals (samples, threads, dropped).
 * Invariants: percentages are of hp_samples_total(); a row's self <= total <= the total samples.
 */
#define _GNU_SOURCE
#include "analysis/ptype/samples.h"
#include "analysis/ptype/aptype.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-function sums ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_func(const void *a, const void *b)
{
    const hp_sample_func *f = a, *g = b;
    int r = hp_rt_cmp_desc(f->self, g->self);
    if (!r) r = hp_rt_cmp_desc(f->total, g->total);
    return r ? r : hp_rt_cmp_asc(f->addr, g->addr);
}

/* The function start of addr, cached in starts (addr -> start + 1). 0 out of memory. */
static int start_of(hp_symbolizer *s, hp_pairmap *starts, uint64_t addr, uint64_t *out)
{
    hp_pair_item *it = hp_pairmap_get(starts, addr, 0);
    if (!it) return 0;
    if (!it->v1) it->v1 = hp_sym_function_start(s, addr) + 1;
    *out = it->v1 - 1;
    return 1;
}

/* Adds one stack: self to the function of pcs[0], total once to each distinct function. */
static int add_stack(const hp_stack_stat *st, hp_symbolizer *s, hp_pairmap *starts, hp_pairmap *funcs)
{
    uint64_t keys[HP_STACK_MAX_DEPTH];
    for (size_t i = 0; i < st->depth; i++)
        if (!start_of(s, starts, hp_stack_frame_addr(st, i), &keys[i])) return 0;
    hp_pair_item *leaf = hp_pairmap_get(funcs, keys[0], 0);
    if (!leaf) return 0;
    leaf->v1 = hp_sat_add(leaf->v1, st->count);
    qsort(keys, st->depth, sizeof *keys, cmp_u64);
    for (size_t i = 0; i < st->depth; i++) {
        if (i && keys[i] == keys[i - 1]) continue;
        hp_pair_item *it = hp_pairmap_get(funcs, keys[i], 0);
        if (!it) return 0;
        it->v2 = hp_sat_add(it->v2, st->count);
    }
    return 1;
}

hp_sample_func *hp_samples_functions(const hp_profile *p, hp_symbolizer *s, size_t *n, int *oom)
{
    hp_pairmap starts = {0}, funcs = {0};
    hp_sample_func *out = NULL;
    int ok = 1;
        *n = 0, *oom = 0;
    for (size_t i = 0; i < p->nstacks && ok; i++) ok = add_stack(&p->stacks[i], s, &starts, &funcs);
    if (ok && funcs.count && (out = calloc(funcs.count, sizeof *out))) {
        for (size_t i = 0; i < funcs.count; i++)
            out[i] = (hp_sample_func){funcs.items[i].k1, funcs.items[i].v1, funcs.items[i].v2};
        *n = funcs.count;
        qsort(out, *n, sizeof *out, cmp_func);
    } else if (!ok || funcs.count) {
        *oom = 1;
    }
    hp_pairmap_free(&starts), hp_pairmap_free(&funcs);
    return out;
}

/* ---- text ---- */

/* Widths of the name and file:line columns over the rows shown: the widest entry of each. */
static void widths(hp_symbolizer *s, const hp_sample_func *f, size_t n, int *wname, int *wwhere)
{
    *wname = 8, *wwhere = 9;
    for (size_t i = 0; i < n; i++) {
        hp_rt_sym r;
        hp_rt_describe_inline(s, f[i].addr, &r);
        if (hp_rt_text_width(r.name) > *wname) *wname = hp_rt_text_width(r.name);
        if (hp_rt_text_width(r.where) > *wwhere) *wwhere = hp_rt_text_width(r.where);
    }
}

static int text_table(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o,
                      const hp_sample_func *f, size_t nf)
{
    size_t n = hp_rt_rows(nf, o);
    uint64_t total = hp_samples_total(p);
    int wname, wwhere;
    widths(s, f, n, &wname, &wwhere);
    hp_rt_heading(out, o, "Hot functions by samples (self: the interrupted pc; total: anywhere on the stack): "
                  "%zu of %zu", n, nf);
    fprintf(out, "%4s %10s %6s %10s %6s  %-*s  %s\n", "rank", "self", "%", "total", "%", wname, "function",
            "file:line");
    for (size_t i = 0; i < n; i++) {
        hp_rt_sym r;
        hp_rt_describe_inline(s, f[i].addr, &r);
        fprintf(out, "%4zu %10" PRIu64 " ", i + 1, f[i].self);
        hp_rt_percent_cell(out, o, hp_rt_percent(f[i].self, total));
        fprintf(out, " %10" PRIu64 " ", f[i].total);
        hp_rt_percent_cell(out, o, hp_rt_percent(f[i].total, total));
        fputs("  ", out);
        hp_rt_cell(out, r.name, wname);
        fputs("  ", out);
        hp_rt_last_cell(out, r.where, wwhere);
    }
    return 0;
}

int hp_samples_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t nf;
    int oom;
    hp_sample_func *f = hp_samples_functions(p, s, &nf, &oom);
    if (oom) return -1;
    if (!p->nstack_sections) return free(f), 0; /* not a timer profile: no table */
    fputc('\n', out);
    int rc = text_table(out, p, s, o, f, nf);
    if (!nf) fprintf(out, "  (no timer samples in this profile)\n");
    free(f);
    return rc;
}

static uint64_t dropped(const hp_profile *p)
{
    const char *v = hp_profile_info(p, HP_INFO_TIMER_DROPPED);
    return v ? strtoull(v, NULL, 10) : 0;
}

int hp_samples_text_totals(char *buf, size_t len, const hp_profile *p)
{
    if (!p->nstacks && !p->nstack_sections) return 0;
    return snprintf(buf, len, "%" PRIu64 " samples, %zu sampled threads, %" PRIu64 " dropped", hp_samples_total(p),
                    p->nstack_sections, dropped(p));
}

/* ---- JSON ---- */

int hp_samples_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t nf;
    int oom;
    hp_sample_func *f = hp_samples_functions(p, s, &nf, &oom);
    uint64_t total = hp_samples_total(p);
    if (oom) return -1;
    size_t n = hp_rt_rows(nf, o);
    fputs("  \"samples\": [", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"rank\": %zu, \"self\": %" PRIu64 ", \"self_percent\": %.2f, \"total\": %" PRIu64
                ", \"total_percent\": %.2f, ", i ? "," : "", i + 1, f[i].self, hp_rt_percent(f[i].self, total),
                f[i].total, hp_rt_percent(f[i].total, total));
        hp_rt_json_symbol(out, s, "", f[i].addr);
        fputs("}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
    free(f);
    return 0;
}

/* Always writes its members (report.c puts the comma before a type that has the hook). */
int hp_samples_json_totals(FILE *out, const hp_profile *p)
{
    fprintf(out, "\"samples\": %" PRIu64 ", \"sampled_threads\": %zu, \"dropped\": %" PRIu64, hp_samples_total(p),
            p->nstack_sections, dropped(p));
    return 1;
}

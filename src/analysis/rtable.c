/* rtable.c — the shared pieces of report tables (see rtable.h for the estimate rule and the
 * rule that no cell is ever cut). Nothing here knows a profile type: a table passes its HPS type
 * index. Colour (ANSI SGR) is written only when hp_report_opts.color says so: the caller (src/cli)
 * decides it from the terminal; nothing here looks at the output stream.
 */
#define _GNU_SOURCE
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MIN_COL 8  /* "function" */
#define WHERE_MIN_COL 9 /* "file:line" */
#define SGR_BOLD "\033[1m"
#define SGR_RED "\033[31m"
#define SGR_YELLOW "\033[33m"
#define SGR_RESET "\033[m"

size_t hp_rt_rows(size_t n, const hp_report_opts *o) { return o->top && o->top < n ? o->top : n; }

double hp_rt_percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

size_t *hp_rt_order(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order) return NULL;
    for (size_t i = 0; i < n; i++) order[i] = i;
    qsort_r(order, n, sizeof *order, cmp, ctx);
    return order;
}

char **hp_rt_names(hp_symbolizer *s, size_t n, hp_rt_addr_fn addr_of, const hp_profile *p)
{
    char **names = calloc(n + 1, sizeof *names);
    for (size_t i = 0; names && i < n; i++) {
        char buf[512] = "";
        const hp_symbol *sym = hp_sym_lookup(s, addr_of(p, i));
        if (sym) hp_sym_name(sym, buf, sizeof buf);
        names[i] = strdup(buf);
        if (!names[i]) {
            while (i--) free(names[i]);
            free(names);
            return NULL;
        }
    }
    return names;
}

void hp_rt_free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
}

/* ---- bursty estimates ---- */

double hp_rt_frequency(const hp_profile *p, int t)
{
    double f = hp_profile_sample_frequency(p, t);
    if (f <= 0.0 && p->sample[t].known) f = hp_bursty_frequency(p->sample[t].burst, p->sample[t].period);
    return f;
}

int hp_rt_estimated(const hp_profile *p, int t) { return p->bursty && hp_rt_frequency(p, t) > 0.0; }

static double estimate_of(const hp_profile *p, int t, uint64_t x)
{
    return hp_rt_estimated(p, t) ? (double)x / hp_rt_frequency(p, t) : (double)x;
}

const char *hp_rt_count_cell(char *buf, size_t n, const hp_profile *p, int t, uint64_t x)
{
    if (hp_rt_estimated(p, t)) snprintf(buf, n, "~%.0f", estimate_of(p, t, x));
    else snprintf(buf, n, "%" PRIu64, x);
    return buf;
}

const char *hp_rt_count_header(char *buf, size_t n, const hp_profile *p, int t, const char *name)
{
    snprintf(buf, n, "%s%s", hp_rt_estimated(p, t) ? "est." : "", name);
    return buf;
}

/* ---- text cells ---- */

int hp_rt_text_width(const char *s)
{
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80; /* UTF-8: count lead bytes only */
    return w;
}

void hp_rt_cell(FILE *out, const char *s, int width)
{
    int pad = width - hp_rt_text_width(s);
    fprintf(out, "%s%*s", s, pad > 0 ? pad : 0, "");
}

void hp_rt_last_cell(FILE *out, const char *s, int width) { fprintf(out, "%s\n", s); }

void hp_rt_percent_cell(FILE *out, const hp_report_opts *o, double pct)
{
    const char *sgr = pct >= HP_RT_RED_PERCENT ? SGR_RED : pct >= HP_RT_YELLOW_PERCENT ? SGR_YELLOW : NULL;
    if (o->color && sgr) fprintf(out, "%s%5.1f%%%s", sgr, pct, SGR_RESET);
    else fprintf(out, "%5.1f%%", pct);
}

void hp_rt_heading(FILE *out, const hp_report_opts *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (o->color) fputs(SGR_BOLD, out);
    vfprintf(out, fmt, ap);
    if (o->color) fputs(SGR_RESET, out);
    fputc('\n', out);
    va_end(ap);
}

void hp_rt_describe(hp_symbolizer *s, uint64_t addr, hp_rt_sym *r)
{
    r->sym = hp_sym_lookup(s, addr);
    if (r->sym) {
        hp_sym_name(r->sym, r->name, sizeof r->name);
        hp_sym_where(r->sym, r->where, sizeof r->where);
    } else {
        snprintf(r->name, sizeof r->name, "0x%" PRIx64, addr);
        r->where[0] = 0;
    }
}

void hp_rt_describe_inline(hp_symbolizer *s, uint64_t addr, hp_rt_sym *r)
{
    hp_rt_describe(s, addr, r);
    if (r->sym) hp_sym_name_inline(r->sym, r->name, sizeof r->name);
}

void hp_rt_portable_name(const hp_profile *p, hp_symbolizer *s, uint64_t addr, char *buf, size_t n)
{
    const hp_symbol *sym = hp_sym_lookup(s, addr);
    const hp_module *m = sym ? NULL : hp_profile_module_at(p, addr);
    if (sym) {
        hp_sym_name(sym, buf, n);
    } else if (m) {
        const char *slash = strrchr(m->path, '/');
        snprintf(buf, n, "%s+0x%" PRIx64, slash ? slash + 1 : m->path, addr - m->base);
    } else {
        snprintf(buf, n, "0x%" PRIx64, addr);
    }
}

void hp_rt_widths(const hp_profile *p, hp_symbolizer *s, const size_t *order, size_t n, hp_rt_addr_fn addr_of,
                  int *wname, int *wwhere)
{
    *wname = NAME_MIN_COL;
    *wwhere = WHERE_MIN_COL;
    for (size_t i = 0; i < n; i++) {
        hp_rt_sym r;
        hp_rt_describe_inline(s, addr_of(p, order[i]), &r);
        if (hp_rt_text_width(r.name) > *wname) *wname = hp_rt_text_width(r.name);
        if (hp_rt_text_width(r.where) > *wwhere) *wwhere = hp_rt_text_width(r.where);
    }
}

/* ---- JSON ---- */

void hp_rt_json_symbol(FILE *out, hp_symbolizer *s, const char *prefix, uint64_t addr)
{
    hp_rt_sym r;
    hp_rt_describe(s, addr, &r);
    fprintf(out, "\"%saddr\": \"0x%" PRIx64 "\", \"%sfunction\": ", prefix, addr, prefix);
    hp_json_string(out, r.name);
    fprintf(out, ", \"%sfile\": ", prefix);
    if (r.sym && r.sym->file) hp_json_string(out, r.sym->file);
    else fputs("null", out);
    fprintf(out, ", \"%sline\": %d", prefix, r.sym ? r.sym->line : 0);
    if (!r.sym || !r.sym->inlined) return; /* only for an address in inlined code */
    fprintf(out, ", \"%sinlined\": ", prefix);
    hp_json_string(out, r.sym->inlined);
    fprintf(out, ", \"%sinlined_at\": %d", prefix, r.sym->inlined_at);
}

void hp_rt_json_count(FILE *out, const hp_profile *p, int t, uint64_t x)
{
    if (hp_rt_estimated(p, t)) fprintf(out, "%.0f", estimate_of(p, t, x));
    else fprintf(out, "%" PRIu64, x);
}

void hp_rt_json_estimate(FILE *out, const hp_profile *p, int t, uint64_t x)
{
    if (!hp_rt_estimated(p, t)) return;
    hp_osp_bound b = hp_bursty_estimate(x, hp_rt_frequency(p, t), HP_RT_CONFIDENCE);
    fprintf(out, "\"estimated\": true, \"sampled\": %" PRIu64 ", \"ci_lower\": %.0f, \"ci_upper\": ", x, b.lower);
    if (isfinite(b.upper)) fprintf(out, "%.0f, ", b.upper);
    else fputs("null, ", out);
}

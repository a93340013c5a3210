/* invariants_write.c — the text table and JSON of `hotprof invariants` (invariants.h): one row per
 * semi-invariant operand: rank, samples (its weight), % of all samples, the operand, its invariant
 * value and share, the instruction's address, function and file:line; with by_callsite the
 * callers' sample counts under each row.
 * Invariant: the rows are hp_invariants_select's, in its order, at most o->top (0: all).
 */
#define _GNU_SOURCE
#include "analysis/invariants.h"
#include "analysis/ptype/samples.h"
#include "analysis/ptype/value.h"
#include "analysis/report.h"
#include "analysis/rtable.h"
#include <inttypes.h>
#include <stdlib.h>

static void caller_name(hp_symbolizer *s, uint64_t caller, char *buf, size_t n)
{
    if (!caller) snprintf(buf, n, "(no caller)");
    else hp_sym_name(hp_sym_lookup(s, caller), buf, n);
}

static int text_sites(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_invariant *v)
{
    hp_inv_site *sites;
    size_t n;
    if (hp_invariants_sites(p, s, v->list->pc, &sites, &n)) return -1;
    for (size_t i = 0; i < n; i++) {
        char name[512];
        caller_name(s, sites[i].caller, name, sizeof name);
        fprintf(out, "       from %-24s %10" PRIu64 " samples (%.1f%% of the instruction's)\n", name, sites[i].samples,
                hp_rt_percent(sites[i].samples, v->weight));
    }
    free(sites);
    return 0;
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_inv_opts *o, const hp_invariant *v, size_t n)
{
    uint64_t total = p->nstacks ? hp_samples_total(p) : hp_value_total_captures(p);
    fprintf(out, "Semi-invariant instructions: %zu (top value >= %.1f%% of captures, weight >= %" PRIu64
            " %s), by %s x share\n", n, 100 * o->min_share, o->min_samples, p->nstacks ? "samples" : "captures",
            p->nstacks ? "samples" : "captures");
    fprintf(out, "%4s %10s %6s  %-7s %-5s %-34s %6s  %-18s %s\n", "rank", p->nstacks ? "samples" : "captures", "%",
            "kind", "op", "value", "share", "address", "function  file:line");
    for (size_t i = 0; i < n; i++) {
        char op[16], val[64];
        hp_rt_sym r;
        const hp_value_stat *l = v[i].list;
        hp_value_operand_name(l->kind, l->operand, op, sizeof op);
        hp_value_format(l->kind, l->values[0].value, val, sizeof val);
        hp_rt_describe(s, l->pc, &r);
        fprintf(out, "%4zu %10" PRIu64 " %5.1f%%  %-7s %-5s %-34s %5.1f%%  0x%-16" PRIx64 " %s  %s\n", i + 1,
                v[i].weight, hp_rt_percent(v[i].weight, total), hp_value_kind_name(l->kind), op, val, 100 * v[i].share,
                l->pc, r.name, r.where);
        if (o->by_callsite && text_sites(out, p, s, &v[i])) return -1;
    }
    if (!n) fprintf(out, "  (none: no hot-list reaches the share; try a lower --min-share)\n");
    return 0;
}

static int json_sites(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_invariant *v)
{
    hp_inv_site *sites;
    size_t n;
    if (hp_invariants_sites(p, s, v->list->pc, &sites, &n)) return -1;
    fputs(", \"callsites\": [", out);
    for (size_t i = 0; i < n; i++) {
        char name[512];
        caller_name(s, sites[i].caller, name, sizeof name);
        fprintf(out, "%s{\"caller\": ", i ? ", " : "");
        hp_json_string(out, name);
        fprintf(out, ", \"samples\": %" PRIu64 "}", sites[i].samples);
    }
    fputs("]", out);
    free(sites);
    return 0;
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_inv_opts *o, const hp_invariant *v, size_t n)
{
    fprintf(out, "{\n  \"min_share\": %.4f,\n  \"min_samples\": %" PRIu64 ",\n  \"weight\": \"%s\",\n  \"invariants\": [",
            o->min_share, o->min_samples, p->nstacks ? "samples" : "captures");
    for (size_t i = 0; i < n; i++) {
        char op[16];
        const hp_value_stat *l = v[i].list;
        hp_value_operand_name(l->kind, l->operand, op, sizeof op);
        fprintf(out, "%s\n    {\"rank\": %zu, \"weight\": %" PRIu64 ", \"kind\": \"%s\", \"operand\": \"%s\", "
                "\"value\": \"0x%" PRIx64 "\", \"share\": %.4f, \"captures\": %" PRIu64 ", ", i ? "," : "", i + 1,
                v[i].weight, hp_value_kind_name(l->kind), op, l->values[0].value, v[i].share, l->captures);
        hp_rt_json_symbol(out, s, "", l->pc);
        if (o->by_callsite && json_sites(out, p, s, &v[i])) return -1;
        fputs("}", out);
    }
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
    return 0;
}

int hp_invariants_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_inv_opts *o, int as_json)
{
    hp_invariant *v;
    size_t n;
    if (hp_invariants_select(p, o, &v, &n)) return -1;
    if (o->top && n > o->top) n = o->top;
    int rc = as_json ? json(out, p, s, o, v, n) : text(out, p, s, o, v, n);
    free(v);
    return rc || ferror(out) ? -1 : 0;
}

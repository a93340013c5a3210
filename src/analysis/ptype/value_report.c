/* value_report.c — `hotprof report --type value`, the paper's Figure 1 layout: the hot
 * instructions (by samples at their pc from the STACKS when the profile has any, else by captures:
 * the most any of their hot-lists saw; ties by captures), one block each: address, disassembly
 * (Capstone, from the module file: annotate/asm.c), function, file:line, samples and captures,
 * then one line per (kind, operand) hot-list: its captures, threshold tau, length and its top
 * values with shares (a return-address context also with its caller's name).
 * JSON carries the same. --top N limits the instructions.
 * Invariant: shares are hp_value_share (estimate / captures, at most 100%).
 */
#define _GNU_SOURCE
#include "analysis/annotate/annotate.h"
#include "analysis/ptype/samples.h"
#include "analysis/ptype/value.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOP_VALUES 4 /* values shown per hot-list in the text table */

typedef struct hot_insn { uint64_t pc, weight, samples, captures; size_t first, n; } hot_insn;

/* ---- the hot instructions ---- */

static int cmp_hot(const void *a, const void *b)
{
    const hot_insn *x = a, *y = b;
    int r = hp_rt_cmp_desc(x->weight, y->weight);
    if (!r) r = hp_rt_cmp_desc(x->captures, y->captures); /* instructions interpreted but rarely interrupted */
    return r ? r : hp_rt_cmp_asc(x->pc, y->pc);
}

/* Every distinct pc of p->values, heaviest first; *n of them. NULL out of memory. */
static hot_insn *hot_insns(const hp_profile *p, size_t *n)
{
    hot_insn *h = calloc(p->nvalues + 1, sizeof *h);
    *n = 0;
    if (!h) return NULL;
    for (size_t i = 0; i < p->nvalues; i += h[*n].n, ++*n) {
        hot_insn *x = &h[*n];
        x->pc = p->values[i].pc;
        x->n = hp_value_at(p, x->pc, &x->first);
        for (size_t k = 0; k < x->n; k++)
            if (p->values[x->first + k].captures > x->captures) x->captures = p->values[x->first + k].captures;
        x->samples = hp_samples_at_pc(p, x->pc);
        x->weight = p->nstacks ? x->samples : x->captures;
    }
    qsort(h, *n, sizeof *h, cmp_hot);
    return h;
}

/* ---- disassembly of one pc, function by function ---- */

typedef struct disasm_cache { uint64_t start; hp_annot_insn *insns; size_t n; int tried; } disasm_cache;

static void insn_text(const hp_profile *p, hp_symbolizer *s, disasm_cache *c, uint64_t pc, char *buf, size_t len)
{
    uint64_t start = hp_sym_function_start(s, pc);
    if (!c->tried || c->start != start) {
        char err[256];
        free(c->insns);
        c->insns = NULL, c->n = 0, c->tried = 1, c->start = start;
        hp_annot_func f = {.name = "?", .start = start, .module = hp_profile_module_at(p, pc)};
        if (f.module) hp_annot_disasm(&f, s, &c->insns, &c->n, err, sizeof err);
    }
    snprintf(buf, len, "%s", "(no disassembly)");
    for (size_t i = 0; i < c->n; i++)
        if (c->insns[i].addr == pc) snprintf(buf, len, "%s", c->insns[i].text);
}

/* ---- text ---- */

static void text_list(FILE *out, hp_symbolizer *s, const hp_value_stat *v)
{
    char op[16], val[64], fn[256];
    hp_value_operand_name(v->kind, v->operand, op, sizeof op);
    fprintf(out, "    %-7s %-5s captures %-8" PRIu64 " tau %-6.3g len %-3zu ", hp_value_kind_name(v->kind), op,
            v->captures, v->tau, v->nvalues);
    for (size_t i = 0; i < v->nvalues && i < TOP_VALUES; i++) {
        hp_value_format_op(v->kind, v->operand, v->values[i].value, val, sizeof val);
        fprintf(out, " %s", val);
        if (v->kind == HP_VK_RETADDR && v->values[i].value) { /* the caller, looked up at the call */
            hp_sym_name(hp_sym_lookup(s, v->values[i].value - 1), fn, sizeof fn);
            fprintf(out, " (%s)", fn);
        }
        fprintf(out, " %.1f%%", 100 * hp_value_share(v, i));
    }
    fputc('\n', out);
}

static void text_block(FILE *out, const hp_profile *p, hp_symbolizer *s, disasm_cache *c, const hot_insn *h,
                       uint64_t total)
{
    char text[160];
    hp_rt_sym r;
    insn_text(p, s, c, h->pc, text, sizeof text);
    hp_rt_describe(s, h->pc, &r);
    fprintf(out, "0x%" PRIx64 "  %-32s  %s  %s\n", h->pc, text, r.name, r.where[0] ? r.where : "?");
    fprintf(out, "    samples %" PRIu64 " (%.1f%%), captures %" PRIu64 "\n", h->samples,
            hp_rt_percent(h->samples, total), h->captures);
    for (size_t k = 0; k < h->n; k++) text_list(out, s, &p->values[h->first + k]);
}

int hp_value_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t nh;
    hot_insn *h = hot_insns(p, &nh);
    disasm_cache c = {0};
    if (!h) return -1;
    if (!p->nvalue_sections) return free(h), 0; /* no value sampling: no table */
    size_t n = hp_rt_rows(nh, o);
    fputc('\n', out);
    hp_rt_heading(out, o, "Values of hot instructions (by %s): %zu of %zu; share = count x tau / captures",
                  p->nstacks ? "samples" : "captures", n, nh);
    if (strcmp(hp_value_summary(p), "concise")) /* exhaustive hooks: pc = the hook's return address */
        fprintf(out, "  summary %s%s; pc = the instruction after the compare/load hook's call\n", hp_value_summary(p),
                strcmp(hp_value_summary(p), "tnv") ? "" : " (tau = 1: counts are lower bounds, lower half cleared periodically)");
    const char *dropped = hp_profile_info(p, HP_INFO_VALUES_DROPPED);
    if (dropped && strcmp(dropped, "0") && strcmp(hp_value_summary(p), "concise"))
        fprintf(out, "  %s values not recorded: a thread's site table was full (value:summary=...,sites=N)\n", dropped);
    for (size_t i = 0; i < n; i++) text_block(out, p, s, &c, &h[i], hp_samples_total(p));
    if (!nh) fprintf(out, "  (no value hot-lists in this profile)\n");
    free(c.insns);
    free(h);
    return 0;
}

int hp_value_text_totals(char *buf, size_t len, const hp_profile *p)
{
    if (!p->nvalues && !p->nvalue_sections) return 0;
    return snprintf(buf, len, "%zu value hot-lists, %" PRIu64 " captures", p->nvalues, hp_value_total_captures(p));
}

/* ---- JSON ---- */

static void json_list(FILE *out, const hp_value_stat *v, int first)
{
    char op[16];
    hp_value_operand_name(v->kind, v->operand, op, sizeof op);
    fprintf(out, "%s{\"kind\": \"%s\", \"operand\": \"%s\", \"captures\": %" PRIu64 ", \"tau\": %.6g, \"length\": %zu"
            ", \"values\": [", first ? "" : ", ", hp_value_kind_name(v->kind), op, v->captures, v->tau, v->nvalues);
    for (size_t i = 0; i < v->nvalues; i++)
        fprintf(out, "%s{\"value\": \"0x%" PRIx64 "\", \"estimate\": %.1f, \"share\": %.4f}", i ? ", " : "",
                v->values[i].value, v->values[i].estimate, hp_value_share(v, i));
    fputs("]}", out);
}

int hp_value_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t nh;
    hot_insn *h = hot_insns(p, &nh);
    disasm_cache c = {0};
    if (!h) return -1;
    size_t n = hp_rt_rows(nh, o);
    fputs("  \"values\": [", out);
    for (size_t i = 0; i < n; i++) {
        char text[160];
        insn_text(p, s, &c, h[i].pc, text, sizeof text);
        fprintf(out, "%s\n    {\"rank\": %zu, \"samples\": %" PRIu64 ", \"captures\": %" PRIu64 ", \"insn\": ",
                i ? "," : "", i + 1, h[i].samples, h[i].captures);
        hp_json_string(out, text);
        fputs(", ", out);
        hp_rt_json_symbol(out, s, "", h[i].pc);
        fputs(", \"lists\": [", out);
        for (size_t k = 0; k < h[i].n; k++) json_list(out, &p->values[h[i].first + k], k == 0);
        fputs("]}", out);
    }
    fputs(n ? "\n  ]" : "]", out);
    fputs(", \"values_summary\": ", out);
    hp_json_string(out, hp_value_summary(p));
    free(c.insns);
    free(h);
    return 0;
}

/* subpath_report.c — the subpath type's `hotprof report` parts (subpath.h): bounds, the
 * --threshold filter, the path text, the "Hot subpaths" table and the "subpaths" JSON member.
 * The table and member appear when the profile holds subpaths (`shown`) or --type subpath asks
 * for them (report.c), so reports of profiles without subpaths stay as they were. Rows: p->subpaths in rank order,
 * those passing --threshold, at most the report's top; ranks count the rows shown.
 */
#define _GNU_SOURCE
#include "analysis/ptype/subpath.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include "core/metrics/osp.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounds and threshold ---- */

static void two_sided(double e, double eps, double *lo, double *hi)
{
    *lo = eps >= 1 ? 0 : e * (1 - eps);
    *hi = e * (1 + eps);
}

/* The relative error at a confidence: Chernoff's plus the admission term of counting samples. */
static double error_of(const hp_subpath_stat *sp, double tau, double confidence, int one_sided)
{
    return hp_osp_chernoff_error(sp->count, confidence, one_sided) +
           hp_osp_admission_error(sp->count, tau, confidence, one_sided);
}

hp_subpath_bounds hp_subpath_bounds_of(const hp_profile *p, const hp_subpath_stat *sp)
{
    hp_subpath_bounds b;
    int exact = hp_subpath_exact(p);
    double tau = exact ? 1 : hp_subpath_counting_tau(p), hi;
    double e = sp->estimate, eps95 = exact ? 0 : error_of(sp, tau, 0.95, 0);
    two_sided(e, eps95, &b.lo95, &b.hi95);
    two_sided(e, exact ? 0 : error_of(sp, tau, 0.80, 0), &b.lo80, &b.hi80);
    two_sided(e, exact ? 0 : error_of(sp, tau, 0.95, 1), &b.lower95, &hi);
    two_sided(e, exact ? 0 : error_of(sp, tau, 0.80, 1), &b.lower80, &hi);
    b.error95 = eps95;
    return b;
}

double hp_subpath_total_blocks(const hp_profile *p)
{
    const char *v = hp_profile_info(p, HP_INFO_SUBPATH_BLOCKS);
    char *end;
    double blocks = v ? strtod(v, &end) : 0;
    if (v && end != v && !*end && blocks > 0 && isfinite(blocks)) return blocks;
    blocks = 0;
    for (size_t i = 0; i < p->nsubpaths; i++) blocks += p->subpaths[i].estimate * p->subpaths[i].length;
    return blocks;
}

static int passes(const hp_profile *p, const hp_subpath_stat *sp, double pct, double blocks)
{
    return pct <= 0 || hp_subpath_bounds_of(p, sp).lower95 >= pct / 100.0 * blocks;
}

int hp_subpath_passes(const hp_profile *p, const hp_subpath_stat *sp, double pct)
{
    return passes(p, sp, pct, hp_subpath_total_blocks(p));
}

/* ---- path text ---- */

typedef struct strbuf { char *s; size_t len, cap; int oom; } strbuf;

static void put(strbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *t = realloc(b->s, cap);
        if (!t) { b->oom = 1; return; }
        b->s = t, b->cap = cap;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

char *hp_subpath_path_text(hp_symbolizer *s, const hp_subpath_stat *sp)
{
    strbuf b = {0};
    char prev_name[768] = "", prev_where[512] = "", cell[64];
    put(&b, "");
    for (uint32_t i = 0; i < sp->nblocks; i++) {
        hp_rt_sym r = {.name = "", .where = ""};
        if (sp->pcs[i]) hp_rt_describe(s, sp->pcs[i], &r);
        else snprintf(r.where, sizeof r.where, "guard %" PRIu32, sp->guards[i]);
        if (sp->pcs[i] && (!r.sym || !r.sym->function)) r.name[0] = 0; /* no function: the pc alone */
        if (sp->pcs[i] && !r.where[0]) snprintf(r.where, sizeof r.where, "0x%" PRIx64, sp->pcs[i]);
        if (i && !strcmp(r.name, prev_name) && !strcmp(r.where, prev_where)) continue;
        if (i) put(&b, " → ");
        if (strcmp(r.name, prev_name) && r.name[0]) put(&b, r.name), put(&b, " ");
        put(&b, r.where);
        snprintf(prev_name, sizeof prev_name, "%s", r.name);
        snprintf(prev_where, sizeof prev_where, "%s", r.where);
    }
    if (!sp->nblocks) snprintf(cell, sizeof cell, "(blocks not kept: key 0x%" PRIx64 ")", sp->key), put(&b, cell);
    if (b.oom) free(b.s), b.s = NULL;
    return b.s;
}

/* ---- rows ---- */

/* The indexes of the rows shown (threshold, then top), into *rows; how many; -1 out of memory. */
static long shown(const hp_profile *p, const hp_report_opts *o, size_t **rows)
{
    size_t n = 0;
    double blocks = hp_subpath_total_blocks(p);
    *rows = malloc((p->nsubpaths + 1) * sizeof **rows);
    if (!*rows) return -1;
    for (size_t i = 0; i < p->nsubpaths; i++)
        if (passes(p, &p->subpaths[i], o->threshold, blocks)) (*rows)[n++] = i;
    return (long)hp_rt_rows(n, o);
}

int hp_subpath_shown(const hp_profile *p, const hp_report_opts *o)
{
    (void)o;
    return p->nsubpaths > 0;
}

static const char *weighted_name(const hp_profile *p)
{
    hp_subpath_weight w = hp_subpath_weighting(p);
    return w == HP_SUBPATH_BY_LENGTH ? "est*len" : w == HP_SUBPATH_BY_COST ? "est*cost" : NULL;
}

/* ---- text ---- */

static void text_heading(FILE *out, const hp_profile *p, const hp_report_opts *o, size_t n)
{
    char buf[16];
    const char *wname = weighted_name(p);
    const char *summary = hp_profile_info(p, HP_INFO_SUBPATH_SUMMARY);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot subpaths: %zu of %zu, by %s", n, p->nsubpaths,
                  wname ? (hp_subpath_weighting(p) == HP_SUBPATH_BY_LENGTH ? "estimate x length"
                                                                           : "estimate x cost / largest cost")
                        : "estimate");
    fprintf(out, "  %s, enc=%s, blocks %.0f", summary ? summary : "sampled",
            hp_subpath_param(p, "enc", buf, sizeof buf, "xor"), hp_subpath_total_blocks(p));
    if (o->threshold > 0) fprintf(out, ", threshold %g%% (one-sided 95%% lower bound)", o->threshold);
    fputc('\n', out);
    fprintf(out, "%4s ", "rank");
    if (wname) fprintf(out, "%12s ", wname);
    fprintf(out, "%12s  %-25s %12s %8s %5s  %s\n", "estimate", "95% bounds", "95% lower", "samples", "len", "subpath");
}

static int text_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_subpath_stat *sp, size_t rank)
{
    hp_subpath_bounds b = hp_subpath_bounds_of(p, sp);
    char range[64];
    char *path = hp_subpath_path_text(s, sp);
    if (!path) return -1;
    snprintf(range, sizeof range, "%.0f–%.0f", b.lo95, b.hi95);
    fprintf(out, "%4zu ", rank);
    if (weighted_name(p)) fprintf(out, "%12.0f ", sp->ranked);
    fprintf(out, "%12.0f  ", sp->estimate);
    hp_rt_cell(out, range, 25);
    fprintf(out, " %12.0f %8" PRIu64 " %5" PRIu32 "  %s\n", b.lower95, sp->count, sp->length, path);
    free(path);
    return 0;
}

int hp_subpath_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *rows;
    long n = shown(p, o, &rows);
    if (n < 0) return -1;
    text_heading(out, p, o, (size_t)n);
    for (long i = 0; i < n; i++)
        if (text_row(out, p, s, &p->subpaths[rows[i]], (size_t)i + 1)) return free(rows), -1;
    if (!n) fprintf(out, "  (no subpaths%s in this profile: record them with hotprof run --sample subpath)\n",
                    o->threshold > 0 && p->nsubpaths ? " above the threshold" : "");
    free(rows);
    return 0;
}

/* Count mode without return sites (pre-arming on, subpath.prearm > 0): a return into a clean
 * caller cuts the pending subpaths and the caller's next blocks start none, so subpaths that
 * start after or cross such a return are under-estimated (docs/osp.md, "What it cannot see"):
 * say how many were cut and how to build so that returns are followed. */
static void count_mode_note(FILE *out, const hp_profile *p, const char *skip)
{
    const char *prearm = hp_profile_info(p, HP_INFO_SUBPATH_PREARM), *cut = hp_profile_info(p, HP_INFO_SUBPATH_CUT);
    if (!skip || strcmp(skip, "count") || !prearm || !strcmp(prearm, "0")) return;
    fprintf(out, "    %s subpaths cut at returns into clean callers: subpaths after or across such returns are\n"
                 "    under-estimated; build with hotprof cc --dual-return-sites=on to follow returns\n",
            cut ? cut : "?");
}

/* The header's subpath sampling line (sampled profiles): how skips ran and what the estimates
 * rest on (INFO subpath.*). */
int hp_subpath_sampling_text(FILE *out, const hp_profile *p)
{
    const char *summary = hp_profile_info(p, HP_INFO_SUBPATH_SUMMARY);
    if (!summary || strcmp(summary, "sampled")) return 0;
    const char *skip = hp_profile_info(p, HP_INFO_SUBPATH_SKIP), *v;
    int patch = skip && !strcmp(skip, "patch"), live = skip && !strcmp(skip, "live");
    fprintf(out, "  sampling subpath (OSP, skip=%s%s); est. = weight / p_length\n", skip ? skip : "?",
            patch ? ": a sample per thread per window" : "");
    fprintf(out, "    blocks %s (%s)", (v = hp_profile_info(p, HP_INFO_SUBPATH_BLOCKS)) ? v : "?",
            live ? "counted" : "estimated");
    fprintf(out, "  samples %s", (v = hp_profile_info(p, HP_INFO_SUBPATH_SAMPLES)) ? v : "?");
    fprintf(out, "  tau %s", (v = hp_profile_info(p, HP_INFO_SUBPATH_TAU)) ? v : "?");
    fprintf(out, "  f %s\n", (v = hp_profile_info(p, HP_INFO_SUBPATH_F)) ? v : "?");
    count_mode_note(out, p, skip);
    if (patch)
        fprintf(out, "    patched windows: each sample's weight rests on a measured native block rate that the hooks\n"
                     "    distort (bench/osp: estimates 80-95%% low): rank within a phase, do not read counts;\n"
                     "    a hotprof cc --hooks=dual-blocks build samples by count, unbiased (docs/osp.md)\n");
    return 1;
}

int hp_subpath_text_totals(char *buf, size_t len, const hp_profile *p)
{
    if (!p->nsubpaths) return 0;
    return snprintf(buf, len, "%zu subpaths (%.0f blocks)", p->nsubpaths, hp_subpath_total_blocks(p));
}

/* ---- JSON ---- */

static void json_num(FILE *out, double x)
{
    if (isfinite(x)) fprintf(out, "%.17g", x);
    else fputs("null", out);
}

static void json_pair(FILE *out, const char *key, double lo, double hi)
{
    fprintf(out, "\"%s\": [", key);
    json_num(out, lo);
    fputs(", ", out);
    json_num(out, hi);
    fputs("]", out);
}

void hp_subpath_json_blocks(FILE *out, hp_symbolizer *s, const hp_subpath_stat *sp)
{
    fputs("\"blocks\": [", out);
    for (uint32_t i = 0; i < sp->nblocks; i++) {
        hp_rt_sym r = {.name = "", .where = ""};
        fprintf(out, "%s{\"guard\": %" PRIu32 ", \"pc\": ", i ? ", " : "", sp->guards[i]);
        if (!sp->pcs[i]) { fputs("null, \"function\": null, \"file\": null, \"line\": 0}", out); continue; }
        hp_rt_describe(s, sp->pcs[i], &r);
        fprintf(out, "\"0x%" PRIx64 "\", \"function\": ", sp->pcs[i]);
        hp_json_string(out, r.name);
        fputs(", \"file\": ", out);
        if (r.sym && r.sym->file) hp_json_string(out, r.sym->file);
        else fputs("null", out);
        fprintf(out, ", \"line\": %d}", r.sym ? r.sym->line : 0);
    }
    fputs("]", out);
}

static int json_row(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_subpath_stat *sp, size_t rank)
{
    hp_subpath_bounds b = hp_subpath_bounds_of(p, sp);
    char *path = hp_subpath_path_text(s, sp);
    if (!path) return -1;
    fprintf(out, "%s\n    {\"rank\": %zu, \"key\": \"0x%016" PRIx64 "\", \"estimate\": ", rank > 1 ? "," : "", rank,
            sp->key);
    json_num(out, sp->estimate);
    fputs(", \"ranked\": ", out);
    json_num(out, sp->ranked);
    fprintf(out, ", \"count\": %" PRIu64 ", \"weight\": ", sp->count);
    json_num(out, sp->weight);
    fputs(", \"p_length\": ", out);
    json_num(out, sp->p_length);
    fprintf(out, ", \"length\": %" PRIu32 ", \"cost\": %.0f, \"bounds\": {", sp->length, sp->cost);
    json_pair(out, "two_sided_95", b.lo95, b.hi95);
    fputs(", ", out);
    json_pair(out, "two_sided_80", b.lo80, b.hi80);
    fputs(", \"one_sided_95\": ", out);
    json_num(out, b.lower95);
    fputs(", \"one_sided_80\": ", out);
    json_num(out, b.lower80);
    fputs(", \"error_95\": ", out);
    json_num(out, b.error95);
    fputs("}, ", out);
    hp_subpath_json_blocks(out, s, sp);
    fputs(", \"text\": ", out);
    hp_json_string(out, path);
    fputs("}", out);
    free(path);
    return 0;
}

static void json_info_string(FILE *out, const hp_profile *p, const char *key, const char *name, const char *fallback)
{
    const char *v = hp_profile_info(p, key);
    fprintf(out, "\"%s\": ", name);
    hp_json_string(out, v ? v : fallback);
    fputs(", ", out);
}

int hp_subpath_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t *rows;
    const char *tau = hp_profile_info(p, HP_INFO_SUBPATH_TAU);
    char *end;
    double t = tau ? strtod(tau, &end) : 1;
    long n = shown(p, o, &rows);
    if (n < 0) return -1;
    fputs("  \"subpaths\": {", out);
    json_info_string(out, p, HP_INFO_SUBPATH_SUMMARY, "summary", "sampled");
    json_info_string(out, p, HP_INFO_SUBPATH_PARAMS, "params", "");
    fputs("\"blocks\": ", out);
    json_num(out, hp_subpath_total_blocks(p));
    fputs(", \"tau\": ", out);
    json_num(out, tau && end != tau && !*end ? t : 1);
    fprintf(out, ", \"threshold\": %g, \"subpaths\": %zu, \"rows\": [", o->threshold, p->nsubpaths);
    for (long i = 0; i < n; i++)
        if (json_row(out, p, s, &p->subpaths[rows[i]], (size_t)i + 1)) return free(rows), -1;
    fputs(n ? "\n  ]}" : "]}", out);
    free(rows);
    return 0;
}

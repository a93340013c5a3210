/* report.c — renders a profile as the `hotprof report` text or JSON (see report.h).
 *
 * The report is a header, then one table per profile type in registry order (aptype.h: each
 * type's own file prints its table; a type whose `wanted` or `shown` says no is left out; with
 * --type TYPE only TYPE's table), then notes.
 * Header: file, program, command, mode, seed, threads, groups; the totals and distinct counts each
 * type contributes; the sampling parts of report_modes.c; how the run ended. JSON: one object whose
 * members are the header's, then each type's member(s), then "warnings"; members are separated
 * here, so a type writes its member(s) without commas around them.
 * Folded: no header, only the folded stacks of one type (its `folded` hook; which type: --type or
 * the highest fold_rank with rows, aptype.h).
 * HTML: one self-contained page, written by analysis/html/ (html.h).
 * Pprof: analysis/pprof/export.h writes it (the same choice of type).
 * Every INFO key is spelled through core/format/info_keys.h. Output of a table is byte-for-byte
 * what it was before types were plug-ins (tests/e2e and the golden outputs check that).
 */
#define _GNU_SOURCE
#include "analysis/report.h"
#include "analysis/html/html.h"
#include "analysis/lowsample.h"
#include "analysis/ptype/aptype.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int hp_report_parse_sort(const char *word, hp_sort_key *out)
{
    static const char *const words[] = {"heat", "calls", "backedges", "name"};
    for (int i = 0; i < 4; i++)
        if (strcmp(word, words[i]) == 0) return *out = (hp_sort_key)i, 0;
    return -1;
}

int hp_report_parse_format(const char *word, hp_report_format *out)
{
    if (strcmp(word, "text") == 0) return *out = HP_FORMAT_TEXT, 0;
    if (strcmp(word, "json") == 0) return *out = HP_FORMAT_JSON, 0;
    if (strcmp(word, "folded") == 0) return *out = HP_FORMAT_FOLDED, 0;
    if (strcmp(word, "html") == 0) return *out = HP_FORMAT_HTML, 0;
    if (strcmp(word, "pprof") == 0) return *out = HP_FORMAT_PPROF, 0;
    return -1;
}

/* ---- header ---- */

typedef struct run_state { const char *state; int64_t status; int signal; } run_state;

static run_state run_state_of(const hp_profile *p)
{
    if (!p->have_group) return (run_state){"empty", 0, 0};
    if (p->group_flags & HP_GROUP_CRASH)
        return (run_state){"crashed", p->exit_status, p->exit_status < 0 ? (int)-p->exit_status : 0};
    if (p->group_flags & HP_GROUP_EXEC) return (run_state){"exec", 0, 0};
    if (p->group_flags & HP_GROUP_FINAL) return (run_state){"exited", p->exit_status, 0};
    return (run_state){"cut_short", 0, 0};
}

static const char *signal_name(int sig)
{
    const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
    return abbrev ? abbrev : "?";
}

static const char *info_or(const hp_profile *p, const char *key, const char *fallback)
{
    const char *v = hp_profile_info(p, key);
    return v && v[0] ? v : fallback;
}

/* "  totals   " and every type's totals, joined by ", ". */
static void text_totals(FILE *out, const hp_profile *p)
{
    char buf[160];
    const char *sep = "";
    fputs("  totals   ", out);
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!t->text_totals || (hp_profile_is_timer(p) && !t->rows(p)) || t->text_totals(buf, sizeof buf, p) <= 0) continue;
        fprintf(out, "%s%s", sep, buf);
        sep = ", ";
    }
    fputc('\n', out);
}

/* "  distinct " and every type's distinct count with its word. */
static void text_distinct(FILE *out, const hp_profile *p)
{
    const char *sep = "  distinct "; /* the line only if some type has a distinct count to show */
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!t->distinct || (hp_profile_is_timer(p) && !t->rows(p))) continue;
        fprintf(out, "%s%zu %s", sep, t->rows(p), t->distinct);
        sep = ", ";
    }
    if (sep[0] == ',') fputc('\n', out);
}

void hp_report_text_header(FILE *out, const hp_profile *p)
{
    run_state rs = run_state_of(p);
    const char *args = hp_profile_info(p, HP_INFO_ARGS);
    fprintf(out, "hotprof report: %s\n", p->name);
    fprintf(out, "  program  %s\n", info_or(p, HP_INFO_PROGRAM, "(unknown)"));
    if (args && args[0]) fprintf(out, "  command  %s\n", args);
    fprintf(out, "  mode     %-12s  seed %" PRIu64 "  threads %zu  groups %zu\n", info_or(p, HP_INFO_MODE, "(unknown)"),
            p->header.seed, p->nthreads, p->ngroups);
    text_totals(out, p);
    text_distinct(out, p);
    hp_report_sampling_text(out, p);
    hp_report_patched_text(out, p);
    char low[256];
    if (hp_low_sample_warning(p, low, sizeof low)) fprintf(out, "  WARNING  %s;\n           %s\n", low, HP_LOW_SAMPLE_HINT);
    for (int i = 0; i < HP_PT_COUNT; i++) /* types with a sampler of their own (aptype.h) */
        if (hp_aptypes[i]->sampling_text) hp_aptypes[i]->sampling_text(out, p);
    if (!strcmp(rs.state, "crashed"))
        fprintf(out, "  run      CRASHED: killed by signal %d (SIG%s); counts up to the crash\n", rs.signal,
                signal_name(rs.signal));
    else if (!strcmp(rs.state, "exec"))
        fprintf(out, "  run      replaced by exec(): counts up to the exec (the new image has its own profile)\n");
    else if (!strcmp(rs.state, "exited"))
        fprintf(out, "  run      exited with status %" PRId64 "\n", rs.status);
    else if (!strcmp(rs.state, "cut_short"))
        fprintf(out, "  run      CUT SHORT: no final snapshot (program killed or still running); "
                "counts from snapshot %" PRIu64 "\n", p->group_seq);
    else
        fprintf(out, "  run      NO DATA: the profile holds no complete snapshot of counts\n");
}

/* ---- JSON ---- */

static void json_kv_string(FILE *out, const char *key, const char *value)
{
    fprintf(out, "  \"%s\": ", key);
    if (value) hp_json_string(out, value);
    else fputs("null", out);
    fputs(",\n", out);
}

/* "totals": every type's totals members, then the distinct counts that have a JSON key. */
static void json_totals(FILE *out, const hp_profile *p)
{
    int any = 0;
    fputs("  \"totals\": {", out);
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (any && t->json_totals) fputs(", ", out);
        if (t->json_totals && t->json_totals(out, p)) any = 1;
    }
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!t->json_distinct) continue;
        fprintf(out, "%s\"%s\": %zu", any ? ", " : "", t->json_distinct, t->rows(p));
        any = 1;
    }
    fputs("},\n", out);
}

static void json_header(FILE *out, const hp_profile *p)
{
    run_state rs = run_state_of(p);
    fputs("{\n", out);
    json_kv_string(out, "file", p->name);
    json_kv_string(out, "program", hp_profile_info(p, HP_INFO_PROGRAM));
    json_kv_string(out, "args", hp_profile_info(p, HP_INFO_ARGS));
    json_kv_string(out, "mode", hp_profile_info(p, HP_INFO_MODE));
    fprintf(out, "  \"seed\": %" PRIu64 ",\n  \"threads\": %zu,\n  \"groups\": %zu,\n", p->header.seed, p->nthreads,
            p->ngroups);
    fprintf(out, "  \"run\": {\"state\": \"%s\", \"exit_status\": %" PRId64 ", \"signal\": %d},\n", rs.state,
            rs.status, rs.signal);
    json_totals(out, p);
}

static void json_warnings(FILE *out, const hp_profile *p, hp_symbolizer *s)
{
    size_t k = 0;
    fputs(",\n  \"warnings\": [", out);
    for (size_t i = 0; i < p->nwarnings; i++, k++)
        fputs(k ? ", " : "", out), hp_json_string(out, p->warnings[i]);
    for (size_t i = 0; i < hp_sym_nwarnings(s); i++, k++)
        fputs(k ? ", " : "", out), hp_json_string(out, hp_sym_warning(s, i));
    if (hp_sym_left_mangled(s))
        fputs(k ? ", " : "", out), hp_json_string(out, "C++ names are shown mangled (no __cxa_demangle found)"), k++;
    char low[256];
    if (hp_low_sample_warning(p, low, sizeof low)) {
        char both[384];
        snprintf(both, sizeof both, "%s; %s", low, HP_LOW_SAMPLE_HINT);
        fputs(k ? ", " : "", out), hp_json_string(out, both);
    }
    fputs("]\n}\n", out);
}

/* ---- driver ---- */

static int wanted(const hp_aptype *t, const hp_profile *p, const hp_report_opts *o) { return hp_aptype_shown(t, p, o); }

static int write_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    hp_report_text_header(out, p);
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (t->text && wanted(t, p, o) && t->text(out, p, s, o)) return -1;
    }
    if (hp_sym_left_mangled(s)) fputs("\nnote: C++ names are shown mangled (no __cxa_demangle found)\n", out);
    return 0;
}

static int write_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    const char *sep = "";
    json_header(out, p);
    hp_report_sampling_json(out, p);
    hp_report_patched_json(out, p);
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!t->json || !wanted(t, p, o)) continue;
        fputs(sep, out);
        if (t->json(out, p, s, o)) return -1;
        sep = ",\n";
    }
    json_warnings(out, p, s);
    return 0;
}

/* ---- folded ---- */

int hp_report_fold_check(const char *name, char *msg, size_t len)
{
    return hp_aptype_export_check(name, HP_EXPORT_FOLDED, msg, len);
}

static int write_folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    const hp_aptype *t = o->fold_type ? hp_aptype_export_named(o->fold_type, HP_EXPORT_FOLDED)
                                         : hp_aptype_export_default(p, HP_EXPORT_FOLDED);
    return t ? t->folded(out, p, s, o) : -1;
}

int hp_report_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    int rc = o->format == HP_FORMAT_JSON     ? write_json(out, p, s, o)
             : o->format == HP_FORMAT_FOLDED ? write_folded(out, p, s, o)
             : o->format == HP_FORMAT_HTML   ? hp_html_write(out, p, s, o)
             : o->format == HP_FORMAT_PPROF  ? hp_pprof_write(out, p, s, o->fold_type, (hp_pprof_symbols)o->pprof_symbols)
                                             : write_text(out, p, s, o);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

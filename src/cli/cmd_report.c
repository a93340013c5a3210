/* cmd_report.c — `hotprof report [options] [FILE]` (or `-i FILE`, as perf report): read a
 * profile, symbolize, print the hot methods and call pairs (and blocks/edges/hot data streams on
 * request) as text or JSON on stdout, or one profile type's table as flame-graph folded stacks
 * (--format folded, --type TYPE), as a gzipped pprof profile (--format pprof, never onto a
 * terminal; analysis/pprof/export.h), or one self-contained HTML page (--format html, with
 * --compare REF the accuracy against a reference profile; analysis/html/html.h). Output goes to
 * stdout, or with -o FILE to a file that appears
 * whole or not at all (outfile.h). Text on a terminal is coloured and paged (pager.h). Warnings of the reader and the symbolizer go to stderr so
 * that JSON on stdout stays clean. A write error (a full disk, a closed pipe) exits 1.
 */
#include "analysis/pprof/export.h"
#include "analysis/profile.h"
#include "analysis/ptype/aptype.h"
#include "analysis/report.h"
#include "analysis/symbolize.h"
#include "cli/commands.h"
#include "cli/value_module.h"
#include "analysis/ptype/value.h"
#include "cli/outfile.h"
#include "cli/pager.h"
#include "cli/read_profile.h"
#include "core/ptype/ptype.h"
#include <stdlib.h>
#include <string.h>

static const hp_command_desc report_desc = {
    "report", "[options] [-i FILE | FILE]",
    "Print what is hot in a profile (default FILE: " HP_DEFAULT_PROFILE "): methods by HPS heat\n"
    "(calls + loop back-edges) and call pairs, with function names and file:line.",
    "Call pairs are (call site, callee); the caller and the call-site line are found from the\n"
    "return address minus one; call instructions of one caller, callee and line are one row\n"
    "(sites), code inlined there reads 'caller → [inlined f] line N'. Nothing is cut: columns\n"
    "widen for long names and paths. A run that crashed or was cut short is reported with the counts\n"
    "it recorded up to then, and the header says so.\n"
    "\n"
    "--format folded prints one profile type as flame-graph folded stacks, `frame;frame count`\n"
    "(all rows, recorded counts; ';' and newlines in names become '_'): callpairs as\n"
    "caller;callee (the default when the profile has call pairs), methods as function (heat),\n"
    "blocks as function;file:line. Flame graph: flamegraph.pl out.folded > fg.svg, or open\n"
    "out.folded in speedscope.\n"
    "\n"
    "--format pprof writes one profile type as a gzipped pprof profile (binary: needs -o FILE or a\n"
    "redirect): methods (values calls and heat), callpairs (callee, caller) or blocks, chosen as for\n"
    "folded; recorded counts, the sampling settings in comments. View: go tool pprof -top out.pb.gz,\n"
    "go tool pprof -http=:8080 out.pb.gz (docs/pprof.md).\n"
    "\n"
    "--format html -o report.html writes one self-contained page (no script, no external resource):\n"
    "the header, an icicle (flame graph) rebuilt from the call pairs, bar charts of the heaviest\n"
    "methods and pairs, and the tables; with --compare REF also the accuracy figures of\n"
    "`hotprof compare` against the reference profile REF, and their plot.\n"
    "\n"
    "--type TYPE (text, json) prints only that profile type's table: methods, callpairs, blocks,\n"
    "edges, datastream or subpath (--blocks, --edges, --streams add those tables to the default\n"
    "ones). --type subpath lists the hot subpaths (OSP): rank, estimated executions, two-sided 95%\n"
    "Chernoff bounds, the one-sided 95% lower bound, samples, length and the path as\n"
    "`function file:line → file:line → …`; --threshold PCT keeps the subpaths whose one-sided\n"
    "95% lower bound is at least PCT% of the blocks executed.\n"
    "--type path (exhaustive runs with --sample path, docs/paths.md) lists interprocedural paths:\n"
    "rank, count, share of the completed paths, length and the path as above; --type value of a\n"
    "run with --sample value:summary=tnv|gm lists compare operands (cmp op0/op1) and loaded values\n"
    "(load) per instruction, and says which summary kept them.\n"
    "\n"
    "Timer profiles (`hotprof run --mode timer`): --type samples lists hot functions by samples,\n"
    "self (the interrupted pc) and total (anywhere on the stack), with percentages; --type value\n"
    "lists hot instructions with disassembly, file:line, samples, each hot-list's threshold and\n"
    "length and its top values with shares (DCPI's Figure 1). The header gives the timer, the\n"
    "value sampling, the interpreter's stop reasons and the overhead (time in hotprof's handlers\n"
    "over the run's CPU time). Folded and pprof export the stacks (the default fold of a timer\n"
    "profile). docs/value-reports.md.\n"};

typedef struct report_args {
    uint64_t top;
    const char *sort, *format, *input, *type, *output, *compare, *pprof_symbols, *threshold, *module;
    int blocks, edges, streams;
    hp_term_args term;
} report_args;

static void init_options(hp_option *opts, report_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'i', "input", &a->input, "FILE", "the profile to read (as FILE; default " HP_DEFAULT_PROFILE ")"},
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE",
         "write the report to FILE (whole or not at all; '-' = stdout, the default)"},
        {HP_OPT_UINT, 't', "top", &a->top, "N", "rows per table (default 20; 0 = all)"},
        {HP_OPT_STRING, 's', "sort", &a->sort, "KEY", "methods by heat|calls|backedges|name (default heat)"},
        {HP_OPT_STRING, 'f', "format", &a->format, "FMT", "text|json|folded|pprof|html (default text)"},
        {HP_OPT_STRING, 0, "type", &a->type, "TYPE",
         "text, json: print only this profile type's table (methods|callpairs|blocks|edges|datastream|"
         "subpath|intervals, samples|value|path); --format folded or pprof: the type to fold or export, "
         "callpairs|methods|blocks|samples (default samples if the profile has stack samples, else "
         "callpairs if it has call pairs, else methods)"},
        {HP_OPT_STRING, 0, "threshold", &a->threshold, "PCT",
         "subpaths: only those whose one-sided 95% lower bound is at least PCT% of the blocks executed"},
        {HP_OPT_STRING, 0, "pprof-symbols", &a->pprof_symbols, "HOW",
         "--format pprof: full (function names, files and lines; default) or none (addresses and "
         "build-ids only: pprof symbolizes from the binaries)"},
        {HP_OPT_STRING, 0, "compare", &a->compare, "REF",
         "--format html: add the accuracy against the reference profile REF (as hotprof compare)"},
        {HP_OPT_STRING, 0, "module", &a->module, "FILE.so",
         "value profiles: print values with this customization module's format (the module the run used: "
         "docs/value-modules.md)"},
        {HP_OPT_FLAG, 0, "blocks", &a->blocks, NULL, "also list the hottest basic blocks"},
        {HP_OPT_FLAG, 0, "edges", &a->edges, NULL, "also list the hottest block-to-block edges"},
        {HP_OPT_FLAG, 0, "streams", &a->streams, NULL, "also list the hot data streams (bursty datastream sampling)"},
        HP_TERM_OPTIONS(&a->term),
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_report_usage(FILE *out)
{
    report_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &report_desc, opts);
}

/* --pprof-symbols, and no binary pprof data onto a terminal. */
static int pprof_options(const report_args *a, hp_report_opts *o)
{
    hp_pprof_symbols sym = HP_PPROF_SYMBOLS_FULL;
    int to_stdout = !a->output || !strcmp(a->output, "-");
    if (a->pprof_symbols && o->format != HP_FORMAT_PPROF)
        return hp_usage_error(&report_desc, "--pprof-symbols goes with --format pprof");
    if (a->pprof_symbols && hp_pprof_parse_symbols(a->pprof_symbols, &sym))
        return hp_usage_error(&report_desc, "unknown --pprof-symbols '%s' (full, none)", a->pprof_symbols);
    o->pprof_symbols = (int)sym;
    if (o->format == HP_FORMAT_PPROF && to_stdout && hp_term_stdout_is_terminal())
        return hp_usage_error(&report_desc, "refusing to write binary pprof data to a terminal: use -o FILE or a redirect");
    return 0;
}

/* --threshold PCT: a number in [0, 100]. */
static int threshold_option(const char *text, double *out)
{
    char *end;
    if (!text) return *out = 0, 0;
    *out = strtod(text, &end);
    if (end == text || *end || !(*out >= 0 && *out <= 100))
        return hp_usage_error(&report_desc, "--threshold wants a percentage between 0 and 100 (got '%s')", text);
    return 0;
}

/* --type with text or JSON: any registered type name or synonym. */
static int table_type_check(const char *name)
{
    char names[160];
    if (hp_ptype_by_name(name, strlen(name))) return 0;
    hp_aptype_names(names, sizeof names);
    return hp_usage_error(&report_desc, "unknown profile type '%s' (types: %s)", name, names);
}

/* --type TYPE with text or JSON on a profile without TYPE: one message, 1. */
static int type_missing(const hp_profile *p, const hp_report_opts *o)
{
    if (!o->fold_type || (o->format != HP_FORMAT_TEXT && o->format != HP_FORMAT_JSON)) return 0;
    const hp_ptype *c = hp_ptype_by_name(o->fold_type, strlen(o->fold_type));
    if (hp_aptype_held(hp_aptypes[c->id], p)) return 0;
    fprintf(stderr, "hotprof: %s holds no %s profile (%s)\n", p->name, c->name, c->title);
    return 1;
}

static int options_to_report(const report_args *a, hp_report_opts *o)
{
    char msg[256];
    o->top = (size_t)a->top;
    o->blocks = a->blocks;
    o->edges = a->edges;
    o->streams = a->streams;
    if (hp_report_parse_sort(a->sort, &o->sort))
        return hp_usage_error(&report_desc, "unknown sort key '%s' (heat, calls, backedges, name)", a->sort);
    if (hp_report_parse_format(a->format, &o->format))
        return hp_usage_error(&report_desc, "unknown format '%s' (text, json, folded, pprof, html)", a->format);
    if (a->compare && o->format != HP_FORMAT_HTML)
        return hp_usage_error(&report_desc, "--compare goes with --format html");
    o->fold_type = a->type;
    int pprof = o->format == HP_FORMAT_PPROF;
    if (threshold_option(a->threshold, &o->threshold)) return 2;
    if (a->type && o->format == HP_FORMAT_HTML)
        return hp_usage_error(&report_desc, "--type goes with --format text, json, folded or pprof");
    if (a->type && (o->format == HP_FORMAT_TEXT || o->format == HP_FORMAT_JSON)) return table_type_check(a->type) ? 2 : pprof_options(a, o);
    if (a->type && (pprof ? hp_pprof_type_check(a->type, msg, sizeof msg) : hp_report_fold_check(a->type, msg, sizeof msg)))
        return hp_usage_error(&report_desc, "%s", msg);
    if (hp_term_check(&a->term, msg, sizeof msg)) return hp_usage_error(&report_desc, "%s", msg);
    return pprof_options(a, o);
}

static void print_warnings(const hp_profile *p, const hp_symbolizer *s)
{
    for (size_t i = 0; i < p->nwarnings; i++) fprintf(stderr, "hotprof: warning: %s\n", p->warnings[i]);
    for (size_t i = 0; i < hp_sym_nwarnings(s); i++) fprintf(stderr, "hotprof: warning: %s\n", hp_sym_warning(s, i));
}

int cmd_report(int argc, char **argv)
{
    report_args a = {.top = HP_REPORT_DEFAULT_TOP, .sort = "heat", .format = "text"};
    hp_term term;
    hp_option opts[HP_OPTIONS_MAX];
    hp_report_opts ro = {0};
    char **pos, err[512];
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&report_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (a.input && npos) return hp_usage_error(&report_desc, "one profile at a time (got '%s' and '%s')", a.input, pos[0]);
    if (npos > 1) return hp_usage_error(&report_desc, "one profile at a time (got '%s' and '%s')", pos[0], pos[1]);
    if (options_to_report(&a, &ro)) return 2;
    if (a.module) {
        char real[4096];
        const hotprof_module *m = hp_value_module_open(a.module, real, sizeof real, err, sizeof err);
        if (!m) return hp_usage_error(&report_desc, "option '--module': %s", err);
        hp_value_set_formatter(m->format);
    }
    const char *path = a.input ? a.input : npos ? pos[0] : HP_DEFAULT_PROFILE;
    hp_profile *p = hp_profile_read_file(path, err, sizeof err), *ref = NULL;
    if (!p) {
        fprintf(stderr, "hotprof: %s\n", err);
        return 1;
    }
    if (a.compare && !(ref = hp_cli_read_profile(a.compare))) {
        hp_profile_free(p);
        return 1;
    }
    if (type_missing(p, &ro)) {
        hp_profile_free(p);
        if (ref) hp_profile_free(ref);
        return 1;
    }
    ro.compare_ref = ref;
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    if (!s) {
        fprintf(stderr, "hotprof: out of memory\n");
        hp_profile_free(p);
        if (ref) hp_profile_free(ref);
        return 1;
    }
    hp_outfile out;
    hp_term_start(&term, &a.term, ro.format == HP_FORMAT_TEXT && (!a.output || !strcmp(a.output, "-")));
    ro.color = term.color;
    rc = hp_outfile_open(&out, a.output);
    if (rc == 0) {
        int oom = hp_report_write(out.f, p, s, &ro) != 0 && !ferror(out.f);
        if (oom) fprintf(stderr, "hotprof: out of memory while writing the report\n");
        rc = hp_outfile_close(&out, !oom); /* a write error is reported here */
    }
    hp_term_finish(&term);
    print_warnings(p, s);
    hp_sym_close(s);
    hp_profile_free(p);
    if (ref) hp_profile_free(ref);
    return rc ? 1 : 0;
}

/* cmd_compare.c — `hotprof compare [options] A B`: the accuracy of profile A (sampled) against
 * profile B (exhaustive), per profile type: HPS overlap, top-k recall/precision, rank agreement
 * (analysis/compare.h). Table or JSON on stdout; warnings on stderr.
 *
 * Two builds of one program (same program name, build-ids differ) are compared by symbolized
 * name (compare.h), with a warning; one build by module-relative address, but call pairs of
 * two-version code by caller function (compare.h); --match address|name forces one way.
 * Refusals (exit 1, one message): a file that cannot be read; profiles of different programs
 * (program names differ) unless --force; no profile type present in both; no key in common at
 * all (unless --force).
 */
#include "analysis/compare.h"
#include "analysis/profile.h"
#include "analysis/report.h"
#include "analysis/ivstats.h"
#include "cli/commands.h"
#include "cli/pager.h"
#include "cli/read_profile.h"
#include <stdlib.h>
#include <string.h>

static const hp_command_desc compare_desc = {
    "compare", "[options] A B",
    "Compare profile A (sampled) with profile B (exhaustive, the reference) of the same program:\n"
    "per profile type present in both (methods by heat and by calls, call pairs, edges, blocks),\n"
    "the HPS overlap, top-k recall and precision, and rank agreement.",
    "Members are matched by module-relative address (module file name + offset from its load\n"
    "address), so runs under ASLR compare. Two builds of one program (the build-ids differ) are\n"
    "matched by symbol name instead (functions, and call pairs as caller and callee; blocks and\n"
    "edges are then not compared), and the header says 'matched by: symbol name'. On two-version\n"
    "code (hotprof cc --hooks=dual-*) a call site has one address per copy, so call pairs are\n"
    "matched by caller function there. --match address|name forces one way. Overlap is\n"
    "scale-invariant: sampled counts need no scaling. 'max' is B against itself, the best a sample\n"
    "can score with the paper's overlap;\n"
    "'renorm' is the renormalized overlap (a perfect sample scores 100%). See docs/metrics.md.\n"};

typedef struct compare_args {
    uint64_t top;
    const char *format;
    const char *match;
    int force;
    hp_term_args term;
    hp_cmp_match match_how; /* parsed from match */
} compare_args;

static void init_options(hp_option *opts, compare_args *a)
{
    hp_option table[] = {
        {HP_OPT_UINT, 't', "top", &a->top, "K", "k of the top-k recall/precision/tau columns (default 10)"},
        {HP_OPT_STRING, 'f', "format", &a->format, "FMT", "text|json (default text)"},
        {HP_OPT_FLAG, 0, "force", &a->force, NULL, "compare even if the programs differ"},
        {HP_OPT_STRING, 0, "match", &a->match, "HOW",
         "auto|address|name: how members are matched (default auto: by address; by name across two\n"
         "builds; call pairs by caller function on two-version code)"},
        HP_TERM_OPTIONS(&a->term),
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_compare_usage(FILE *out)
{
    compare_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &compare_desc, opts);
}

/* 0 if the result may be printed; otherwise prints why not and returns 1. */
static int refuse(const hp_cmp_result *r, int force)
{
    if (r->refusal[0]) {
        fprintf(stderr, "hotprof: %s\n", r->refusal);
        return 1;
    }
    for (size_t i = 0; i < r->nwarnings; i++)
        fprintf(stderr, "hotprof: %s%s\n", r->program == HP_CMP_OTHER_PROGRAM && i == 0 && !force ? "" : "warning: ",
                r->warnings[i]);
    if (r->program == HP_CMP_OTHER_PROGRAM && !force) {
        fprintf(stderr, "hotprof: %s and %s are profiles of different programs; use --force to compare anyway\n",
                r->name_a, r->name_b);
        return 1;
    }
    if (r->n_both == 0) {
        fprintf(stderr, "hotprof: %s and %s have no profile type in common (nothing to compare)\n", r->name_a,
                r->name_b);
        return 1;
    }
    if (r->n_common_keys == 0 && !force) {
        fprintf(stderr, "hotprof: %s and %s have nothing in common: no method, pair, edge or block matches"
                        " (different programs?); use --force to print the table anyway\n", r->name_a, r->name_b);
        return 1;
    }
    return 0;
}

/* The comparison's JSON object, with the interval profiles' errors (analysis/ivstats.h) as one
 * more member when A has interval profiles. 0, or -1. */
static int write_json(const hp_profile *A, const hp_profile *B, const hp_cmp_result *r)
{
    if (!A->nivs) return hp_compare_write_json(stdout, r);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return -1;
    int rc = hp_compare_write_json(m, r);
    if (fclose(m) || rc || len < 2 || buf[len - 2] != '}') return free(buf), -1;
    fwrite(buf, 1, len - 2, stdout); /* the object without its closing "}\n" */
    fputs(",\n", stdout);
    rc = hp_iv_compare_write(stdout, A, B, 1) < 0 ? -1 : 0;
    fputs("}\n", stdout);
    free(buf);
    return rc;
}

static int run_compare(const char *pa, const char *pb, const compare_args *a, hp_report_format fmt)
{
    hp_profile *A = hp_cli_read_profile(pa), *B = A ? hp_cli_read_profile(pb) : NULL;
    hp_cmp_result *r = malloc(sizeof *r);
    hp_cmp_opts o;
    int rc = 1;
    hp_compare_default_opts(&o);
    o.k = (size_t)a->top;
    o.match = a->match_how;
    if (!A || !B || !r) goto out;
    if (hp_cmp_needs_symbols(A, B, o.match)) {
        o.sym_a = hp_sym_open(A->modules, A->nmodules);
        o.sym_b = hp_sym_open(B->modules, B->nmodules);
    }
    if (hp_compare(A, B, &o, r)) {
        fprintf(stderr, "hotprof: out of memory\n");
        goto out;
    }
    if (refuse(r, a->force)) goto out;
    hp_term term;
    hp_term_start(&term, &a->term, fmt != HP_FORMAT_JSON);
    rc = fmt == HP_FORMAT_JSON ? write_json(A, B, r) : hp_compare_write_text(stdout, r);
    if (!rc && fmt != HP_FORMAT_JSON && A->nivs) rc = hp_iv_compare_write(stdout, A, B, 0) < 0;
    if (rc || fflush(stdout)) {
        fprintf(stderr, "hotprof: cannot write the comparison\n");
        rc = 1;
    }
    hp_term_finish(&term);
out:
    hp_sym_close(o.sym_a);
    hp_sym_close(o.sym_b);
    free(r);
    if (A) hp_profile_free(A);
    if (B) hp_profile_free(B);
    return rc;
}

static int parse_match(const char *text, hp_cmp_match *how)
{
    static const char *const words[] = {"auto", "address", "name"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(text, words[i])) return *how = (hp_cmp_match)i, 0;
    return -1;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a = {.top = HP_CMP_DEFAULT_K, .format = "text", .match = "auto"};
    char msg[256];
    hp_option opts[HP_OPTIONS_MAX];
    hp_report_format fmt;
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&compare_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos != 2) return hp_usage_error(&compare_desc, "needs two profiles, A (sampled) and B (reference); got %d", npos);
    if (a.top == 0 || a.top > 1000000) return hp_usage_error(&compare_desc, "--top must be between 1 and 1000000");
    if (hp_report_parse_format(a.format, &fmt) || (fmt != HP_FORMAT_TEXT && fmt != HP_FORMAT_JSON))
        return hp_usage_error(&compare_desc, "unknown format '%s' (text, json)", a.format);
    if (hp_term_check(&a.term, msg, sizeof msg)) return hp_usage_error(&compare_desc, "%s", msg);
    if (parse_match(a.match, &a.match_how))
        return hp_usage_error(&compare_desc, "unknown --match '%s' (auto, address, name)", a.match);
    return run_compare(pos[0], pos[1], &a, fmt);
}

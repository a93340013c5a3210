/* cmd_diff.c — `hotprof diff [options] A B` (perf diff): per function and per call pair, the
 * counts and shares of baseline A and new profile B and the change, sorted by the change
 * (analysis/diff.h). Entries match by symbolized name, so rebuilds of one program compare.
 *
 * Refusals: a usage error (exit 2, one message); a file that cannot be read (exit 1).
 */
#include "analysis/diff.h"
#include "analysis/profile.h"
#include "analysis/ptype/aptype.h"
#include "cli/commands.h"
#include "cli/pager.h"
#include "cli/read_profile.h"
#include "core/ptype/ptype.h"
#include <stdlib.h>
#include <string.h>

static const hp_command_desc diff_desc = {
    "diff", "[options] A B",
    "Show what changed from profile A (the baseline) to profile B: for hot methods and call pairs,\n"
    "each entry's count and share (percent of the type's total) in A and in B, and the delta\n"
    "(share in B - share in A, in percentage points) with the count ratio, sorted by |delta|.",
    "Entries match by symbolized name (a call pair as caller;callee), not by address, so two builds\n"
    "of one program compare; an address without a symbol is named module+0xOFFSET. An entry of one\n"
    "profile only shows 0 on the other side. A profile diffed with itself shows 'no change'.\n"};

typedef struct diff_args {
    uint64_t top;
    const char *format, *type;
    hp_term_args term;
} diff_args;

static void init_options(hp_option *opts, diff_args *a)
{
    hp_option table[] = {
        {HP_OPT_UINT, 't', "top", &a->top, "N", "rows per profile type (default 20; 0 = all)"},
        {HP_OPT_STRING, 'f', "format", &a->format, "FMT", "text|json (default text)"},
        {HP_OPT_STRING, 0, "type", &a->type, "TYPE", "only this profile type: methods|callpairs (and synonyms)"},
        HP_TERM_OPTIONS(&a->term),
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_diff_usage(FILE *out)
{
    diff_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &diff_desc, opts);
}

static int run_diff(const char *pa, const char *pb, const hp_diff_opts *o, const hp_term_args *ta)
{
    hp_term term = {0, 0};
    hp_profile *A = hp_cli_read_profile(pa), *B = A ? hp_cli_read_profile(pb) : NULL;
    int rc = 1;
    if (A && B) {
        hp_term_start(&term, ta, !o->json);
        rc = hp_diff_write(stdout, A, B, o) || fflush(stdout) ? 1 : 0;
        if (rc) fprintf(stderr, "hotprof: cannot write the diff\n");
        hp_term_finish(&term);
    }
    if (A) hp_profile_free(A);
    if (B) hp_profile_free(B);
    return rc;
}

/* o from the parsed options; 0, or the usage error's exit status. */
static int to_opts(const diff_args *a, hp_diff_opts *o)
{
    o->top = a->top ? (size_t)a->top : SIZE_MAX;
    o->type = -1;
    if (strcmp(a->format, "text") && strcmp(a->format, "json"))
        return hp_usage_error(&diff_desc, "unknown format '%s' (text, json)", a->format);
    o->json = !strcmp(a->format, "json");
    char msg[256];
    if (hp_term_check(&a->term, msg, sizeof msg)) return hp_usage_error(&diff_desc, "%s", msg);
    if (!a->type) return 0;
    const hp_ptype *c = hp_ptype_by_name(a->type, strlen(a->type));
    if (!c) return hp_usage_error(&diff_desc, "unknown profile type '%s' (methods, callpairs)", a->type);
    if (!hp_aptypes[c->id]->diff_rows)
        return hp_usage_error(&diff_desc, "profile type '%s' cannot be diffed (methods, callpairs)", a->type);
    o->type = c->id;
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    diff_args a = {20, "text", NULL, {NULL, 0, 0}};
    hp_option opts[HP_OPTIONS_MAX];
    hp_diff_opts o = {0};
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&diff_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos != 2) return hp_usage_error(&diff_desc, "needs two profiles, A (baseline) and B (new); got %d", npos);
    if ((rc = to_opts(&a, &o))) return rc;
    o.name_a = pos[0], o.name_b = pos[1];
    return run_diff(pos[0], pos[1], &o, &a.term);
}

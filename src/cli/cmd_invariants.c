/* cmd_invariants.c — `hotprof invariants [--min-share PCT] [--min-samples N] [--by-callsite]
 * [--top N] [--format text|json] [-o FILE] [PROFILE]`: the semi-invariant instructions of a value
 * profile (`hotprof run --mode timer --values L/K`), analysis/invariants.h.
 * Bad input gets one message on stderr and exit 1 (an unreadable profile, a profile without value
 * hot-lists: how to get them); a usage mistake (a share outside 0..100, an unknown format) exit 2.
 * Output goes to stdout or whole-or-nothing to -o FILE (outfile.h).
 */
#include "analysis/invariants.h"
#include "cli/commands.h"
#include "cli/outfile.h"
#include "cli/read_profile.h"
#include <stdlib.h>
#include <string.h>

static const hp_command_desc invariants_desc = {
    "invariants", "[options] [PROFILE]",
    "List the semi-invariant instructions of a value profile (default PROFILE: " HP_DEFAULT_PROFILE "):\n"
    "operands whose most frequent value holds at least --min-share % of their captures, at\n"
    "instructions that run often, heaviest first (samples x share).",
    "The profile needs value hot-lists: `hotprof run --mode timer --values L/K -- PROG` writes them.\n"
    "An instruction's weight is its timer samples (the interrupted pc), or its captures when the\n"
    "profile has no stack samples. The return-address context (retaddr) is not listed as a value.\n"
    "--by-callsite splits each row by the callers its samples came from (the hot-lists are per\n"
    "instruction, so each caller's row shows the instruction's value and share).\n"
    "Columns: rank, samples, % of all samples, kind (reg, addr, load, store, flags, xmm), operand,\n"
    "the invariant value (hex and decimal; xmm also as a double), its share, address, function and\n"
    "file:line. See docs/value-reports.md.\n"};

typedef struct inv_args {
    const char *input, *output, *format, *min_share;
    uint64_t min_samples, top;
    int by_callsite;
} inv_args;

static void init_options(hp_option *opts, inv_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'i', "input", &a->input, "FILE", "the profile to read (as PROFILE)"},
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE", "write to FILE (whole or not at all; '-' = stdout, the default)"},
        {HP_OPT_STRING, 0, "min-share", &a->min_share, "PCT", "least share of the top value, 0..100 (default 90)"},
        {HP_OPT_UINT, 0, "min-samples", &a->min_samples, "N", "least samples (captures) at the instruction (default 1)"},
        {HP_OPT_FLAG, 0, "by-callsite", &a->by_callsite, NULL, "split each row by the callers of its samples"},
        {HP_OPT_UINT, 't', "top", &a->top, "N", "rows shown (default 30; 0 = all)"},
        {HP_OPT_STRING, 'f', "format", &a->format, "FMT", "text|json (default text)"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_invariants_usage(FILE *out)
{
    inv_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &invariants_desc, opts);
}

static int run(const char *path, const inv_args *a, const hp_inv_opts *o, int json)
{
    hp_profile *p = hp_cli_read_profile(path);
    if (!p) return 1;
    if (!p->nvalues) {
        fprintf(stderr, "hotprof: %s has no value hot-lists: record them with `hotprof run --mode timer --values 4/2 "
                        "-- PROG ARGS`\n", path);
        hp_profile_free(p);
        return 1;
    }
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_outfile out;
    int rc = 1;
    if (!s) fprintf(stderr, "hotprof: out of memory\n");
    else if (hp_outfile_open(&out, a->output) == 0)
        rc = hp_outfile_close(&out, hp_invariants_write(out.f, p, s, o, json) == 0) ? 1 : 0;
    hp_sym_close(s);
    hp_profile_free(p);
    return rc;
}

int cmd_invariants(int argc, char **argv)
{
    inv_args a = {.format = "text", .min_samples = 1, .top = 30};
    hp_option opts[HP_OPTIONS_MAX];
    char **pos, *end;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&invariants_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos > 1 || (a.input && npos > 0))
        return hp_usage_error(&invariants_desc, "one profile at a time (got '%s')", pos[npos - 1]);
    double share = a.min_share ? strtod(a.min_share, &end) : 90;
    if (a.min_share && (end == a.min_share || *end || !(share >= 0 && share <= 100)))
        return hp_usage_error(&invariants_desc, "--min-share takes a percentage 0..100 (got '%s')", a.min_share);
    int json = strcmp(a.format, "json") == 0;
    if (!json && strcmp(a.format, "text") != 0) return hp_usage_error(&invariants_desc, "unknown format '%s' (text, json)", a.format);
    hp_inv_opts o = {share / 100, a.min_samples, a.by_callsite, (size_t)a.top};
    return run(a.input ? a.input : npos ? pos[0] : HP_DEFAULT_PROFILE, &a, &o, json);
}

/* cmd_annotate.c — `hotprof annotate [options] [SYMBOL] [-i FILE | FILE]` (perf annotate): one
 * function of a profile with basic-block counts, its source lines (or with --asm its instructions)
 * each with the counts of its blocks (analysis/annotate/). No SYMBOL: the hottest function.
 *
 * Bad input gets one message on stderr and exit 1: an unreadable profile, a profile without block
 * counts (how to get them), a function that is unknown or ambiguous (close matches), a binary
 * without symbols, a module file that cannot be disassembled. A source file that cannot be read is
 * one warning, and the lines are then shown as numbers with counts. A timer profile (no blocks,
 * stack samples) is annotated with samples per pc and, with --asm, each instruction's top values. Output goes to stdout or
 * whole-or-nothing to -o FILE (outfile.h); colour and the pager as report's (pager.h).
 */
#include "analysis/annotate/annotate.h"
#include "analysis/profile.h"
#include "analysis/symbolize.h"
#include "cli/commands.h"
#include "cli/outfile.h"
#include "cli/pager.h"
#include "cli/read_profile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const hp_command_desc annotate_desc = {
    "annotate", "[options] [SYMBOL] [-i FILE | FILE]",
    "Show one function's source lines (or instructions, --asm) with the basic-block counts of a\n"
    "profile beside each (default FILE: " HP_DEFAULT_PROFILE "; no SYMBOL: the hottest function).",
    "One argument that names an existing file is the profile (the hottest function is shown).\n"
    "SYMBOL is a function's name as report prints it (C++ names demangled; \"ns::f\" matches\n"
    "\"ns::f(int)\"; a mangled name works too). A line's count is the sum of the counts of the blocks\n"
    "starting on it, its % a share of the function's total; lines of inlined code from other files\n"
    "and blocks without a line follow the listing, so the counts sum to the total. With --asm each\n"
    "instruction shows the count of its block (a block runs from its recorded pc to the next one;\n"
    "'>' marks a block's first instruction), read from the profiled binary (same build-id).\n"
    "The profile needs block counts: build with `hotprof cc` (hooks 'blocks', the default), or\n"
    "timer samples (`hotprof run --mode timer`): then a line's or instruction's count is the\n"
    "samples whose interrupted pc is there, and with --values each instruction shows its top\n"
    "values (kind operand=value share; docs/value-reports.md).\n"
    "A bursty profile's counts are the sampled ones; the header gives the estimate factor.\n"
    "Lines from 5% of the total are red, from 0.5% green, when stdout is a terminal (not with\n"
    "--stdio, --color=never, -o FILE or NO_COLOR set); long text on a terminal is paged as report's.\n"};

typedef struct annotate_args {
    const char *input, *output, *format;
    uint64_t context;
    int asm_view;
    hp_term_args term;
} annotate_args;

static void init_options(hp_option *opts, annotate_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'i', "input", &a->input, "FILE", "the profile to read (as FILE; default " HP_DEFAULT_PROFILE ")"},
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE", "write to FILE (whole or not at all; '-' = stdout, the default)"},
        {HP_OPT_FLAG, 0, "asm", &a->asm_view, NULL, "the function's instructions (Capstone) with block counts, source interleaved"},
        {HP_OPT_STRING, 'f', "format", &a->format, "FMT", "text|json (default text)"},
        {HP_OPT_UINT, 'C', "context", &a->context, "N", "source lines shown before and after the function's lines (default 0)"},
        HP_TERM_OPTIONS(&a->term),
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_annotate_usage(FILE *out)
{
    annotate_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &annotate_desc, opts);
}

/* Everything one run holds, released by finish(). */
typedef struct annotate_run {
    hp_profile *p;
    hp_symbolizer *s;
    hp_annot_index ix;
    hp_annot_func f;
    hp_annot_source src;
    int have_src;
    hp_annot_insn *insns;
    size_t ninsns;
} annotate_run;

static int finish(annotate_run *r, int rc)
{
    if (r->s)
        for (size_t i = 0; i < hp_sym_nwarnings(r->s); i++) fprintf(stderr, "hotprof: warning: %s\n", hp_sym_warning(r->s, i));
    free(r->insns);
    if (r->have_src) hp_annot_source_free(&r->src);
    hp_annot_func_free(&r->f);
    hp_annot_index_free(&r->ix);
    hp_sym_close(r->s);
    hp_profile_free(r->p);
    return rc;
}

static int oom(annotate_run *r)
{
    fprintf(stderr, "hotprof: out of memory\n");
    return finish(r, 1);
}

/* The index entry to annotate: SYMBOL's, or the hottest; -1 after one message. */
static long choose_function(annotate_run *r, const char *path, const char *symbol)
{
    char msg[1024];
    if (!r->ix.nfns && r->ix.unnamed) {
        fprintf(stderr, "hotprof: %s: no function names for its %zu executed blocks: the profiled binary has no "
                        "symbols (stripped after the run?); annotate needs the binary as it was built\n",
                path, r->ix.unnamed);
        return -1;
    }
    if (!r->ix.nfns) {
        fprintf(stderr, "hotprof: %s: no block was executed; nothing to annotate\n", path);
        return -1;
    }
    if (!symbol) return 0;
    long i = hp_annot_find(&r->ix, r->s, symbol, msg, sizeof msg);
    if (i < 0) fprintf(stderr, "hotprof: %s\n", msg);
    return i;
}

static void read_source(annotate_run *r)
{
    if (!r->f.nfiles) {
        fprintf(stderr, "hotprof: warning: %s: no source file known (built without -g?); showing counts only\n", r->f.name);
        return;
    }
    r->have_src = hp_annot_source_read(r->f.files[0], &r->src) == 0;
    if (!r->have_src)
        fprintf(stderr, "hotprof: warning: cannot read %s (%s); showing line numbers with counts only\n",
                r->f.files[0], strerror(errno));
}

static int write_output(annotate_run *r, const annotate_args *a, int json)
{
    hp_term term;
    hp_term_start(&term, &a->term, !json && (!a->output || strcmp(a->output, "-") == 0));
    hp_annot_opts o = {a->asm_view, term.color, (unsigned)(a->context > 10000 ? 10000 : a->context)};
    hp_annot_view v = {r->p, &r->f, r->have_src ? &r->src : NULL, r->insns, r->ninsns};
    hp_outfile out;
    int rc = 1;
    if (hp_outfile_open(&out, a->output) == 0) {
        int ok = (json ? hp_annot_write_json(out.f, &v, &o) : hp_annot_write_text(out.f, &v, &o)) == 0;
        rc = hp_outfile_close(&out, ok) ? 1 : 0;
    }
    hp_term_finish(&term);
    return rc;
}

static int annotate(annotate_run *r, const annotate_args *a, const char *path, const char *symbol, int json)
{
    char err[1024];
    if (!(r->p = hp_cli_read_profile(path))) return finish(r, 1);
    int timer = !r->p->nblocks && r->p->nstacks; /* --mode timer: samples (and values) per pc */
    if (!r->p->nblocks && !timer) {
        fprintf(stderr, "hotprof: %s has no basic-block counts (built with --hooks=functions or xray?) and no timer "
                        "samples: build the program with `hotprof cc --hooks=blocks` (the default) and run it again, "
                        "or run it with `hotprof run --mode timer`\n", path);
        return finish(r, 1);
    }
    if (!(r->s = hp_sym_open(r->p->modules, r->p->nmodules)) ||
        (timer ? hp_annot_index_samples(r->p, r->s, &r->ix) : hp_annot_index_build(r->p, r->s, &r->ix)))
        return oom(r);
    long which = choose_function(r, path, symbol);
    if (which < 0) return finish(r, 1);
    if ((timer ? hp_annot_collect_samples : hp_annot_collect)(r->p, r->s, &r->ix.fns[which], &r->f)) return oom(r);
    read_source(r);
    if (a->asm_view && hp_annot_disasm(&r->f, r->s, &r->insns, &r->ninsns, err, sizeof err)) {
        fprintf(stderr, "hotprof: %s\n", err);
        return finish(r, 1);
    }
    if (timer) hp_annot_add_values(r->p, r->insns, r->ninsns);
    return finish(r, write_output(r, a, json));
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

int cmd_annotate(int argc, char **argv)
{
    annotate_args a = {.format = "text"};
    hp_option opts[HP_OPTIONS_MAX];
    annotate_run r = {0};
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&annotate_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos > 2 || (a.input && npos > 1))
        return hp_usage_error(&annotate_desc, "one symbol and one profile at a time (got '%s')", pos[npos - 1]);
    int json = strcmp(a.format, "json") == 0;
    if (!json && strcmp(a.format, "text") != 0) return hp_usage_error(&annotate_desc, "unknown format '%s' (text, json)", a.format);
    char msg[256];
    if (hp_term_check(&a.term, msg, sizeof msg)) return hp_usage_error(&annotate_desc, "%s", msg);
    if (npos == 1 && !a.input && is_file(pos[0])) /* `hotprof annotate prof.data`: the hottest */
        return annotate(&r, &a, pos[0], NULL, json);
    const char *path = a.input ? a.input : npos > 1 ? pos[1] : HP_DEFAULT_PROFILE;
    return annotate(&r, &a, path, npos ? pos[0] : NULL, json);
}

/* cmd_merge.c — `hotprof merge [options] -o OUT IN...`: one profile from many runs, processes or
 * machines (analysis/merge/merge.h), written in the hotprof format so that report, info, diff,
 * compare and another merge read it like any profile.
 *
 * Refusals: a usage error (exit 2: no -o, no input); an input that cannot be read, inputs that
 * cannot be merged (modes, sampling parameters, builds), or an output that cannot be written
 * (exit 1, one message, and no output file: cli/outfile.h writes a temporary file and renames it).
 * One input is allowed: the result is its last group as one merged thread.
 */
#include "analysis/merge/merge.h"
#include "cli/commands.h"
#include "cli/outfile.h"
#include "cli/read_profile.h"
#include <stdlib.h>
#include <string.h>

static const hp_command_desc merge_desc = {
    "merge", "[options] -o OUT IN...",
    "Merge profiles of many runs, processes or machines into one profile OUT (hotprof format).",
    "Exact counts add (methods, call pairs, blocks, edges; saturating). Addresses are rebased through\n"
    "their modules (identified by build-id, else path), so runs of a PIE program or of different\n"
    "machines merge; block guards are matched by their block's address. Inputs must share one mode\n"
    "and, when sampled, every sampling parameter; a bursty merge adds the events seen and sampled so\n"
    "that report scales by the pooled frequency. Datastream summaries merge when their detectors\n"
    "have one configuration. Different builds of one program are refused (--force keeps them as\n"
    "separate modules). INFO keeps keys equal in every input and records the inputs (merge.*).\n"
    "One input is allowed. See docs/fleet.md for merging a fleet's profiles.\n"};

typedef struct merge_args {
    const char *output;
    int force;
} merge_args;

static void init_options(hp_option *opts, merge_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'o', "output", &a->output, "OUT", "the merged profile (required; written whole or not at all)"},
        {HP_OPT_FLAG, 0, "force", &a->force, NULL,
         "merge different builds of one program (by build-id) as separate modules; only the build on disk "
         "symbolizes"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_merge_usage(FILE *out)
{
    merge_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &merge_desc, opts);
}

static void print_notes(const char *notes)
{
    while (*notes) {
        const char *nl = strchr(notes, '\n');
        int n = nl ? (int)(nl - notes) : (int)strlen(notes);
        fprintf(stderr, "hotprof: note: %.*s\n", n, notes);
        notes += n + (nl != NULL);
    }
}

/* Writes the merged bytes to path; 0, or 1 after one message. */
static int write_out(const char *path, const hp_pbuild *b)
{
    hp_outfile o;
    if (hp_outfile_open(&o, path)) return 1;
    fwrite(b->buf, 1, b->len, o.f);
    return hp_outfile_close(&o, 1) ? 1 : 0;
}

static int merge_files(char **names, int n, const merge_args *a)
{
    hp_profile **in = calloc((size_t)n, sizeof *in);
    char err[1024], notes[4096];
    hp_pbuild b = {0};
    int rc = 1, nread = 0;
    if (!in) return fprintf(stderr, "hotprof: out of memory\n"), 1;
    while (nread < n && (in[nread] = hp_cli_read_profile(names[nread]))) nread++;
    hp_merge_opts o = {.force = a->force, .extra_info = NULL, .status_from = NULL};
    if (nread == n && hp_merge_profiles(in, (size_t)n, &o, &b, err, sizeof err, notes, sizeof notes) == 0) {
        print_notes(notes);
        rc = write_out(a->output, &b);
        if (!rc) fprintf(stderr, "hotprof: merged %d profile%s into %s\n", n, n == 1 ? "" : "s", a->output);
    } else if (nread == n) {
        fprintf(stderr, "hotprof: merge: %s\n", err);
    }
    hp_pbuild_free(&b);
    for (int i = 0; i < nread; i++) hp_profile_free(in[i]);
    free(in);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    merge_args a = {NULL, 0};
    hp_option opts[HP_OPTIONS_MAX];
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&merge_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (!a.output) return hp_usage_error(&merge_desc, "needs -o OUT, the merged profile to write");
    if (npos < 1) return hp_usage_error(&merge_desc, "needs at least one input profile");
    return merge_files(pos, npos, &a);
}

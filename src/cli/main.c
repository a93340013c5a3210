/* main.c — `hotprof`: the one command table, and main(), which finds the subcommand and hands
 * it argv (perf style: one table, one file per command, src/cli/cmd_<name>.c). `hotprof --help`
 * and `hotprof --version` are answered here; an unknown command or option gets one line saying
 * so, a hint, and exit status 2. Called as `hotprof-cc` or `hotprof-c++` (links to this binary,
 * made by `make` and `make install`), it is the one-word compiler driver: `hotprof cc ARGS` or
 * `hotprof c++ ARGS`, for build systems that want a compiler path rather than a command line.
 */
#include "cli/commands.h"
#include "hotprof/version.h"
#include <string.h>

static const hp_command commands[] = {
    {"run", cmd_run, cmd_run_usage, "run a program built with 'hotprof cc' and write its profile"},
    {"report", cmd_report, cmd_report_usage, "print hot methods, call pairs, blocks and edges of a profile"},
    {"info", cmd_info, cmd_info_usage, "show what a profile file holds, section by section"},
    {"compare", cmd_compare, cmd_compare_usage, "accuracy of a sampled profile against an exhaustive one (HPS overlap)"},
    {"annotate", cmd_annotate, cmd_annotate_usage, "one function's source lines or instructions with block counts (perf annotate)"},
    {"invariants", cmd_invariants, cmd_invariants_usage, "semi-invariant instructions of a value profile (--mode timer --values)"},
    {"diff", cmd_diff, cmd_diff_usage, "what changed from profile A to B, per function and call pair (perf diff)"},
    {"top", cmd_top, cmd_top_usage, "live view of a running program's hottest methods, call pairs, subpaths"},
    {"merge", cmd_merge, cmd_merge_usage, "merge profiles of many runs, processes or machines into one"},
    {"sim", cmd_sim, cmd_sim_usage, "replay a recorded trace through multi-hash or HPS hardware designs"},
    {"cc", cmd_cc, NULL, "compile and link C with hotprof's hooks (wraps clang or gcc)"},
    {"c++", cmd_cxx, NULL, "compile and link C++ with hotprof's hooks (wraps clang++ or g++)"},
    {"help", cmd_help, cmd_help_usage, "show the help of a command"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const hp_command *hp_find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

const hp_command *hp_command_at(size_t i) { return i < NCOMMANDS ? &commands[i] : NULL; }

void hp_print_main_usage(FILE *out)
{
    fputs("usage: hotprof [--help] [--version] COMMAND [ARGS]\n\n"
          "hotprof finds what is hot in a native C/C++ program: methods, call pairs, blocks, edges.\n\n"
          "commands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\nexample:\n"
          "  hotprof cc -O2 -o prog prog.c && hotprof run -- ./prog && hotprof report\n\n"
          "'hotprof help COMMAND' shows a command's options; the manual: 'man hotprof', 'man hotprof-COMMAND'.\n", out);
}

int hp_unknown_command(const char *name)
{
    fprintf(stderr, "hotprof: '%s' is not a hotprof command\nsee 'hotprof --help' for the list\n", name);
    return 2;
}

/* "cc" or "c++" when argv0 names a one-word driver (hotprof-cc, hotprof-c++), else NULL. */
static const char *driver_of(const char *argv0)
{
    const char *slash = strrchr(argv0, '/'), *base = slash ? slash + 1 : argv0;
    if (strcmp(base, "hotprof-cc") == 0) return "cc";
    if (strcmp(base, "hotprof-c++") == 0) return "c++";
    return NULL;
}

int main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    if (!strcmp(slash ? slash + 1 : argv[0], "as")) return cmd_as(argc, argv); /* cmd_as.c: clang's assembler */
    const char *driver = driver_of(argv[0]);
    if (driver) {
        argv[0] = (char *)driver; /* the command sees itself called as `hotprof cc` */
        return hp_find_command(driver)->run(argc, argv);
    }
    if (argc < 2) {
        hp_print_main_usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        hp_print_main_usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("hotprof %s\n", HOTPROF_VERSION);
        return 0;
    }
    if (name[0] == '-') {
        fprintf(stderr, "hotprof: unknown option '%s'\nsee 'hotprof --help'\n", name);
        return 2;
    }
    const hp_command *c = hp_find_command(name);
    if (!c) return hp_unknown_command(name);
    return c->run(argc - 1, argv + 1);
}

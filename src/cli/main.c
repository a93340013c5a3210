/* main.c — `hotprof`: finds the subcommand and hands it argv (perf style: one table, one file
 * per command). `hotprof --help`, `hotprof --version` and `hotprof help CMD` are answered here;
 * an unknown command or option gets one line saying so, a hint, and exit status 2.
 */
#include "cli/commands.h"
#include "hotprof/version.h"
#include <string.h>

typedef struct hp_command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out); /* NULL: the command prints its own help (cc, c++) */
    const char *summary;
} hp_command;

static const hp_command commands[] = {
    {"run", cmd_run, cmd_run_usage, "run a program built with 'hotprof cc' and write its profile"},
    {"report", cmd_report, cmd_report_usage, "print hot methods, call pairs, blocks and edges of a profile"},
    {"info", cmd_info, cmd_info_usage, "show what a profile file holds, section by section"},
    {"compare", cmd_compare, cmd_compare_usage, "accuracy of a sampled profile against an exhaustive one (HPS overlap)"},
    {"cc", cmd_cc, NULL, "compile and link C with hotprof's hooks (wraps clang or gcc)"},
    {"c++", cmd_cxx, NULL, "compile and link C++ with hotprof's hooks (wraps clang++ or g++)"},
    {"help", NULL, NULL, "show the help of a command"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const hp_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static void print_main_usage(FILE *out)
{
    fputs("usage: hotprof [--help] [--version] COMMAND [ARGS]\n\n"
          "hotprof finds what is hot in a native C/C++ program: methods, call pairs, blocks, edges.\n\n"
          "commands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\nexample:\n"
          "  hotprof cc -O2 -o prog prog.c && hotprof run -- ./prog && hotprof report\n\n"
          "'hotprof help COMMAND' shows a command's options; the manual is docs/hotprof.1.md.\n", out);
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "hotprof: '%s' is not a hotprof command\nsee 'hotprof --help' for the list\n", name);
    return 2;
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_main_usage(stdout);
        return 0;
    }
    const hp_command *c = find_command(argv[1]);
    if (!c) return unknown_command(argv[1]);
    if (c->usage) {
        c->usage(stdout);
        return 0;
    }
    if (!c->run) {
        print_main_usage(stdout);
        return 0;
    }
    char *help_argv[] = {(char *)c->name, "--help", NULL};
    return c->run(2, help_argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_main_usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_main_usage(stdout);
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
    const hp_command *c = find_command(name);
    if (!c) return unknown_command(name);
    if (!c->run) return cmd_help(argc - 1, argv + 1);
    return c->run(argc - 1, argv + 1);
}

/* commands.h — the `hotprof` subcommands. Each lives in its own file, src/cli/cmd_<name>.c
 * (`c++` shares cmd_cc.c with `cc`: one wrapper, two languages), and has the signature of main():
 * argv[0] is the subcommand's name, the return value is the exit status. main.c dispatches
 * through one table (hp_find_command). Exit status conventions: 0 success, 1 the work failed
 * (unreadable profile, no profile written), 2 a usage mistake; `run` passes the program's own
 * status through.
 */
#ifndef HOTPROF_CLI_COMMANDS_H
#define HOTPROF_CLI_COMMANDS_H
#include <stdio.h>
#include "cli/options.h"
#include "core/control/spec.h"

int cmd_run(int argc, char **argv);     /* cmd_run.c (+ run_child.c) */
int cmd_report(int argc, char **argv);  /* cmd_report.c */
int cmd_info(int argc, char **argv);    /* cmd_info.c */
int cmd_compare(int argc, char **argv); /* cmd_compare.c */
int cmd_diff(int argc, char **argv);    /* cmd_diff.c */
int cmd_annotate(int argc, char **argv); /* cmd_annotate.c */
int cmd_invariants(int argc, char **argv); /* cmd_invariants.c */
int cmd_merge(int argc, char **argv);   /* cmd_merge.c */
int cmd_cc(int argc, char **argv);      /* cmd_cc.c (+ cc_hooksets.c) */
int cmd_cxx(int argc, char **argv);     /* cmd_cc.c */
int cmd_as(int argc, char **argv);      /* cmd_as.c: run as <lib>/hotprof-as/as by clang (--dual-latch=branch) */
int cmd_help(int argc, char **argv);    /* cmd_help.c */
int cmd_top(int argc, char **argv);     /* cmd_top.c (+ top.c, top_screen.c) */
int cmd_sim(int argc, char **argv);     /* cmd_sim.c (src/sim/) */

/* Prints the full help of one subcommand ("hotprof help CMD"). */
void cmd_run_usage(FILE *out);
void cmd_report_usage(FILE *out);
void cmd_info_usage(FILE *out);
void cmd_compare_usage(FILE *out);
void cmd_diff_usage(FILE *out);
void cmd_help_usage(FILE *out);
void cmd_annotate_usage(FILE *out);
void cmd_invariants_usage(FILE *out);
void cmd_merge_usage(FILE *out);
void cmd_top_usage(FILE *out);
void cmd_sim_usage(FILE *out);

/* One row of the command table (main.c). */
typedef struct hp_command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out); /* NULL: the command prints its own help (cc, c++) */
    const char *summary;
} hp_command;

/* The command called name, or NULL. */
const hp_command *hp_find_command(const char *name);
/* The i-th command of the table, in its order, or NULL past the end (man pages, completion). */
const hp_command *hp_command_at(size_t i);
/* `hotprof --help`: the usage line, every command with its summary, an example. */
void hp_print_main_usage(FILE *out);
/* "'NAME' is not a hotprof command" + hint on stderr; returns 2. */
int hp_unknown_command(const char *name);

/* The default profile file (spec.h owns every default). */
#define HP_DEFAULT_PROFILE HP_SPEC_DEFAULT_OUTPUT

#endif

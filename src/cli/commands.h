/* commands.h — the `hotprof` subcommands. Each lives in its own file (cmd_<name>.c, cli_cc.c)
 * and has the signature of main(): argv[0] is the subcommand's name, the return value is the
 * exit status. Exit status conventions: 0 success, 1 the work failed (unreadable profile, no
 * profile written), 2 a usage mistake; `run` passes the program's own status through.
 */
#ifndef HOTPROF_CLI_COMMANDS_H
#define HOTPROF_CLI_COMMANDS_H
#include <stdio.h>
#include "cli/options.h"

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_cc(int argc, char **argv);  /* src/cli/cli_cc.c */
int cmd_cxx(int argc, char **argv); /* src/cli/cli_cc.c */

/* Prints the full help of one subcommand ("hotprof help CMD"). */
void cmd_run_usage(FILE *out);
void cmd_report_usage(FILE *out);
void cmd_info_usage(FILE *out);
void cmd_compare_usage(FILE *out);

#define HP_DEFAULT_PROFILE "hotprof.data"

#endif

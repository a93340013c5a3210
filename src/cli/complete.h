/* complete.h — what the bash completion (completions/hotprof.bash) offers, printed by
 * `hotprof help --complete [CMD]` from the tables --help prints, so the completion knows every
 * command and option the binary it runs knows. Output, one item per line:
 *   without CMD: the command names, in the table's order;
 *   with CMD:    "@args KIND" first (KIND: profile, program, command or file: what the
 *                positional arguments are), then per option "NAME VALUE [CHOICE...]": NAME is
 *                --long or -s, VALUE the value's name or '-' for a flag, CHOICEs the values it
 *                takes when its help lists them as a|b|c (a TYPE:... value: the sampled types).
 * Invariant: no field has a space in it (a value name that has one is cut at it).
 */
#ifndef HOTPROF_CLI_COMPLETE_H
#define HOTPROF_CLI_COMPLETE_H
#include "cli/options.h"
#include <stdio.h>

/* The lines of one command with an option table (hp_print_usage in the HP_USAGE_COMPLETE style). */
void hp_complete_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts);
/* The lines for NAME (NULL: the command names). 0, 2 for an unknown command, 1 if its help
 * cannot be captured. */
int hp_complete_list(FILE *out, const char *name);

#endif

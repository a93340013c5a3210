/* manpage.h — the manual pages, as roff, rendered from the tables --help prints (`hotprof help
 * --man [CMD]`; `make` writes them into build/man/ and scripts/gen_man.sh appends the hand-written
 * sections of docs/man/). A command with an option table gets NAME, SYNOPSIS, DESCRIPTION and
 * OPTIONS from its hp_command_desc and hp_option table; one that prints its own help (cc, c++)
 * gets that text verbatim. Invariant: every byte of table text is escaped (no line starts with
 * a control character, backslashes and hyphens are roff escapes), so `groff -ww` has nothing to say.
 */
#ifndef HOTPROF_CLI_MANPAGE_H
#define HOTPROF_CLI_MANPAGE_H
#include "cli/options.h"
#include <stdio.h>

/* SYNOPSIS, DESCRIPTION (summary, then details) and OPTIONS of one command (hp_print_usage in
 * the HP_USAGE_MAN style calls this). */
void hp_man_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts);
/* The page hotprof-NAME(1) up to its hand-written sections, or hotprof(1) for NAME NULL.
 * 0, or 2 (a message on stderr) for an unknown command, 1 if its help cannot be captured. */
int hp_man_page(FILE *out, const char *name);

#endif

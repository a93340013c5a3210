/* help_text.h — the --help text of a command that prints its own (cc, c++: no option table),
 * captured from its standard output, for the renderers that need it as a string (manpage.c,
 * complete.c). Invariant: stdout is restored whatever happens; the text is NUL-terminated.
 */
#ifndef HOTPROF_CLI_HELP_TEXT_H
#define HOTPROF_CLI_HELP_TEXT_H
#include "cli/commands.h"

/* The text `c --help` prints (malloc'd, the caller frees), or NULL with a message on stderr. */
char *hp_capture_help(const hp_command *c);

#endif

/* pager.h — how a command's text output meets a terminal, with perf's and git's conventions:
 * colour only on a terminal, a pager for text on a terminal, and options to turn both off.
 *
 * Every command that prints text tables (report, compare, diff, annotate) takes HP_TERM_OPTIONS:
 *   --color=auto|always|never  auto (the default): colour when stdout is a terminal, NO_COLOR is
 *                              unset or empty and TERM is not "dumb"; always: colour on stdout
 *                              even when piped; never: no colour.
 *   --no-pager                 no pager.
 *   --stdio                    plain text on stdout: no pager, no colour (perf report --stdio).
 * The pager runs only when the text goes to stdout (no -o FILE), stdout is a terminal, and neither
 * --stdio nor --no-pager was given: HOTPROF_PAGER, else PAGER, else "less -FRX" (-F: quits when
 * the text fits one screen; -R: passes colour; -X: leaves the text on the screen). An empty value
 * or "cat" means no pager. A pager command that is not found gives one warning and no pager.
 * Colour never goes into a file written with -o FILE.
 *
 * Invariant: this is the only place that asks whether stdout is a terminal; the analysis layer
 * gets the decision as a flag (hp_report_opts.color). The pager state lives in the caller's
 * hp_term, nothing here is global.
 */
#ifndef HOTPROF_CLI_PAGER_H
#define HOTPROF_CLI_PAGER_H
#include <stddef.h>
#include <sys/types.h>

/* The options as parsed (point HP_TERM_OPTIONS at one). */
typedef struct hp_term_args { const char *color; int no_pager, stdio; } hp_term_args;

#define HP_TERM_OPTIONS(t)                                                                               \
    {HP_OPT_STRING, 0, "color", &(t)->color, "WHEN",                                                      \
     "colour: auto (on a terminal unless NO_COLOR is set; the default), always, never"},                  \
        {HP_OPT_FLAG, 0, "no-pager", &(t)->no_pager, NULL,                                                \
         "do not page the text on a terminal (pager: HOTPROF_PAGER, PAGER, or less -FRX)"},               \
        {HP_OPT_FLAG, 0, "stdio", &(t)->stdio, NULL, "plain text on stdout: no pager, no colour (as perf)"}

/* What was decided for one command's output, and the pager process if one runs. */
typedef struct hp_term { int color; pid_t pager; } hp_term;

/* 0 if the --color word is valid (or absent); else -1 and a message in msg. */
int hp_term_check(const hp_term_args *a, char *msg, size_t len);
/* Decides colour and starts the pager when the command's text goes to stdout (to_stdout = 0:
 * output to a file or not text: neither). stdout is then the pager's pipe. Never fails: a pager
 * that cannot be started is a warning on stderr, and the text goes to stdout as it is. */
void hp_term_start(hp_term *t, const hp_term_args *a, int to_stdout);
/* Ends the output: flushes and closes stdout when a pager runs, and waits for it. Call last. */
void hp_term_finish(hp_term *t);
/* 1 if stdout is a terminal (report --format pprof refuses to write binary data onto one). */
int hp_term_stdout_is_terminal(void);

#endif

/* options.h — option parsing shared by every `hotprof` subcommand (in the style of perf's
 * parse-options): a command describes its options in a table, and one parser handles
 * `--long VALUE`, `--long=VALUE`, `-s VALUE`, `-sVALUE`, `--`, `--help` and repeatable options
 * (HP_OPT_LIST: every occurrence kept, in order), prints one clear message for a mistake, and
 * prints the usage for `hotprof help CMD` from the same table (help texts wrapped and indented
 * under the description column).
 *
 * Invariant: a parse either succeeds with every value stored, or stores a message on stderr
 * and reports HP_PARSE_ERROR (exit status 2 by convention); nothing is half-applied that the
 * command then uses.
 */
#ifndef HOTPROF_CLI_OPTIONS_H
#define HOTPROF_CLI_OPTIONS_H
#include <stdint.h>
#include <stdio.h>

typedef enum hp_opt_kind {
    HP_OPT_END = 0,
    HP_OPT_FLAG,   /* value: int *, set to 1 */
    HP_OPT_STRING, /* value: const char **, pointing into argv */
    HP_OPT_UINT,   /* value: uint64_t *, decimal or 0x hex */
    HP_OPT_LIST,   /* value: hp_opt_list *; repeatable, each value appended (into argv) */
} hp_opt_kind;

#define HP_OPT_LIST_MAX 16
/* The values of a repeatable option, in the order given. */
typedef struct hp_opt_list {
    const char *items[HP_OPT_LIST_MAX];
    int n;
} hp_opt_list;

/* Room for a command's option table, its HP_OPT_END included. */
#define HP_OPTIONS_MAX 24
/* Copies a command's local option table into opts[HP_OPTIONS_MAX] (checked at compile time). */
#define HP_OPTIONS_COPY(opts, table)                                                         \
    do {                                                                                     \
        _Static_assert(sizeof(table) / sizeof((table)[0]) <= HP_OPTIONS_MAX, "option table"); \
        for (size_t i_ = 0; i_ < sizeof(table) / sizeof((table)[0]); i_++) (opts)[i_] = (table)[i_]; \
    } while (0)

typedef struct hp_option {
    hp_opt_kind kind;
    char short_name;       /* 0 if none */
    const char *long_name; /* without the leading "--" */
    void *value;
    const char *arg_name;  /* "FILE", "N": for usage */
    const char *help;
} hp_option;

typedef struct hp_command_desc {
    const char *name;     /* "report" */
    const char *synopsis; /* "[options] [FILE]" */
    const char *summary;  /* one line */
    const char *details;  /* paragraphs after the options, or NULL */
} hp_command_desc;

enum { HP_PARSE_OK = 0, HP_PARSE_HELP = 1, HP_PARSE_ERROR = 2 };
enum { HP_PARSE_PERMUTE = 0, HP_PARSE_STOP_AT_POSITIONAL = 1 };

/* Parses argv[1..argc). Positional arguments are gathered into (*pos)[0..*npos): with
 * HP_PARSE_STOP_AT_POSITIONAL, the first positional and everything after it (after "--" too)
 * is positional; otherwise options and positionals may mix until "--". Returns HP_PARSE_*; on
 * HP_PARSE_HELP the usage has been printed to stdout. */
int hp_parse_options(const hp_command_desc *cmd, hp_option *opts, int argc, char **argv, int mode,
                     char ***pos, int *npos);
/* The usage: synopsis, summary, the options (help text wrapped at HP_USAGE_WIDTH columns, every
 * line after the first indented under the description column), then the details. */
void hp_print_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts);
#define HP_USAGE_WIDTH 100
/* What hp_print_usage renders from the same tables: the --help text (the default), a manual
 * page's roff (manpage.c) or the completion script's option lines (complete.c). Set only by
 * `hotprof help --man` / `--complete` (cmd_help.c), before it asks a command for its usage. */
enum { HP_USAGE_TEXT = 0, HP_USAGE_MAN = 1, HP_USAGE_COMPLETE = 2 };
void hp_set_usage_style(int style);
/* A decimal or 0x-hex number with nothing around it: 0, or -1 if text is not one. */
int hp_parse_u64(const char *text, uint64_t *out);
/* "hotprof CMD: message" + the hint line, on stderr; returns HP_PARSE_ERROR. */
int hp_usage_error(const hp_command_desc *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

/* options.c — the shared option parser and usage printer (see options.h). Long options match
 * exactly (no abbreviations, so adding an option never breaks a script). Positionals are moved to
 * the front of argv[1..] in their order, so the returned array aliases argv. */
#include "cli/options.h"
#include "cli/complete.h"
#include "cli/manpage.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int hp_usage_error(const hp_command_desc *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hotprof %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'hotprof help %s' for the options\n", cmd->name);
    return HP_PARSE_ERROR;
}

static hp_option *find_long(hp_option *opts, const char *name, size_t len)
{
    for (hp_option *o = opts; o->kind != HP_OPT_END; o++)
        if (o->long_name && strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0) return o;
    return NULL;
}

static hp_option *find_short(hp_option *opts, char c)
{
    for (hp_option *o = opts; o->kind != HP_OPT_END; o++)
        if (o->short_name == c) return o;
    return NULL;
}

static void option_label(const hp_option *o, char *buf, size_t n)
{
    if (o->long_name) snprintf(buf, n, "--%s", o->long_name);
    else snprintf(buf, n, "-%c", o->short_name);
}

static int store_value(const hp_command_desc *cmd, hp_option *o, const char *text)
{
    char label[64];
    option_label(o, label, sizeof label);
    if (o->kind == HP_OPT_STRING) {
        *(const char **)o->value = text;
        return HP_PARSE_OK;
    }
    if (o->kind == HP_OPT_LIST) {
        hp_opt_list *l = o->value;
        if (l->n == HP_OPT_LIST_MAX) return hp_usage_error(cmd, "at most %d %s options", HP_OPT_LIST_MAX, label);
        l->items[l->n++] = text;
        return HP_PARSE_OK;
    }
    if (hp_parse_u64(text, (uint64_t *)o->value))
        return hp_usage_error(cmd, "option '%s' wants a non-negative number, not '%s'", label, text);
    return HP_PARSE_OK;
}

int hp_parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (!text[0] || *end || errno || text[0] == '-' || text[0] == ' ') return -1;
    *out = v;
    return 0;
}

/* Handles one option word at argv[*i] (which starts with '-'); may consume argv[*i + 1]. */
static int parse_one(const hp_command_desc *cmd, hp_option *opts, int argc, char **argv, int *i)
{
    const char *word = argv[*i], *inline_value = NULL;
    hp_option *o;
    if (word[1] == '-') {
        const char *eq = strchr(word + 2, '=');
        size_t len = eq ? (size_t)(eq - (word + 2)) : strlen(word + 2);
        o = find_long(opts, word + 2, len);
        if (eq) inline_value = eq + 1;
    } else {
        o = find_short(opts, word[1]);
        if (o && word[2]) inline_value = word + 2;
    }
    if (!o) return hp_usage_error(cmd, "unknown option '%s'", word);
    char label[64];
    option_label(o, label, sizeof label);
    if (o->kind == HP_OPT_FLAG) {
        if (inline_value) return hp_usage_error(cmd, "option '%s' takes no value", label);
        *(int *)o->value = 1;
        return HP_PARSE_OK;
    }
    if (!inline_value) {
        if (*i + 1 >= argc) return hp_usage_error(cmd, "option '%s' needs a value (%s)", label, o->arg_name);
        inline_value = argv[++*i];
    }
    return store_value(cmd, o, inline_value);
}

int hp_parse_options(const hp_command_desc *cmd, hp_option *opts, int argc, char **argv, int mode,
                     char ***pos, int *npos)
{
    int n = 0, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            hp_print_usage(stdout, cmd, opts);
            return HP_PARSE_HELP;
        }
        if (a[0] != '-' || a[1] == 0) { /* positional ("-" alone is one too) */
            if (mode == HP_PARSE_STOP_AT_POSITIONAL) break;
            argv[1 + n++] = argv[i];
            continue;
        }
        int rc = parse_one(cmd, opts, argc, argv, &i);
        if (rc != HP_PARSE_OK) return rc;
    }
    for (; i < argc; i++) argv[1 + n++] = argv[i];
    *pos = argv + 1;
    *npos = n;
    return HP_PARSE_OK;
}

enum { LEFT_WIDTH = 28, DESC_COL = 2 + LEFT_WIDTH + 1 };

/* Prints text's words (spaces and newlines separate them) from column col, wrapping before
 * HP_USAGE_WIDTH; every further line starts at col. The cursor is at col on entry. */
static void print_wrapped(FILE *out, const char *text, int col)
{
    int at = col, line_empty = 1;
    for (const char *p = text + strspn(text, " \n"); *p; p += strspn(p, " \n")) {
        int n = (int)strcspn(p, " \n");
        if (!line_empty && at + 1 + n > HP_USAGE_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            at = col, line_empty = 1;
        }
        fprintf(out, "%s%.*s", line_empty ? "" : " ", n, p);
        at += n + !line_empty, line_empty = 0;
        p += n;
    }
    fputc('\n', out);
}

/* "-o, --output FILE", "    --seed N", "-q": the left column of one option. */
static void option_left(const hp_option *o, char *left, size_t n)
{
    const char *arg = o->kind == HP_OPT_FLAG ? "" : o->arg_name;
    if (o->short_name && o->long_name)
        snprintf(left, n, "-%c, --%s%s%s", o->short_name, o->long_name, *arg ? " " : "", arg);
    else if (o->long_name)
        snprintf(left, n, "    --%s%s%s", o->long_name, *arg ? " " : "", arg);
    else
        snprintf(left, n, "-%c%s%s", o->short_name, *arg ? " " : "", arg);
}

/* One option: its left column, then its help under the description column (on the next line
 * when the left column is wider than LEFT_WIDTH). */
static void print_option(FILE *out, const char *left, const char *help)
{
    if ((int)strlen(left) > LEFT_WIDTH) fprintf(out, "  %s\n%*s", left, DESC_COL, "");
    else fprintf(out, "  %-*s ", LEFT_WIDTH, left);
    print_wrapped(out, help, DESC_COL);
}

static int usage_style = HP_USAGE_TEXT; /* the one setting of the CLI: hp_set_usage_style */

void hp_set_usage_style(int style) { usage_style = style; }

void hp_print_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts)
{
    if (usage_style == HP_USAGE_MAN) return hp_man_usage(out, cmd, opts);
    if (usage_style == HP_USAGE_COMPLETE) return hp_complete_usage(out, cmd, opts);
    fprintf(out, "usage: hotprof %s %s\n\n%s\n", cmd->name, cmd->synopsis, cmd->summary);
    if (opts && opts->kind != HP_OPT_END) fputs("\noptions:\n", out);
    for (const hp_option *o = opts; o && o->kind != HP_OPT_END; o++) {
        char left[128];
        option_left(o, left, sizeof left);
        print_option(out, left, o->help);
    }
    print_option(out, "-h, --help", "show this help");
    if (cmd->details) fprintf(out, "\n%s", cmd->details);
}

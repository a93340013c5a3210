/* complete.c — the completion's word lists, rendered from the command and option tables (see
 * complete.h). A command that prints its own help (cc, c++) is read from that text: each
 * "--word" or "--word=VALUE" in it is an option. */
#include "cli/complete.h"
#include "cli/commands.h"
#include "cli/help_text.h"
#include "core/control/bursty.h"
#include "core/control/spec.h"
#include <stdlib.h>
#include <string.h>

#define CHOICE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-|"

/* The first word of text made of CHOICE_CHARS with a '|' in it ("text|json|folded"), its
 * alternatives printed space-separated; nothing if there is none. */
static void print_pipe_choices(FILE *out, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strspn(p, CHOICE_CHARS);
        if (n && memchr(p, '|', n)) {
            fputc(' ', out);
            for (size_t i = 0; i < n; i++) fputc(p[i] == '|' ? ' ' : p[i], out);
            return;
        }
        p += n ? n : 1;
    }
}

static void print_choices(FILE *out, const hp_option *o)
{
    if (o->arg_name && strncmp(o->arg_name, "TYPE:", 5) == 0) {
        for (int t = 0; hp_sample_word(t); t++) fprintf(out, " %s:", hp_sample_word(t));
        return;
    }
    print_pipe_choices(out, o->help);
}

static void complete_option(FILE *out, const char *name, const hp_option *o)
{
    const char *value = o->kind == HP_OPT_FLAG || !o->arg_name ? "-" : o->arg_name;
    fprintf(out, "%s %.*s", name, (int)strcspn(value, " "), value);
    if (o->kind != HP_OPT_FLAG) print_choices(out, o);
    fputc('\n', out);
}

static const char *args_kind(const char *synopsis)
{
    if (strstr(synopsis, "PROGRAM")) return "program";
    if (strstr(synopsis, "COMMAND")) return "command";
    return "profile";
}

void hp_complete_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts)
{
    fprintf(out, "@args %s\n", args_kind(cmd->synopsis));
    for (const hp_option *o = opts; o && o->kind != HP_OPT_END; o++) {
        char name[64];
        if (o->long_name) {
            snprintf(name, sizeof name, "--%s", o->long_name);
            complete_option(out, name, o);
        }
        if (o->short_name) {
            snprintf(name, sizeof name, "-%c", o->short_name);
            complete_option(out, name, o);
        }
    }
    fputs("--help -\n-h -\n", out);
}

enum { SEEN_MAX = 32, WORD_MAX = 48 };

/* Whether word is in seen[0..*n); if not, it is added (when there is room). */
static int seen_before(char seen[][WORD_MAX], int *n, const char *word)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(seen[i], word) == 0) return 1;
    if (*n < SEEN_MAX) snprintf(seen[(*n)++], WORD_MAX, "%s", word);
    return 0;
}

/* One "--word" (n letters after the dashes at p) of a help text, and its "=VALUE" if any:
 * "--hooks= SET" or "--calls= VALUE optimized source" (the form with '=' is the one it takes). */
static void complete_help_option(FILE *out, const char *p, size_t n)
{
    const char *value = p + 2 + n;
    if (*value != '=') {
        fprintf(out, "--%.*s -\n", (int)n, p + 2);
        return;
    }
    size_t vn = strspn(value + 1, CHOICE_CHARS);
    fprintf(out, "--%.*s= ", (int)n, p + 2);
    if (memchr(value + 1, '|', vn)) {
        fputs("VALUE ", out);
        for (size_t i = 0; i < vn; i++) fputc(value[1 + i] == '|' ? ' ' : value[1 + i], out);
    } else {
        fprintf(out, "%.*s", vn ? (int)vn : 5, vn ? value + 1 : "VALUE");
    }
    fputc('\n', out);
}

/* The options of a help text: each "--word" that starts a word, once, in order. */
static void complete_from_help_text(FILE *out, const char *text)
{
    char seen[SEEN_MAX][WORD_MAX];
    int nseen = 0;
    fputs("@args file\n", out);
    for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
        size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
        int starts_word = p == text || strchr(" [\n", p[-1]);
        char word[WORD_MAX];
        snprintf(word, sizeof word, "%.*s", (int)(n < WORD_MAX - 1 ? n : WORD_MAX - 1), p + 2);
        if (n == 0 || n >= WORD_MAX - 1 || !starts_word || seen_before(seen, &nseen, word)) continue;
        complete_help_option(out, p, n);
    }
    fputs("--help -\n-h -\n", out);
}

int hp_complete_list(FILE *out, const char *name)
{
    if (!name) {
        for (size_t i = 0; hp_command_at(i); i++) fprintf(out, "%s\n", hp_command_at(i)->name);
        return 0;
    }
    const hp_command *c = hp_find_command(name);
    if (!c) return hp_unknown_command(name);
    if (c->usage) {
        hp_set_usage_style(HP_USAGE_COMPLETE);
        c->usage(out);
        hp_set_usage_style(HP_USAGE_TEXT);
        return 0;
    }
    char *text = hp_capture_help(c);
    if (!text) return 1;
    complete_from_help_text(out, text);
    free(text);
    return 0;
}

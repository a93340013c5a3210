/* manpage.c — roff rendering of the command table and the option tables (see manpage.h). */
#include "cli/manpage.h"
#include "cli/commands.h"
#include "cli/help_text.h"
#include "hotprof/version.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The UTF-8 sequence at s[0..n) as groff's \[uXXXX]; returns the bytes it took (a broken
 * sequence: its first byte, as '?'). */
static size_t roff_utf8(FILE *out, const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    unsigned cp = len == 1 ? 0 : s[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if (i >= n || (s[i] & 0xC0) != 0x80) len = 1;
        else cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (len == 1) fputc('?', out);
    else fprintf(out, "\\[u%04X]", cp);
    return len;
}

/* Text of n bytes (no newline in it) with roff's specials escaped, non-ASCII as \[uXXXX]. */
static void roff_chars(FILE *out, const char *s, size_t n)
{
    if (n && (s[0] == '.' || s[0] == '\'')) fputs("\\&", out);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) i += roff_utf8(out, (const unsigned char *)s + i, n - i);
        else {
            if (c == '\\') fputs("\\e", out);
            else if (c == '-') fputs("\\-", out);
            else fputc(c, out);
            i++;
        }
    }
}

/* Multi-line text: each line escaped; an empty line starts a new paragraph. */
static void roff_text(FILE *out, const char *s)
{
    while (*s) {
        size_t n = strcspn(s, "\n");
        if (n == 0) fputs(".PP", out);
        else roff_chars(out, s, n);
        fputc('\n', out);
        s += n + (s[n] == '\n');
    }
}

static void roff_string(FILE *out, const char *s) { roff_chars(out, s, strlen(s)); }

static void man_option(FILE *out, const hp_option *o)
{
    fputs(".TP\n", out);
    if (o->short_name) fprintf(out, "\\fB\\-%c\\fR%s", o->short_name, o->long_name ? ", " : "");
    if (o->long_name) {
        fputs("\\fB\\-\\-", out);
        roff_string(out, o->long_name);
        fputs("\\fR", out);
    }
    if (o->kind != HP_OPT_FLAG && o->arg_name) {
        fputs(" \\fI", out);
        roff_string(out, o->arg_name);
        fputs("\\fR", out);
    }
    fputc('\n', out);
    roff_text(out, o->help);
}

void hp_man_usage(FILE *out, const hp_command_desc *cmd, const hp_option *opts)
{
    fputs(".SH SYNOPSIS\n.B hotprof ", out);
    roff_string(out, cmd->name);
    fputc('\n', out);
    roff_text(out, cmd->synopsis);
    fputs(".SH DESCRIPTION\n", out);
    roff_text(out, cmd->summary);
    if (cmd->details) {
        fputs(".PP\n", out);
        roff_text(out, cmd->details);
    }
    fputs(".SH OPTIONS\n", out);
    for (const hp_option *o = opts; o && o->kind != HP_OPT_END; o++) man_option(out, o);
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow this help\n", out);
}

/* ".TH HOTPROF-RUN 1 ..." and NAME. */
static void man_head(FILE *out, const char *name, const char *summary)
{
    fputs(".TH HOTPROF", out);
    if (name) fputc('-', out);
    for (const char *p = name; p && *p; p++) fputc(toupper((unsigned char)*p), out);
    fprintf(out, " 1 \"\" \"hotprof %s\" \"hotprof manual\"\n.SH NAME\nhotprof", HOTPROF_VERSION);
    if (name) {
        fputs("\\-", out);
        roff_string(out, name);
    }
    fputs(" \\- ", out);
    roff_string(out, summary);
    fputc('\n', out);
}

/* A command that prints its own help: that text, verbatim. */
static int man_from_help_text(FILE *out, const hp_command *c)
{
    char *text = hp_capture_help(c);
    if (!text) return 1;
    fputs(".SH DESCRIPTION\n.nf\n", out);
    roff_text(out, text);
    fputs(".fi\n.SH OPTIONS\n.TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow this help\n", out);
    free(text);
    return 0;
}

static void man_overview(FILE *out)
{
    man_head(out, NULL, "find what is hot in a native C/C++ program");
    fputs(".SH SYNOPSIS\n.B hotprof\n[\\-\\-help] [\\-\\-version] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
          ".SH DESCRIPTION\nhotprof finds what is hot in a native C/C++ program: methods, call pairs,\n"
          "basic blocks and edges, counted exhaustively or sampled in bursts.\n"
          "Build the program with \\fBhotprof cc\\fR, run it with \\fBhotprof run\\fR, read the\n"
          "profile with \\fBhotprof report\\fR.\n.SH COMMANDS\n", out);
    for (size_t i = 0; hp_command_at(i); i++) {
        const hp_command *c = hp_command_at(i);
        fputs(".TP\n.BR hotprof\\-", out);
        roff_string(out, c->name);
        fputs(" (1)\n", out);
        roff_string(out, c->summary);
        fputc('\n', out);
    }
}

int hp_man_page(FILE *out, const char *name)
{
    if (!name) {
        man_overview(out);
        return 0;
    }
    const hp_command *c = hp_find_command(name);
    if (!c) return hp_unknown_command(name);
    man_head(out, c->name, c->summary);
    if (!c->usage) return man_from_help_text(out, c);
    hp_set_usage_style(HP_USAGE_MAN);
    c->usage(out);
    hp_set_usage_style(HP_USAGE_TEXT);
    return 0;
}

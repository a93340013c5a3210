/* cmd_help.c — `hotprof help [--man | --complete] [COMMAND]`: the main usage, or one command's
 * help (from its usage function, or by running it with --help when it prints its own: cc, c++).
 * --man prints the manual page as roff instead (manpage.c; `make` writes build/man/ with it),
 * --complete the words the bash completion offers (complete.c); both render the same tables as
 * --help, so the manual and the completion cannot drift from the help text.
 */
#include "cli/commands.h"
#include "cli/complete.h"
#include "cli/manpage.h"

static const hp_command_desc help_desc = {
    "help", "[--man | --complete] [COMMAND]",
    "Show the help of COMMAND (the list of commands without one).",
    "--man prints the manual page hotprof-COMMAND(1) (hotprof(1) without COMMAND) as roff, as\n"
    "'make' installs it; --complete prints what the bash completion offers: the command names,\n"
    "or COMMAND's options, one per line with its value's name (or '-') and the values it takes.\n"};

typedef struct help_args {
    int man, complete;
} help_args;

static void init_options(hp_option *opts, help_args *a)
{
    hp_option table[] = {
        {HP_OPT_FLAG, 0, "man", &a->man, NULL, "print the manual page of COMMAND (or of hotprof) as roff"},
        {HP_OPT_FLAG, 0, "complete", &a->complete, NULL,
         "print the command names, or COMMAND's options, for shell completion"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_help_usage(FILE *out)
{
    help_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &help_desc, opts);
}

static int command_help(const char *name)
{
    const hp_command *c = hp_find_command(name);
    if (!c) return hp_unknown_command(name);
    if (c->usage) {
        c->usage(stdout);
        return 0;
    }
    char *help_argv[] = {(char *)c->name, "--help", NULL};
    return c->run(2, help_argv);
}

int cmd_help(int argc, char **argv)
{
    help_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&help_desc, opts, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos > 1) return hp_usage_error(&help_desc, "one command at a time (got '%s' and '%s')", pos[0], pos[1]);
    if (a.man && a.complete) return hp_usage_error(&help_desc, "--man or --complete, not both");
    const char *name = npos ? pos[0] : NULL;
    if (a.man || a.complete) {
        rc = a.man ? hp_man_page(stdout, name) : hp_complete_list(stdout, name);
        if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
            fprintf(stderr, "hotprof help: cannot write the %s (disk full or closed pipe?)\n",
                    a.man ? "manual page" : "completion words");
            return 1;
        }
        return rc;
    }
    if (!name) {
        hp_print_main_usage(stdout);
        return 0;
    }
    return command_help(name);
}

/* cmd_help.c — `hotprof help [COMMAND]`: the main usage, or one command's help (from its usage
 * function, or by running it with --help when it prints its own: cc, c++). */
#include "cli/commands.h"

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        hp_print_main_usage(stdout);
        return 0;
    }
    const hp_command *c = hp_find_command(argv[1]);
    if (!c) return hp_unknown_command(argv[1]);
    if (c->usage) {
        c->usage(stdout);
        return 0;
    }
    if (c->run == cmd_help) {
        hp_print_main_usage(stdout);
        return 0;
    }
    char *help_argv[] = {(char *)c->name, "--help", NULL};
    return c->run(2, help_argv);
}

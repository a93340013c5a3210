/* help_text.c — runs a command with --help while its stdout is a temporary file, and reads the
 * file back (see help_text.h). */
#include "cli/help_text.h"
#include <stdlib.h>
#include <unistd.h>

static char *read_all(FILE *f)
{
    long n = ftell(f);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!text) return NULL;
    rewind(f);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = 0;
    return text;
}

char *hp_capture_help(const hp_command *c)
{
    FILE *tmp = tmpfile();
    int saved = dup(STDOUT_FILENO);
    char *text = NULL;
    if (tmp && saved >= 0 && fflush(stdout) == 0 && dup2(fileno(tmp), STDOUT_FILENO) >= 0) {
        char *help_argv[] = {(char *)c->name, "--help", NULL};
        int rc = c->run(2, help_argv);
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        if (rc == 0 && fseek(tmp, 0, SEEK_END) == 0) text = read_all(tmp);
    }
    if (saved >= 0) close(saved);
    if (tmp) fclose(tmp);
    if (!text) fprintf(stderr, "hotprof: cannot capture the help of '%s'\n", c->name);
    return text;
}

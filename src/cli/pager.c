/* pager.c — colour decision and the pager process for text on a terminal (see pager.h). The pager
 * is `sh -c COMMAND` reading a pipe that replaces fd 1; hp_term_finish closes it and waits.
 */
#define _GNU_SOURCE
#include "cli/pager.h"
#include "cli/find_program.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_PAGER "less -FRX"

int hp_term_check(const hp_term_args *a, char *msg, size_t len)
{
    if (!a->color || !strcmp(a->color, "auto") || !strcmp(a->color, "always") || !strcmp(a->color, "never"))
        return 0;
    snprintf(msg, len, "unknown --color '%s' (auto, always, never)", a->color);
    return -1;
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && v[0];
}

static int want_color(const hp_term_args *a, int to_stdout)
{
    if (!to_stdout || a->stdio || (a->color && !strcmp(a->color, "never"))) return 0;
    if (a->color && !strcmp(a->color, "always")) return 1;
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !env_set("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

/* The pager command, or NULL for none. */
static const char *pager_command(void)
{
    const char *cmd = getenv("HOTPROF_PAGER");
    if (!cmd) cmd = getenv("PAGER");
    if (!cmd) cmd = DEFAULT_PAGER;
    cmd += strspn(cmd, " \t");
    return !cmd[0] || !strcmp(cmd, "cat") ? NULL : cmd;
}

/* 1 if the first word of cmd names an executable (as a path, or found in PATH). */
static int command_exists(const char *cmd)
{
    char word[256], path[4400];
    size_t n = strcspn(cmd, " \t");
    if (n >= sizeof word) return 1; /* let the shell judge */
    memcpy(word, cmd, n);
    word[n] = 0;
    return hp_find_program(word, NULL, path, sizeof path) == 0;
}

static pid_t start_pager(const char *cmd)
{
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[0], STDIN_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    if (pid < 0 || dup2(fd[1], STDOUT_FILENO) < 0) {
        close(fd[1]);
        return -1;
    }
    close(fd[1]);
    return pid;
}

void hp_term_start(hp_term *t, const hp_term_args *a, int to_stdout)
{
    t->color = want_color(a, to_stdout);
    t->pager = 0;
    const char *cmd = pager_command();
    if (!to_stdout || a->stdio || a->no_pager || !cmd || !isatty(STDOUT_FILENO)) return;
    if (!command_exists(cmd)) {
        fprintf(stderr, "hotprof: warning: pager '%s' not found; writing to the terminal (PAGER=cat or --no-pager "
                        "turn paging off)\n", cmd);
        return;
    }
    t->pager = start_pager(cmd);
    if (t->pager < 0) {
        fprintf(stderr, "hotprof: warning: cannot start the pager '%s'; writing to the terminal\n", cmd);
        t->pager = 0;
    }
}

void hp_term_finish(hp_term *t)
{
    if (t->pager <= 0) return;
    fflush(stdout);
    fclose(stdout);
    while (waitpid(t->pager, NULL, 0) < 0 && errno == EINTR) {
    }
    t->pager = 0;
}

int hp_term_stdout_is_terminal(void)
{
    return isatty(STDOUT_FILENO);
}

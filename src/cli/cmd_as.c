/* cmd_as.c — the assembler front of `hotprof cc --dual-latch=branch` (docs/dual.md "The latch's
 * branch as the site"). `make` links <lib>/hotprof-as/as to the hotprof binary; `hotprof cc` then
 * gives clang -fno-integrated-as -B<lib>/hotprof-as/, so clang runs this in place of `as` on the
 * assembly it wrote. It rewrites that file (analysis/latch_asm.h) into a temporary one next to it
 * ($TMPDIR, else /tmp), runs the real assembler on it with the same arguments, removes it, and
 * exits with the assembler's status.
 *
 * The real assembler: $HOTPROF_AS, else the first `as` on PATH that is not in this program's own
 * directory. An argument list without one input ending in .s (stdin, several inputs) is passed on
 * unchanged. $HOTPROF_AS_STATS=1 prints one line of counts (sites, branches, pads) to stderr;
 * $HOTPROF_AS_LATCH_PADS=off writes no latch pads (count mode then takes trampolines: a measurement's
 * other arm).
 * Not a user command: it is not in `hotprof --help`.
 */
#define _GNU_SOURCE
#include "analysis/latch_asm.h"
#include "cli/find_program.h"
#include "cli/commands.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The index of the one argument that is an input file ending in .s, or -1. */
static int asm_input(int argc, char **argv)
{
    int found = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strlen(a);
        if (!strcmp(a, "-o") || !strcmp(a, "-I") || !strcmp(a, "--defsym")) {
            i++;
            continue;
        }
        if (a[0] == '-' || n < 3 || strcmp(a + n - 2, ".s")) continue;
        if (found >= 0) return -1;
        found = i;
    }
    return found;
}

/* The real assembler: $HOTPROF_AS, or `as` on PATH outside self_dir. 0; -1 none on PATH; -2 a
 * HOTPROF_AS that is no executable (said here). */
static int real_as(const char *self_dir, char *out, size_t cap)
{
    const char *env = getenv("HOTPROF_AS");
    if (!env || !*env) return hp_find_program("as", self_dir, out, cap);
    if (snprintf(out, cap, "%s", env) < (int)cap && access(out, X_OK) == 0) return 0;
    fprintf(stderr, "hotprof as: HOTPROF_AS=%s is not an executable file\n", env);
    return -2;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) free(buf), buf = NULL, errno = EIO;
    *len = n;
    return buf;
}

/* Rewrites input into a new temporary file (its name in tmp). 0, or -1 with a message said. */
static int rewrite_to_temp(const char *input, char *tmp, size_t cap)
{
    size_t len;
    char *text = read_all(input, &len);
    if (!text) return fprintf(stderr, "hotprof as: cannot read %s: %s\n", input, strerror(errno)), -1;
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, cap, "%s/hotprof-as-XXXXXX.s", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(tmp, 2);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    hp_latch_asm_stats st;
    const char *pads = getenv("HOTPROF_AS_LATCH_PADS");
    int rc = out ? hp_latch_asm_rewrite(text, len, out, !(pads && !strcmp(pads, "off")), &st) : -1;
    if (out && fclose(out) != 0) rc = -1;
    else if (!out && fd >= 0) close(fd);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "hotprof as: cannot write %s: %s\n", tmp, strerror(errno ? errno : EIO));
        if (fd >= 0) unlink(tmp);
        return -1;
    }
    const char *stats = getenv("HOTPROF_AS_STATS");
    if (stats && !strcmp(stats, "1"))
        fprintf(stderr,
                "hotprof as: %s: %zu back-edge sites, %zu reached by %zu rewritten branches, %zu labels added, %zu latch pads\n",
                input, st.sites, st.targeted, st.branches, st.conts_made, st.pads);
    return 0;
}

static int run_wait(char *const *argv)
{
    pid_t pid = fork();
    if (pid < 0) return fprintf(stderr, "hotprof as: cannot fork: %s\n", strerror(errno)), 1;
    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "hotprof as: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return fprintf(stderr, "hotprof as: %s\n", strerror(errno)), 1;
    /* (not 127, exec's failure above, which clang takes for "could not run the assembler": it then
     * reports a crash and writes reproducer files) */
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return rc == 127 ? 1 : rc;
}

int cmd_as(int argc, char **argv)
{
    static char as[PATH_MAX], self_dir[PATH_MAX], tmp[PATH_MAX];
    snprintf(self_dir, sizeof self_dir, "%s", argv[0]);
    int found = real_as(strchr(argv[0], '/') ? dirname(self_dir) : ".", as, sizeof as);
    if (found == -1) fprintf(stderr, "hotprof as: no assembler 'as' on PATH (install binutils, or set HOTPROF_AS)\n");
    if (found != 0) return 1;
    argv[0] = as;
    int in = asm_input(argc, argv);
    if (in < 0) return execv(as, argv), fprintf(stderr, "hotprof as: cannot run %s: %s\n", as, strerror(errno)), 1;
    if (rewrite_to_temp(argv[in], tmp, sizeof tmp) != 0) return 1;
    argv[in] = tmp;
    int rc = run_wait(argv);
    unlink(tmp);
    return rc;
}

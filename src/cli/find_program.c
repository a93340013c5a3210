/* find_program.c — PATH search (find_program.h). No state. */
#define _GNU_SOURCE
#include "cli/find_program.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 if the directory of `len` bytes at dir is skip (its realpath, "" for none). */
static int is_skipped(const char *dir, size_t len, const char *skip)
{
    char d[PATH_MAX], real[PATH_MAX];
    if (!*skip || snprintf(d, sizeof d, "%.*s", (int)(len ? len : 1), len ? dir : ".") >= (int)sizeof d) return 0;
    return realpath(d, real) && strcmp(real, skip) == 0;
}

int hp_find_program(const char *prog, const char *skip_dir, char *out, size_t cap)
{
    if (strchr(prog, '/')) return snprintf(out, cap, "%s", prog) < (int)cap && access(out, X_OK) == 0 ? 0 : -1;
    char skip[PATH_MAX] = "";
    if (skip_dir && !realpath(skip_dir, skip)) skip[0] = 0;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t n = strcspn(p, ":");
        if (snprintf(out, cap, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", prog) < (int)cap && access(out, X_OK) == 0 &&
            !is_skipped(p, n, skip))
            return 0;
        if (!p[n]) return -1;
        p += n + 1;
    }
}

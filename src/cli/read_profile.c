/* read_profile.c — a profile read for a command, errors and warnings on stderr (read_profile.h). */
#include "cli/read_profile.h"
#include <stdio.h>

hp_profile *hp_cli_read_profile(const char *path)
{
    char err[512];
    hp_profile *p = hp_profile_read_file(path, err, sizeof err);
    if (!p) {
        fprintf(stderr, "hotprof: %s\n", err);
        return NULL;
    }
    for (size_t i = 0; i < p->nwarnings; i++) fprintf(stderr, "hotprof: warning: %s\n", p->warnings[i]);
    return p;
}

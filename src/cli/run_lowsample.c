/* cli/run_lowsample.c — the low-sample warning at the end of `hotprof run` (run_lowsample.h).
 * The profile is read once more after the program ended; an unreadable profile prints nothing
 * here (finish() in cmd_run.c already says whether one was written).
 */
#include "cli/run_lowsample.h"
#include "analysis/lowsample.h"
#include "analysis/profile.h"
#include <stdio.h>

void hp_run_low_sample_note(const char *path)
{
    char err[256], msg[256];
    hp_profile *p = hp_profile_read_file(path, err, sizeof err);
    if (!p) return;
    if (hp_low_sample_warning(p, msg, sizeof msg))
        fprintf(stderr, "hotprof: warning: %s: %s; %s\n", path, msg, HP_LOW_SAMPLE_HINT);
    hp_profile_free(p);
}

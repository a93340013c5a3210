/* analysis/lowsample.c — the low-sample warning of sampled profiles (lowsample.h). Reads only
 * INFO keys, so it holds for every sampling mode, old and new; one sentence, no newline, so that
 * callers put it on a line of their own (report header, JSON "warnings", `hotprof run`'s end).
 */
#include "analysis/lowsample.h"
#include "core/control/spec.h"
#include "core/format/info_keys.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t info_u64(const hp_profile *p, const char *key)
{
    const char *v = hp_profile_info(p, key);
    return v ? strtoull(v, NULL, 10) : 0;
}

/* A mode other than the known sampled ones is sampled when it records "<mode>.sampled_entries". */
static int mode_is_sampled(const hp_profile *p, const char *mode)
{
    if (!strcmp(mode, HP_MODE_BURSTY) || !strcmp(mode, HP_MODE_PATCH) || !strcmp(mode, HP_MODE_XRAY)) return 1;
    if (!strcmp(mode, HP_MODE_EXHAUSTIVE) || !strcmp(mode, HP_MODE_TIMER) || !strcmp(mode, HP_MODE_SHADOW)) return 0;
    char key[64];
    snprintf(key, sizeof key, "%s.sampled_entries", mode);
    return hp_profile_info(p, key) != NULL;
}

/* The profile says which HPS types were on (INFO sample.<type>.enabled) and none was: e.g.
 * `--sample subpath` alone, whose samples the subpath section accounts for (its calls and
 * back-edges are not samples of anything). Profiles that do not say are taken as on. */
static int says_no_hps_type_on(const hp_profile *p)
{
    int said = 0;
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        char key[64];
        snprintf(key, sizeof key, HP_INFO_SAMPLE_PREFIX "%s" HP_INFO_ENABLED_SUFFIX, hp_sample_type_name(t));
        const char *v = hp_profile_info(p, key);
        if (v && strcmp(v, "0")) return 0;
        said |= v != NULL;
    }
    return said;
}

/* The datastream type was on: its samples are the loads and stores its bursts recorded. */
static int datastream_on(const hp_profile *p)
{
    const char *v = hp_profile_info(p, HP_INFO_SAMPLE_PREFIX "datastream" HP_INFO_ENABLED_SUFFIX);
    return v && strcmp(v, "0");
}

int hp_profile_samples(const hp_profile *p, uint64_t *samples)
{
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    *samples = 0;
    if (!mode || !mode_is_sampled(p, mode) || says_no_hps_type_on(p)) return 0;
    *samples = info_u64(p, HP_INFO_TOTAL_CALLS) + info_u64(p, HP_INFO_TOTAL_BACKEDGES);
    if (datastream_on(p)) *samples += info_u64(p, HP_INFO_TOTAL_LOADS) + info_u64(p, HP_INFO_TOTAL_STORES);
    return 1;
}

int hp_low_sample_warning(const hp_profile *p, char *buf, size_t len)
{
    uint64_t n;
    buf[0] = '\0';
    if (!hp_profile_samples(p, &n) || n >= HP_MIN_MEANINGFUL_SAMPLES) return 0;
    snprintf(buf, len, "only %llu samples (< %d %s recorded): estimates are not meaningful", (unsigned long long)n,
             HP_MIN_MEANINGFUL_SAMPLES, datastream_on(p) ? "events + data references" : "calls + back-edges");
    return 1;
}

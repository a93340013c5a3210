/* cli/run_lowsample.h — `hotprof run`'s last line for a sampled run that recorded too few samples
 * (analysis/lowsample.h): one warning on stderr naming the profile, nothing otherwise.
 */
#ifndef HOTPROF_CLI_RUN_LOWSAMPLE_H
#define HOTPROF_CLI_RUN_LOWSAMPLE_H

/* Reads the profile at path (silently nothing if it cannot be read) and warns when it is a
 * sampled profile with fewer than HP_MIN_MEANINGFUL_SAMPLES samples. */
void hp_run_low_sample_note(const char *path);

#endif

/* hotprof.h — the public API of libhotprof_rt, for programs built with `hotprof cc`.
 *
 * Most programs need nothing from here: the compiler hooks record everything and the profile
 * is written at exit (or on a fatal signal). Call these only to control the runtime online.
 * Settings come from the environment (HOTPROF_OUTPUT, HOTPROF_MODE, HOTPROF_SEED, HOTPROF_QUIET,
 * HOTPROF_FOLLOW_FORK); see docs/runtime.md.
 *
 * Both functions are thread-safe. hotprof_flush is not async-signal-safe (it refreshes the
 * module list through dl_iterate_phdr); hotprof_version is.
 */
#ifndef HOTPROF_HOTPROF_H
#define HOTPROF_HOTPROF_H
#include "hotprof/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append a snapshot group to the profile: every count recorded so far in every thread
 * (cumulative, not a delta); the reader uses the last complete group, so a later group or the
 * final one supersedes it. Returns 0 on success, -1 if the process is not recording (HOTPROF_MODE
 * =off, output not writable, final group already written, forked child) or the write failed.
 * Blocks up to ~3 s while another thread writes a group. */
int hotprof_flush(void);

/* The runtime's version string (HOTPROF_VERSION of the library actually linked). */
const char *hotprof_version(void);

#ifdef __cplusplus
}
#endif
#endif

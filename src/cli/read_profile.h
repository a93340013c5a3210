/* read_profile.h — how a command opens a profile for reading: the reader's error becomes one
 * "hotprof: ..." line on stderr, and its warnings follow, so every command reports bad input the
 * same way. Used by compare and diff (which read two profiles and print nothing else first).
 */
#ifndef HOTPROF_CLI_READ_PROFILE_H
#define HOTPROF_CLI_READ_PROFILE_H
#include "analysis/profile.h"

/* The profile at path, its warnings printed; NULL after one message on stderr. */
hp_profile *hp_cli_read_profile(const char *path);

#endif

/* modules.h — the cumulative list of loaded modules, encoded as the MODULES payload (modules.c).
 * Async-signal-safety: hp_modules_payload and hp_main_exe_path only.
 */
#ifndef HOTPROF_RUNTIME_MODULES_H
#define HOTPROF_RUNTIME_MODULES_H
#include <stddef.h>
#include <stdint.h>

/* Rebuild the cumulative module list (every module seen so far). Not signal-safe. */
void hp_modules_refresh(void);
/* The encoded MODULES payload of the last refresh (async-signal-safe). */
const uint8_t *hp_modules_payload(size_t *len);
void hp_modules_lock_reset(void); /* fork child only */
void hp_main_exe_path(char *out, size_t cap);

#endif

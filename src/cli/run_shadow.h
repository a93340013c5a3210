/* run_shadow.h — `hotprof run --mode shadow` (docs/shadow.md): its options (--load,
 * --sample-size, --shadow-signal), checked with the runtime's own grammar
 * (core/control/shadow_spec.h) into HOTPROF_SHADOW; the program checked before it starts (an ELF
 * that defines the hotprof cc hooks: __cyg_profile_func_enter or __sanitizer_cov_trace_pc_guard);
 * after the run, the shadows' profiles (<output>.shadows/shadow.<n>) merged into the output with
 * `hotprof merge`'s engine, the parent's shadow.* INFO lines kept, and the directory removed.
 */
#ifndef HOTPROF_CLI_RUN_SHADOW_H
#define HOTPROF_CLI_RUN_SHADOW_H
#include "cli/options.h"

typedef struct hp_run_shadow {
    const char *load, *sample_size, *signal; /* the options as given, NULL if not */
    const char *slice;                       /* --shadow-slice MS, NULL if not */
    char spec[128];                          /* HOTPROF_SHADOW, canonical (after resolve) */
} hp_run_shadow;

/* Checks the options (they need --mode shadow) and builds spec. 0, or HP_PARSE_ERROR after one message. */
int hp_run_shadow_resolve(const hp_command_desc *d, hp_run_shadow *s, int shadow_mode);
/* Before the program starts: finds it, checks it has hotprof's hooks, clears a stale
 * <output>.shadows, sets HOTPROF_SHADOW. 0; or an exit status after one message (2: not built
 * with hotprof, 127: not found, 1: other). */
int hp_run_shadow_prepare(const hp_run_shadow *s, const char *program, const char *output);
/* After the run: merges the profiles of <output>.shadows into output (keeping the parent's shadow.* lines) and
 * removes the directory. 0, or 1 after one message. */
int hp_run_shadow_finish(const char *output, int quiet);

#endif

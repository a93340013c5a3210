/* run_timer.h — `hotprof run --mode timer` (docs/timer.md): its options, checked with the runtime's
 * own grammar (core/control/timer_spec.h) into HOTPROF_TIMER; the program checked before it starts
 * (it exists, it is a dynamically linked ELF or a #! script: LD_PRELOAD cannot reach a static
 * binary); LD_PRELOAD set to the runtime next to this hotprof (../lib/libhotprof_rt.so from its
 * bin/); and after the run, the line that says what was sampled and what it cost, read from the
 * profile's INFO (timer.samples, timer.handler_ns, values.ns, timer.cpu_ns).
 */
#ifndef HOTPROF_CLI_RUN_TIMER_H
#define HOTPROF_CLI_RUN_TIMER_H
#include <stddef.h>
#include "cli/options.h"

typedef struct hp_run_timer {
    const char *freq, *values, *engine, *debias, *signal, *depth, *clock; /* as given, NULL if not */
    const char *module;                                         /* --module FILE.so, NULL if not */
    char spec[256];                                             /* HOTPROF_TIMER, canonical */
    char module_path[4096];                                     /* HOTPROF_VALUE_MODULE (absolute), "" */
} hp_run_timer;

/* Checks the timer options against the mode: given without --mode timer is a usage error. In
 * timer mode, each is parsed into t->spec. 0, or HP_PARSE_ERROR after the message. */
int hp_run_timer_resolve(const hp_command_desc *d, hp_run_timer *t, int timer_mode);
/* Before the program starts: finds it (PATH), checks it can be preloaded, sets LD_PRELOAD and
 * HOTPROF_TIMER (and HOTPROF_VALUE_MODULE with --module). 0; or an exit status (2: static binary, 127: not found, 1: no runtime) after
 * one message. */
int hp_run_timer_prepare(const hp_run_timer *t, const char *program);
/* After the run: "hotprof: wrote PATH: N samples ..., overhead X%" on stderr, from the profile. */
void hp_run_timer_summary(const char *path);

#endif

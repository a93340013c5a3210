/* shadow.h — shadow profiling (HOTPROF_MODE=shadow, docs/shadow.md): the program runs at full
 * speed with every hook call site patched off (sites.c, no windows ever), and a monitor forks
 * copy-on-write shadows of it that turn the hooks back on in their own text, record exhaustively
 * for `sample` events under a seccomp filter that keeps them from touching the world, write
 * their profile to <output>.shadows/<n> and exit.
 *
 * Files: shadow.c (the monitor: parent side, timer signal, clone, reaper thread, INFO),
 * shadow_child.c (a shadow's setup and end), shadow_sys.c (the SIGSYS handler: emulation and
 * private read offsets), shadow_policy.c (the system-call policy table, pure), shadow_filter.c
 * (the seccomp program, built in the parent at init with libseccomp, dlopen'ed), shadow_rate.c (a
 * shadow's native event rate: count mode's trampolines, for the coverage estimate).
 *
 * Interface with init (the level above): init hands the probe the settings and callbacks it
 * needs (the layering forbids ctl/ to call the writer or init), and calls hp_shadow_exit from
 * its destructor. The writer calls hp_shadow_info for the group INFO lines.
 * Async-signal-safety: hp_shadow_info, hp_shadow_in_child and hp_shadow_child_end are; probe,
 * start and exit are init/exit-time only.
 */
#ifndef HOTPROF_RUNTIME_CTL_SHADOW_H
#define HOTPROF_RUNTIME_CTL_SHADOW_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/shadow_spec.h"

/* What a shadow asks of init (async-signal-safe, called in the shadow before its filter). */
typedef struct hp_shadow_ops {
    /* Opens the shadow's profile <output>.shadows/<n> at descriptor `fd` (dup2'd there) and
     * writes its header, INFO and MODULES. 0, or -1 (the shadow then ends at once). */
    int (*open_output)(uint64_t n, int fd);
    void (*write_final)(void); /* writes the final group of the shadow's profile */
} hp_shadow_ops;

/* Init, before the output is opened: checks that shadows can run here (sites patchable,
 * libseccomp, the signal free), creates <output_dir> and builds the filter. 0, or -1 with one
 * sentence in err (then the program runs unprofiled). */
int hp_shadow_probe(const hp_shadow_spec *spec, const char *output_dir, const hp_shadow_ops *ops, uint64_t seed,
                    int quiet, char *err, size_t errlen);
/* Init, output open: the monitor's timer and its reaper thread. */
void hp_shadow_start(void);
/* Exit (the destructor, parent): stop forking, wait a bounded time for live shadows, reap them.
 * In a shadow: end it (write its profile, exit). */
void hp_shadow_exit(void);
int hp_shadow_in_child(void); /* 1 in a shadow */
/* "shadow.*" INFO lines of this process (parent: sums over shadows; shadow: its own). */
size_t hp_shadow_info(char *out, size_t cap);

#endif

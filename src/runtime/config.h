/* config.h — every HOTPROF_* variable the runtime reads, read ONCE (at init) into one struct that
 * is passed down: init keeps it, and hands ctl/sites.c, ctl/xray.c and ctl/bursts.c the fields
 * they need. No other runtime file calls getenv.
 *
 * Each value is parsed with core/control/spec.h, the one grammar shared with `hotprof run`, so the
 * runtime accepts and rejects exactly what the CLI does. What a bad value does is unchanged from
 * before, except for the seed (issue 8, defect 8):
 *   HOTPROF_SAMPLE, HOTPROF_SEED  bad: `error` holds one message; init says it (even when quiet)
 *                                 and does not profile (the program runs normally).
 *   HOTPROF_MODE                  unknown: exhaustive, and `mode_unknown` names it (a warning).
 *   HOTPROF_BURSTS                unknown: auto, and `bursts_unknown` is set (ctl/sites.c warns).
 *   HOTPROF_WINDOW                out of range or not a number: the default, silently.
 *   HOTPROF_QUIET, HOTPROF_FOLLOW_FORK  "" or "0": off; anything else: on.
 *   HOTPROF_LIVE                  "0": no live segment for `hotprof top` (live.c); else on.
 *   HOTPROF_XRAY                  "0": never, "1": required, anything else: when present.
 *   HOTPROF_RUN_FD                "<fd>:<inode>"; anything else: ignored (run_fd -1).
 *   HOTPROF_INTERVALS             interval profiles (hp_iv_spec_parse; `hotprof run --sample
 *                                 value:summary=multihash,...`): bad -> `error`, not profiling.
 *   HOTPROF_PATHVAL               path and value profiles (core/control/pathval_spec.h; `hotprof run
 *                                 --sample path` / `value:summary=tnv|gm`): bad -> `error`, not profiling.
 *   HOTPROF_TIMER                 timer mode's settings (core/control/timer_spec.h), read only when
 *                                 HOTPROF_MODE=timer: bad -> `error`, not profiling.
 *   HOTPROF_VALUE_MODULE          timer mode with values: a customization module's path
 *                                 (include/hotprof/module.h), into timer.module; loaded by ctl/interp_mod.c.
 *   HOTPROF_SHADOW                shadow mode's settings (core/control/shadow_spec.h), read only when
 *                                 HOTPROF_MODE=shadow: bad -> `error`, not profiling.
 *   HOTPROF_TRACE, _TRACE_KIND, _TRACE_LIMIT  the raw trace file `hotprof run --record-trace`
 *                                 reads back (pt/trace.h); kind values|edges|calls (else: edges if
 *                                 blocks are compiled in, else calls); limit: bad -> the default.
 *   HOTPROF_TRACE_PID             set by the image that traces: the pid whose images trace (an
 *                                 exec'd image of that process appends to the same raw trace; any
 *                                 other process does not trace). Not a number: matches no process.
 *
 * The parse is a pure function over a getenv-like callback (hp_rt_config_parse) so that unit
 * tests run it on an array of "NAME=value" strings (hp_rt_config_from_envp) without the runtime's
 * constructor. The struct's strings point into the environment (or the caller's array).
 *
 * Async-signal-safety: none needed (init only); no allocation (snprintf into `error`).
 */
#ifndef HOTPROF_RUNTIME_CONFIG_H
#define HOTPROF_RUNTIME_CONFIG_H
#include <stdint.h>
#include "core/control/bursty.h"
#include "core/control/pathval_spec.h"
#include "core/control/osp.h"
#include "core/control/spec.h"
#include "core/control/timer_spec.h"
#include "core/control/shadow_spec.h"

#define HP_TRACE_DEFAULT_LIMIT 100000000ull /* --trace-limit default (cli/cmd_run.c says the same) */

enum { HP_XRAY_WISH_NEVER = 0, HP_XRAY_WISH_REQUIRED = 1, HP_XRAY_WISH_AUTO = 2 };

typedef struct hp_rt_config {
    int mode;                 /* enum hp_run_mode (HOTPROF_MODE; unset: bursty iff HOTPROF_SAMPLE is set) */
    const char *mode_unknown; /* the HOTPROF_MODE text if it was not a mode (then mode is exhaustive) */
    int quiet;                /* HOTPROF_QUIET */
    int follow_fork;          /* HOTPROF_FOLLOW_FORK */
    int live;                 /* HOTPROF_LIVE (default 1): publish the live segment (live.c) */
    const char *output;       /* HOTPROF_OUTPUT template (%p: pid, %%: %), default HP_SPEC_DEFAULT_OUTPUT */
    int seed_given;           /* HOTPROF_SEED set and valid: seed holds it (else init draws one) */
    uint64_t seed;
    int claimed_given;        /* HOTPROF_CLAIMED set (by a runtime up the process tree) */
    uint64_t claimed;         /* its pid (0 if not a number: matches no process) */
    hp_bursty_params sample[HP_BURSTY_NTYPES]; /* HOTPROF_SAMPLE (default: methods and call pairs) */
    hp_osp_params osp;        /* the subpath clause of HOTPROF_SAMPLE (bursty: sampled; exhaustive: the
                               * exact counter; disabled when absent). In exhaustive mode only that
                               * clause is read: a bad one stops profiling, other clauses are ignored. */
    int bursts;               /* enum hp_bursts_mode (HOTPROF_BURSTS) */
    int bursts_unknown;       /* HOTPROF_BURSTS was set to something else (then auto) */
    uint32_t window;          /* HOTPROF_WINDOW: units per patched-burst window at least */
    int xray;                 /* HP_XRAY_WISH_* (HOTPROF_XRAY) */
    int run_fd;               /* HOTPROF_RUN_FD "<fd>:<inode>" (set by `hotprof run`): the fd, -1 if */
    uint64_t run_ino;         /* unset or malformed; init checks the fd is a socket of that inode */
    const char *trace;        /* HOTPROF_TRACE: raw trace file (exhaustive mode only), or NULL */
    uint32_t trace_kind;      /* HOTPROF_TRACE_KIND: 1 values, 2 edges, 3 calls, 0 automatic */
    uint64_t trace_limit;     /* HOTPROF_TRACE_LIMIT: tuples at most (HP_SPEC_DEFAULT_TRACE_LIMIT) */
    int trace_pid_given;      /* HOTPROF_TRACE_PID set: an image up the exec/process chain traces */
    uint64_t trace_pid;       /* its pid (0 if not a number) */
    hp_iv_params iv[HP_IV_NSTREAMS]; /* HOTPROF_INTERVALS (exhaustive mode only; default: none) */
    hp_pv_params pv;          /* HOTPROF_PATHVAL (default: neither profile) */
    hp_timer_spec timer;      /* HOTPROF_TIMER (timer mode only; default: hp_timer_spec_default) */
    hp_shadow_spec shadow;    /* HOTPROF_SHADOW (shadow mode only; default: hp_shadow_spec_default) */
    char error[384];          /* "" or the one message of a setting that stops profiling */
} hp_rt_config;

/* A getenv: the value of name, or NULL if unset. */
typedef const char *(*hp_getenv_fn)(const char *name, void *arg);

/* Reads every setting through get. 0, or -1 with c->error set (the first bad setting, in the
 * order mode, sample, seed; only settings that matter for the mode are checked: mode off checks
 * nothing, exhaustive does not parse HOTPROF_SAMPLE). */
int hp_rt_config_parse(hp_rt_config *c, hp_getenv_fn get, void *arg);
/* The same over envp, a NULL-terminated array of "NAME=value" strings. */
int hp_rt_config_from_envp(hp_rt_config *c, char *const *envp);
/* hp_rt_config_parse over the process environment (getenv). */
int hp_rt_config_read(hp_rt_config *c);

#endif

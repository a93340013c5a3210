/* info_keys.h — the names of every INFO key ("key=value\n" lines of HP_SEC_INFO sections), shared
 * by the runtime's writer and the analysis reader. docs/format.md lists them with their meaning.
 *
 * Invariant: a key written by the runtime and read by analysis is spelled here once and used by
 * both sides through these macros, so renaming a key is one edit and a typo does not compile.
 * Keys are string literals (macros) so that they concatenate: HP_INFO_PROGRAM "=" is "program=".
 * Per-type and per-thread keys are built from a prefix, a name and a suffix:
 *   sample.<type>=period=N,burst=M,jitter=J      sample.<type>.enabled=0|1
 *   thread.<tid>=calls blocks backedges loads stores compares
 *   thread.<tid>.seed=S   thread.<tid>.events.<type>=N   thread.<tid>.sampled.<type>=N
 *   <backend>.<stat>=N   (backend: "patch" or "xray"; stat: HP_INFO_PB_*)
 */
#ifndef HOTPROF_CORE_FORMAT_INFO_KEYS_H
#define HOTPROF_CORE_FORMAT_INFO_KEYS_H

/* ---- file INFO (written once at start) ---- */
#define HP_INFO_PROGRAM "program"
#define HP_INFO_INTERVALS "intervals" /* intervals.<stream>=summary=multihash,... (hp_iv_params_format) */
#define HP_INFO_ARGS "args"
#define HP_INFO_ARGC "argc"
#define HP_INFO_ARGS_CUT "args_truncated" /* 1 when args was cut to fit */
#define HP_INFO_PID "pid"
#define HP_INFO_PPID "ppid"
#define HP_INFO_FORKED_FROM "forked_from"
#define HP_INFO_MODE "mode"
#define HP_INFO_SEED "seed"
#define HP_INFO_VERSION "version"
#define HP_INFO_START_TIME "start_time"
#define HP_INFO_OUTPUT "output"
#define HP_INFO_FOLLOW_FORK "follow_fork"
#define HP_INFO_RUNTIME "runtime"
#define HP_INFO_RECORDS "records"

/* values of HP_INFO_MODE */
#define HP_MODE_EXHAUSTIVE "exhaustive"
#define HP_MODE_BURSTY "bursty"
#define HP_MODE_PATCH "patch"
#define HP_MODE_XRAY "xray"
#define HP_MODE_TIMER "timer" /* --mode timer: timer interrupts in an unmodified program (LD_PRELOAD) */

/* ---- sampling configuration (file INFO and every group INFO in bursty modes) ---- */
#define HP_INFO_SAMPLE_PREFIX "sample."
#define HP_INFO_ENABLED_SUFFIX ".enabled"

/* ---- group INFO (one per group) ---- */
#define HP_INFO_GROUP "group"
#define HP_INFO_GROUP_FLAGS "group_flags"
#define HP_INFO_EXIT_STATUS "exit_status"
#define HP_INFO_THREADS "threads"
#define HP_INFO_TOTAL_CALLS "total.calls"
#define HP_INFO_TOTAL_BLOCKS "total.blocks"
#define HP_INFO_TOTAL_BACKEDGES "total.backedges"
#define HP_INFO_TOTAL_LOADS "total.loads"
#define HP_INFO_TOTAL_STORES "total.stores"
#define HP_INFO_TOTAL_COMPARES "total.compares"
#define HP_INFO_THREAD_PREFIX "thread."
#define HP_INFO_THREAD_SEED "seed"
#define HP_INFO_THREAD_EVENTS "events"
#define HP_INFO_THREAD_SAMPLED "sampled"

/* ---- patched bursts: "<backend>.<stat>" ---- */
#define HP_INFO_PB_PATCH "patch"
#define HP_INFO_PB_XRAY "xray"
#define HP_INFO_PB_BURST "burst"
#define HP_INFO_PB_PERIOD "period"
#define HP_INFO_PB_WINDOW "window"
#define HP_INFO_PB_BURSTS "bursts"
#define HP_INFO_PB_SAMPLED_ENTRIES "sampled_entries"
#define HP_INFO_PB_TIMEOUTS "timeouts"
#define HP_INFO_PB_PATCHED_NS "patched_ns"
#define HP_INFO_PB_TOTAL_NS "total_ns"
#define HP_INFO_PB_INTERVAL_NS "interval_ns"
#define HP_INFO_PB_HOOK_SHARE_PPM "hook_share_ppm"
#define HP_INFO_PB_WAKEUPS "wakeups"
#define HP_INFO_PB_CONTROL_NS "control_ns"
#define HP_INFO_PB_SITES "sites"
#define HP_INFO_PB_PASSES "passes"
#define HP_INFO_PB_SITE_WRITES "site_writes"
#define HP_INFO_PB_FUNCTIONS "functions"

/* ---- two-version code: "dual.<stat>" in patched-burst profiles (ctl/dual.c; docs/dual.md) ---- */
#define HP_INFO_DUAL "dual"
#define HP_INFO_DUAL_COUNT_SITES "count_sites" /* of them inline count sites (-hotprof-dual-site=count) */
#define HP_INFO_DUAL_SITES "sites"             /* patchable nops registered (modules loaded now) */
#define HP_INFO_DUAL_MODULES "modules"         /* modules registered, unloaded ones included */
#define HP_INFO_DUAL_UNPATCHABLE "unpatchable" /* sites never written (across a word, page not writable) */
#define HP_INFO_DUAL_SWITCHES "switches"       /* passes over every site (on or off) */
#define HP_INFO_DUAL_BRANCHES "latch_branches" /* latch branches switched with the sites (--dual-latch=branch) */
#define HP_INFO_DUAL_BRANCHES_UNWRITABLE "latch_branches_unwritable" /* of them never written */
/* "dual.count.<stat>": count-triggered bursts (--bursts count; group INFO of bursty profiles) */
#define HP_INFO_DUAL_COUNT "dual.count"
#define HP_INFO_DUAL_COUNT_TRAMPOLINES "trampolines" /* sites that jump to a trampoline of their own */
#define HP_INFO_DUAL_COUNT_DIRECT "direct"           /* sites no trampoline reaches: straight into the instrumented copy */
#define HP_INFO_DUAL_COUNT_BRANCH_TRAMPOLINES "branch_trampolines" /* latch branches (--dual-latch=branch) given a trampoline of their own */
#define HP_INFO_DUAL_COUNT_ENTRY_PADS "entry_pads"   /* entry pads given the countdown's decrement in place (no trampoline) */
#define HP_INFO_DUAL_COUNT_LATCH_PADS "latch_pads"   /* latch pads given the countdown's decrement in place */
#define HP_INFO_DUAL_COUNT_PADDED_BRANCHES "padded_branches" /* latch branches sent to a latch pad (no trampoline) */
#define HP_INFO_DUAL_COUNT_BURSTS "bursts"           /* bursts begun, all threads */
#define HP_INFO_DUAL_COUNT_EVENTS "events"           /* boundary events counted (calls + loop back-edges), all threads */
#define HP_INFO_DUAL_COUNT_SAMPLED "sampled"         /* of those, recorded units (in a burst of some type) */

/* ---- subpaths (OSP; group INFO, pt/subpath.c; docs/format.md) ---- */
#define HP_INFO_SUBPATH_SUMMARY "subpath.summary"       /* sampled | exact */
#define HP_INFO_SUBPATH_PARAMS "subpath.params"         /* canonical clause (core/control/spec.h) */
#define HP_INFO_SUBPATH_SKIP "subpath.skip"             /* live | patch | count | exact */
#define HP_INFO_SUBPATH_BLOCKS "subpath.blocks"         /* block events seen */
#define HP_INFO_SUBPATH_SAMPLES "subpath.samples"       /* sampled subpaths taken */
#define HP_INFO_SUBPATH_REJECTED "subpath.rejected"     /* rejected by weight=cost */
#define HP_INFO_SUBPATH_TAU "subpath.tau"               /* hot-list threshold (1: nothing thinned) */
#define HP_INFO_SUBPATH_F "subpath.f"                   /* final mean skip, blocks */
#define HP_INFO_SUBPATH_BYTES "subpath.bytes"           /* hot-list (or exact tables) bytes in use */
#define HP_INFO_SUBPATH_ENTRIES "subpath.entries"       /* records kept */
#define HP_INFO_SUBPATH_COLLISIONS "subpath.collisions" /* enc=exact key collisions detected */
#define HP_INFO_SUBPATH_DROPPED "subpath.dropped"       /* samples dropped: the list lock was busy too long */
#define HP_INFO_SUBPATH_EVENTS "subpath.events"         /* count mode: boundary events, counted */
#define HP_INFO_SUBPATH_EVENTS_EST "subpath.events_est" /* count mode: the same, estimated from the triggers */
#define HP_INFO_SUBPATH_CUT "subpath.cut"               /* count mode: pending subpaths cut by a return to clean code */
#define HP_INFO_SUBPATH_PREARM "subpath.prearm"         /* count mode: events run instrumented before a trigger */

/* ---- hotprof merge (file INFO of a merged profile, analysis/merge/) ----
 *   merge.inputs=N   merge.input.<i>=FILE   merge.input.<i>.<key>=VALUE (i = 1..N; key: pid,
 *   program, threads) */

#define HP_INFO_MERGE_INPUTS "merge.inputs"
#define HP_INFO_MERGE_INPUT_PREFIX "merge.input."
#define HP_INFO_MERGE_PREFIX "merge."

/* ---- timer mode (--mode timer): group INFO, written by ctl/timer.c and ctl/interp.c ---- */
#define HP_INFO_TIMER_FREQ "timer.freq"             /* interrupts per second of thread CPU time */
#define HP_INFO_TIMER_SIGNAL "timer.signal"         /* the signal number in use at the end (after moves) */
#define HP_INFO_TIMER_MOVES "timer.signal_moves"    /* times the signal moved because the program took it */
#define HP_INFO_TIMER_UNWINDER "timer.unwinder"     /* "libunwind" or another name: how stacks were taken */
#define HP_INFO_TIMER_CLOCK "timer.clock"           /* the interrupt source: "perf" or "posix" (docs/timer.md) */
#define HP_INFO_TIMER_CLOCK_FALLBACK "timer.clock_fallback" /* why --clock auto took posix (errno text) */
#define HP_INFO_TIMER_DEPTH "timer.depth"           /* the stack depth cap */
#define HP_INFO_TIMER_UNWIND_CACHED "timer.unwind_cached" /* stacks taken from the unwind-step cache, not libunwind */
#define HP_INFO_TIMER_UNWIND_MISMATCHES "timer.unwind_mismatches" /* HOTPROF_UNWIND_CACHE=check: cached stacks != libunwind */
#define HP_INFO_TIMER_SAMPLES "timer.samples"       /* interrupts handled, all threads */
#define HP_INFO_TIMER_OWN "timer.own"               /* interrupts in hotprof's own runtime or in code it
                                                     * called (a return address in our text: the profile
                                                     * writer at exit, libc under it): not recorded */
#define HP_INFO_TIMER_DROPPED "timer.dropped"       /* samples not kept (a thread's stack table full) */
#define HP_INFO_TIMER_HANDLER_NS "timer.handler_ns" /* ns spent in our handlers (sampling + interpreting) */
#define HP_INFO_TIMER_CPU_NS "timer.cpu_ns"         /* the process's CPU time at the write (all threads) */
#define HP_INFO_VALUES "values"                     /* values=L/K (absent: PC samples only) */
#define HP_INFO_VALUES_ENGINE "values.engine"       /* "ool" (out-of-line) or "tf" (trap flag) */
#define HP_INFO_VALUES_RUNS "values.runs"           /* interpretations started */
#define HP_INFO_VALUES_INSNS "values.insns"         /* instructions interpreted */
#define HP_INFO_VALUES_NS "values.ns"               /* ns spent interpreting (part of timer.handler_ns) */
#define HP_INFO_VALUES_STOP "values.stop"           /* values.stop.<reason>=N: interpretations ended early;
                                                     * reasons: syscall fault atomic unsupported signal
                                                     * (see docs/value-sampling.md) */
#define HP_INFO_VALUES_MODULE "values.module"      /* values.module=NAME, .path, .in/.out (tuples given to and
                                                     * returned by its transform), .overflow (tuples over
                                                     * HOTPROF_MODULE_MAX_TUPLES in one interpretation) */
#define HP_INFO_VALUES_SKIP "values.debias"         /* values.debias=N: 0, or max random steps before capture */

/* ---- path and value profiles of exhaustive (and shadow) runs: group INFO, pt/pathval.c ---- */
#define HP_INFO_PATHVAL_SPEC "pathval.spec"         /* canonical clauses (core/control/pathval_spec.h) */
#define HP_INFO_PATH_PATHS "path.paths"             /* paths completed, all threads */
#define HP_INFO_PATH_UNKEPT "path.unkept"           /* distinct paths whose block sequence was not kept
                                                     * (a thread's sequence arena was full) */
#define HP_INFO_PATH_DROPPED "path.dropped"         /* completions of new paths not counted: a thread
                                                     * already held its cap of distinct paths (2^20) */
#define HP_INFO_PATH_MAXLEN "path.maxlen"           /* the length cap in blocks */
#define HP_INFO_VALUES_SUMMARY "values.summary"     /* tnv | gm (exhaustive hooks) | concise (value sampling,
                                                     * the default when absent) */
#define HP_INFO_VALUES_SITES "values.sites"         /* value sites held, all threads */
#define HP_INFO_VALUES_DROPPED "values.dropped"     /* values not recorded: a thread's site table was full */

/* ---- shadow mode (docs/shadow.md): the parent's group INFO sums over its shadows; a shadow's
 * own profile carries shadow.end and shadow.syscalls.* for itself ---- */
#define HP_MODE_SHADOW "shadow"
#define HP_INFO_SHADOW "shadow"                       /* prefix of every key below */
#define HP_INFO_SHADOW_SPEC "shadow.spec"             /* load=X,sample=N,signal=S (shadow_spec.h) */
#define HP_INFO_SHADOW_STARTED "shadow.started"       /* shadows forked */
#define HP_INFO_SHADOW_FINISHED "shadow.finished"     /* shadows that wrote their profile and exited */
#define HP_INFO_SHADOW_KILLED "shadow.killed"         /* shadows that died without a profile (all reasons) */
#define HP_INFO_SHADOW_KILLED_DEADLINE "shadow.killed.deadline" /* ... killed by the monitor's wall-clock deadline */
#define HP_INFO_SHADOW_END "shadow.end"               /* shadow.end.<reason>=N: sample input unsafe shared_write fault exit setup parent_exit slice */
#define HP_INFO_SHADOW_SYSCALLS "shadow.syscalls"     /* shadow.syscalls.<benign|output|input|unsafe>=N: trapped calls */
#define HP_INFO_SHADOW_EVENTS "shadow.events"         /* calls + blocks recorded by the shadows that wrote a profile */
#define HP_INFO_SHADOW_CPU_NS "shadow.cpu_ns"         /* their CPU time */
#define HP_INFO_SHADOW_NATIVE_NS "shadow.native_ns"   /* the native time their events stand for (estimated, docs/shadow.md) */
#define HP_INFO_SHADOW_PARENT_CPU_NS "shadow.parent_cpu_ns" /* the parent's CPU time at the write (all its threads) */
#define HP_INFO_SHADOW_MINFLT "shadow.minflt"         /* the parent's minor page faults (getrusage) at the write */
#define HP_INFO_SHADOW_MINFLT_BEFORE "shadow.minflt_before" /* ... when the first shadow was forked (the baseline) */
#define HP_INFO_SHADOW_COVERAGE_PPM "shadow.coverage_ppm"   /* estimated share of the run's events profiled (ppm) */
#define HP_INFO_SHADOW_CALIBRATED "shadow.calibrated"  /* shadows whose native_ns came from a calibrated event rate */
#define HP_INFO_SHADOW_DENSITY "shadow.density_per_ms"  /* calibrated shadows' mean calls + blocks per native ms */
#define HP_INFO_SHADOW_SIGNAL_LOST "shadow.signal_lost"     /* 1: the program took the signal over; no more shadows */
#define HP_INFO_SHADOW_SKIPPED_IDLE "shadow.skipped_idle"   /* due ticks on a thread waiting in a system call: no shadow forked */

#endif

/* hotprof.h — the public API of libhotprof_rt, for programs built with `hotprof cc`.
 *
 * Most programs need nothing from here: the compiler hooks record everything and the profile
 * is written at exit (or on a fatal signal). Call these only to control the runtime online.
 * Settings come from the environment (HOTPROF_OUTPUT, HOTPROF_MODE, HOTPROF_SEED, HOTPROF_QUIET,
 * HOTPROF_FOLLOW_FORK); see docs/runtime.md.
 *
 * Every function is thread-safe. hotprof_flush is not async-signal-safe (it refreshes the
 * module list through dl_iterate_phdr); hotprof_version is. The sampling control functions
 * (HOTPROF_MODE=bursty, docs/bursty.md and docs/runtime.md) may be called from any thread at any
 * time while the program runs; hotprof_snapshot_topk maps and unmaps scratch memory (no malloc).
 */
#ifndef HOTPROF_HOTPROF_H
#define HOTPROF_HOTPROF_H
#include <stdint.h>
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

/* ---- bursty sampling (HPS), online control ----
 * Profile types, each with its own period (S: boundary events — calls and loop back-edges —
 * between bursts), burst length (B: boundary events sampled per burst) and jitter (percent of S).
 * The observed sampling frequency is B/(B+S). */
enum hotprof_sample_type {
    HOTPROF_SAMPLE_METHODS = 0,    /* calls + back-edges per function */
    HOTPROF_SAMPLE_CALLPAIRS = 1,  /* (call site, callee) */
    HOTPROF_SAMPLE_EDGES = 2,      /* (block, next block) and block counts */
    HOTPROF_SAMPLE_DATASTREAM = 3, /* memory references (parameters only: no detector yet) */
    HOTPROF_SAMPLE_SUBPATH = 4     /* hot subpaths (OSP, --sample subpath): hotprof_snapshot_topk only;
                                    * not an HPS type (enable/set return -1 for it) */
};

/* Switch a type's sampling on or off. Takes effect in each thread right after its next
 * controller slow path (at most 4096 boundary events later; docs/bursty.md): from then on a
 * disabled type records nothing and counts no events; an enabled type starts a fresh cycle.
 * 0, or -1 if the process is not recording in bursty mode or the type is bad. */
int hotprof_sample_enable(enum hotprof_sample_type type, int on);

/* Set a type's period (0..2^30), burst (1..2^30) and jitter (0..99 percent), leaving it on or
 * off as it is. Each thread applies the new values from the type's next counter reset (the end
 * of the burst in progress, or of the next one); the cycle in progress keeps its values.
 * 0, or -1 if not recording in bursty mode or a value is out of range (nothing changed). */
int hotprof_sample_set(enum hotprof_sample_type type, unsigned period, unsigned burst, unsigned jitter_percent);

typedef struct hotprof_topk_entry {
    uint64_t key1;  /* methods: function address; callpairs: callee address; edges: from guard;
                     * subpath: the subpath's key (enc=xor or exact, docs/osp.md) */
    uint64_t key2;  /* methods: 0;                callpairs: call site (return address); edges: to guard;
                     * subpath: its length in blocks */
    uint64_t count; /* sampled count (methods: calls + back-edges); exact counts in exhaustive mode;
                     * subpath: the estimated executions (weight / p_length) rounded, exact with
                     * --mode exhaustive --sample subpath */
} hotprof_topk_entry;

/* The k keys with the highest counts so far, merged across every thread, into out[0..k), highest
 * first (ties: lower key1, then key2). Returns how many were written (<= k), or -1 if the process
 * is not recording, k < 0 or the type has no table (datastream). Read-only over the threads'
 * live tables: each count is one its thread held at some moment during the call (a thread may
 * add events meanwhile), counts of different keys are not one atomic snapshot, and no thread
 * is stopped or slowed. Works in exhaustive mode too (exact counts).
 * HOTPROF_SAMPLE_SUBPATH: the subpaths of the process's hot-list, ranked by estimate (ties: table
 * order), when the run samples subpaths (-1 otherwise); the list is copied under its lock (a
 * sampling thread that completes a subpath meanwhile waits for the copy). */
int hotprof_snapshot_topk(enum hotprof_sample_type type, int k, hotprof_topk_entry *out);

#ifdef __cplusplus
}
#endif
#endif

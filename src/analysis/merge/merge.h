/* merge.h — `hotprof merge`: many profiles (runs, processes, machines) into one profile file.
 *
 * The inputs are read profiles (profile.h). The merge
 *   1. checks that they can be merged (checks.c): one mode; in sampled modes equal sampling
 *      parameters (every sample.* INFO key); one build per module path (unless force);
 *   2. rebases addresses (modules.c): an address means (module identity, offset), the identity
 *      being the build-id, else the path; the output's modules are the union of the inputs'
 *      identities, one base each (the first input's, moved when it would overlap another);
 *   3. remaps block guards (guards.c): a guard is an index the runtime gave in load order, so it
 *      is meaningful only through the block map (guard -> pc); guards with the same rebased pc
 *      become one output guard; a guard the block map does not know stays apart per input;
 *   4. asks every profile type (aptype.h merge_add / merge_write) to add its table and write it:
 *      exact tables add with saturation; a type without hooks is dropped with a note;
 *   5. writes one group (merge.c): INFO (info.c: keys equal across inputs, the inputs, sums),
 *      MODULES, BLOCKMAP, one merged THREAD (tid 0), each type's sections, group INFO, GROUP_END.
 *
 * Invariants: nothing is written unless every input merged; counts saturate; output guard ids
 * are 1.. in order of first appearance; every output address of a module lies in its [lo, hi).
 */
#ifndef HOTPROF_ANALYSIS_MERGE_MERGE_H
#define HOTPROF_ANALYSIS_MERGE_MERGE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pairmap.h"
#include "analysis/profbuild.h"
#include "analysis/profile.h"
#include "analysis/reader.h"

typedef struct hp_merge_opts {
    int force; /* merge different builds of one path (kept as separate modules) */
    const char *extra_info; /* NULL, or "key=value\n" lines appended to the group INFO (`hotprof run
                             * --mode shadow`: the parent's shadow.* summary, docs/shadow.md) */
    const struct hp_profile *status_from; /* NULL (exit status 0), or the profile whose exit status
                                           * and CRASH flag the merged group takes (shadow mode: the parent) */
} hp_merge_opts;

typedef struct hp_merge {
    hp_profile *const *in;
    size_t nin;
    hp_merge_opts opts;
    /* modules.c */
    hp_module *mods;   /* output modules; path and buildid borrowed from the inputs */
    size_t nmods;
    size_t **modmap;   /* modmap[i][j]: output module of input i's module j */
    uint64_t outside;  /* addresses in no module, kept as they are */
    /* guards.c */
    hp_pairmap pcguard;  /* rebased pc -> (output guard, index into bmap + 1) */
    hp_pairmap *guards;  /* per input: guard -> (output guard) */
    hp_rec_block *bmap;  /* the output block map */
    size_t nbmap, bmap_cap;
    uint32_t next_guard;
    /* per profile type */
    hp_apt_acc acc[HP_PT_COUNT];
    /* messages */
    char *err;
    size_t errlen;
    char notes[4096]; /* what was dropped or kept apart, one line each */
} hp_merge;

/* Merges in[0..n) (n >= 1) into a profile file image in out (initialized here). 0 on success,
 * with notes (lines, possibly empty) copied into notes; -1 with one message in err. */
int hp_merge_profiles(hp_profile *const *in, size_t n, const hp_merge_opts *o, hp_pbuild *out,
                      char *err, size_t errlen, char *notes, size_t noteslen);

/* ---- for the profile types' hooks ---- */
/* Input i's run-time address addr rebased into the output's modules (kept when in no module). */
uint64_t hp_merge_addr(hp_merge *m, size_t i, uint64_t addr);
/* The same for a return address (the module is that of site - 1). */
uint64_t hp_merge_return_addr(hp_merge *m, size_t i, uint64_t site);
/* Input i's guard (mapped: its pc and flags are known) as an output guard; 0, or -1 out of memory. */
int hp_merge_guard(hp_merge *m, size_t i, uint32_t guard, int mapped, uint64_t pc, uint32_t flags, uint32_t *out);
/* Adds (a, b) to key (k1, k2) of map, saturating; 0, or -1 (message set) out of memory. */
int hp_merge_accumulate(hp_merge *m, hp_pairmap *map, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b);
/* Sets the error message; returns -1. */
/* recbuf.c: a type's encoded records while merging, in acc->mem: room for n more bytes at the end
 * (NULL out of memory), a little-endian u64, and the whole buffer written as one section. */
uint8_t *hp_merge_recbuf_grow(hp_apt_acc *acc, size_t n);
void hp_merge_put_u64(uint8_t *at, uint64_t v);
void hp_merge_recbuf_write(struct hp_pbuild *b, uint32_t section, const hp_apt_acc *acc);
int hp_merge_fail(hp_merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one line to the notes. */
void hp_merge_note(hp_merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the merge's own parts ---- */
int hp_merge_check(hp_merge *m);                  /* checks.c: 0, or -1 with the message */
int hp_merge_modules(hp_merge *m);                /* modules.c: the union; 0 or -1 */
void hp_merge_modules_free(hp_merge *m);
void hp_merge_guards_free(hp_merge *m);           /* guards.c */
int hp_merge_write_info(hp_merge *m, hp_pbuild *b, int group); /* info.c: file (0) or group (1) INFO */
/* The merged group's THREAD events (every input thread's) and whether every input ended FINAL. */
uint64_t hp_merge_thread_events(const hp_merge *m);
int hp_merge_all_final(const hp_merge *m);
uint64_t hp_merge_group_flags(const hp_merge *m); /* FINAL if every input is, CRASH from status_from */
int64_t hp_merge_status(const hp_merge *m);       /* status_from's exit status, else 0 */
/* 1 if some input has a thread (then the merged group has THREAD 0), else 0. */
int hp_merge_threads(const hp_merge *m);
/* The value of key in input i, or NULL (a shorthand of hp_profile_info). */
const char *hp_merge_info(const hp_merge *m, size_t i, const char *key);

#endif

/* ivstats.h — what `hotprof report --type intervals` computes from one INTERVALS section (one
 * thread's timeline of one stream, core/format/ivsec.h): hot tuples with the share of intervals
 * in which each was a candidate, phases (maximal runs of slots with the same hot set) and the
 * change rate (Figure 6), per-slot candidate counts, and — when the exact sets were recorded —
 * the paper's error E per slot and its FP/FN/NP/NN split, averaged (core/metrics/multihash.h).
 * Invariants: a decoded section is read-only here; every result is freed by its own free call.
 * A slot that spans s base intervals is scored with threshold s*T (exact only for s = 1: the
 * report says how many slots were merged).
 */
#ifndef HOTPROF_ANALYSIS_IVSTATS_H
#define HOTPROF_ANALYSIS_IVSTATS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/profile.h"
#include "core/format/ivsec.h"
#include "core/metrics/multihash.h"

typedef struct hp_iv_thread {
    uint64_t tid;
    hp_ivsec_head h;
    hp_ivt_slot *slots;
    hp_ivt_entry *entries;
    hp_ivsec_name *names; /* sorted by key */
} hp_iv_thread;

typedef struct hp_iv_hot {
    uint64_t key, count;  /* summed multi-hash counts */
    uint64_t hits;        /* base intervals in which it was a multi-hash candidate */
    double share;         /* hits / scored intervals */
} hp_iv_hot;

typedef struct hp_iv_phase { size_t first_slot, nslots; } hp_iv_phase;

typedef struct hp_iv_error {
    int have;             /* exact sets recorded */
    size_t scored;        /* slots scored */
    double e, fp, fn, np, nn; /* means, fractions */
} hp_iv_error;

/* Base intervals in the timeline (handed over minus dropped). */
uint64_t hp_iv_scored_intervals(const hp_iv_thread *t);
/* Hot tuples, most intervals first (then count, then key); *n set. NULL if none or no memory. */
hp_iv_hot *hp_iv_hot_tuples(const hp_iv_thread *t, size_t *n);
/* Phases over the slots; *n set. NULL if no slots or no memory. */
hp_iv_phase *hp_iv_phases(const hp_iv_thread *t, size_t *n);
/* Mean over neighbouring slots of |A xor B| / |A or B| of their hot sets (0 when both empty). */
double hp_iv_change_rate(const hp_iv_thread *t);
/* 1 if slots i and j have the same hot (multi-hash candidate) set. */
int hp_iv_same_hot_set(const hp_iv_thread *t, size_t i, size_t j);
/* The error E against the recorded exact sets (out->have = 0 without them). 0, or -1 out of memory. */
int hp_iv_error_of(const hp_iv_thread *t, hp_iv_error *out);
/* 1 if a's candidates can be scored against b's exact sets (same stream, L, T and slots), else 0
 * and *why says why. */
int hp_iv_comparable(const hp_iv_thread *a, const hp_iv_thread *b, const char **why);
/* E of a's multi-hash candidates against b's exact sets, slot by slot (a == b: against its own);
 * per_slot (NULL or a->h.nslots values) gets each slot's E. A tuple a reports that b does not
 * list counts as f_p = 0 (exact when b is a itself or the same run). out->have = 0 when not
 * comparable. 0, or -1 out of memory. */
int hp_iv_error_vs(const hp_iv_thread *a, const hp_iv_thread *b, hp_iv_error *out, double *per_slot);
/* `hotprof compare A B`: E of each of A's interval sections against the section of B with the
 * same stream and position (B's k-th value section for A's k-th), text or one JSON member
 * ("intervals": [...], no comma around it). Returns the sections compared, or -1 out of memory. */
int hp_iv_compare_write(FILE *out, const hp_profile *a, const hp_profile *b, int json);
/* The tuple a key stands for, or NULL if its name was not kept. */
const hp_ivsec_name *hp_iv_name(const hp_iv_thread *t, uint64_t key);

#endif

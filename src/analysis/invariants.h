/* invariants.h — `hotprof invariants`: semi-invariant instructions of a value profile (DCPI §3.2):
 * operands whose top value holds at least min_share of their captures, at instructions executed
 * often (samples at the pc from the STACKS, or captures when the profile has no stacks).
 *
 * Selection: every (pc, kind, operand) hot-list except the return-address context (HP_VK_RETADDR)
 * with share(top value) >= min_share (0..1) and weight >= min_samples (0: also instructions that were
 * interpreted but never the interrupted pc); sorted by weight x share
 * (the samples the invariant covers), highest first, ties by pc, kind, operand.
 * By call site: each selected row is split by the caller of its samples (the function of pcs[1] of
 * each stack whose pcs[0] is the pc; "(no caller)" for a depth-1 stack). The hot-lists are per pc,
 * not per caller, so every split row carries the pc's invariant value and share; the split says
 * where the samples came from, and the pc's RETADDR hot-list (if any) is reported beside it.
 */
#ifndef HOTPROF_ANALYSIS_INVARIANTS_H
#define HOTPROF_ANALYSIS_INVARIANTS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/profile.h"
#include "analysis/symbolize.h"

typedef struct hp_inv_opts { double min_share; uint64_t min_samples; int by_callsite; size_t top; } hp_inv_opts;
typedef struct hp_invariant {
    const hp_value_stat *list; /* the hot-list (into p->values) */
    uint64_t weight;           /* samples at the pc (captures without stacks) */
    double share;              /* of the top value */
    double weighted;           /* weight x share */
} hp_invariant;
/* One caller's part of an invariant (by call site). */
typedef struct hp_inv_site { uint64_t caller, samples; } hp_inv_site; /* caller: function start, 0 none */

/* The selected rows into *out (sorted as above), *n of them. 0, or -1 out of memory. */
int hp_invariants_select(const hp_profile *p, const hp_inv_opts *o, hp_invariant **out, size_t *n);
/* The callers of pc's samples, most samples first (ties by caller). 0, or -1 out of memory. */
int hp_invariants_sites(const hp_profile *p, hp_symbolizer *s, uint64_t pc, hp_inv_site **out, size_t *n);
/* The table (text) or JSON object of the selection. 0, or -1 out of memory / stream error. */
int hp_invariants_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_inv_opts *o, int json);

#endif

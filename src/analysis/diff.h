/* diff.h — `hotprof diff A B` (perf diff): per profile type that has a `diff_rows` hook
 * (ptype/aptype.h), the entries of baseline A and new profile B matched by portable name
 * (hp_rt_portable_name: symbol names, so that rebuilds of one program match), with their counts,
 * their shares (percent of the type's total in that profile) and the change, share B - share A
 * in percentage points, sorted by |change| descending, ties by name.
 *
 * hp_diff_join is the matching on its own (unit-tested on synthetic rows): it merges equal names
 * in each side and joins the two sides; an entry of one side only has count 0 on the other.
 * Invariants: the shares of each side sum to 100 (or 0 for an empty side); a profile diffed with
 * itself has every delta exactly 0.
 */
#ifndef HOTPROF_ANALYSIS_DIFF_H
#define HOTPROF_ANALYSIS_DIFF_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/folded.h"
#include "analysis/profile.h"

typedef struct hp_diff_row {
    const char *name;          /* points into the hp_fold it came from */
    uint64_t count_a, count_b;
    double share_a, share_b;   /* percent of the side's total */
    double delta;              /* share_b - share_a, percentage points */
} hp_diff_row;

typedef struct hp_diff_table {
    hp_diff_row *rows;         /* sorted by |delta| descending, then name */
    size_t n;
    size_t n_a, n_b, n_common; /* distinct names in A, in B, in both */
    uint64_t total_a, total_b;
} hp_diff_table;

/* Joins the rows of a and b (both are merged in place; t's names point into them). 0, -1 OOM. */
int hp_diff_join(hp_fold *a, hp_fold *b, hp_diff_table *t);
void hp_diff_table_free(hp_diff_table *t);
/* 1 if no entry changed its share. */
int hp_diff_unchanged(const hp_diff_table *t);

typedef struct hp_diff_opts {
    size_t top;        /* rows shown per type */
    int json;          /* JSON instead of text */
    int type;          /* only this core type id, or -1: every type with diff_rows */
    const char *name_a, *name_b;
} hp_diff_opts;

/* Writes the diff of a (baseline) and b. 0; -1 out of memory or the stream failed. */
int hp_diff_write(FILE *out, const hp_profile *a, const hp_profile *b, const hp_diff_opts *o);

#endif

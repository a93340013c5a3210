/* folded.h — the flame-graph "folded stacks" format of `hotprof report --format folded`: one line
 * per stack, its frames joined by ';', one space, then an integer count (flamegraph.pl, speedscope).
 *
 * A profile type's `folded` hook (ptype/aptype.h) adds its stacks to an hp_fold; hp_fold_write
 * merges equal stacks (counts add, saturating), sorts them by count descending then by text
 * (bytewise), and prints them. Frames are sanitized so that a line parses one way only: ';' and
 * control characters (newlines included) become '_', and an empty frame is written as "?".
 * Stacks of count 0 are left out (they add nothing to a flame graph or to the sum).
 * Invariant: the counts written sum to the counts added (up to saturation at UINT64_MAX).
 */
#ifndef HOTPROF_ANALYSIS_FOLDED_H
#define HOTPROF_ANALYSIS_FOLDED_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct hp_fold_line { char *stack; uint64_t count; } hp_fold_line;
typedef struct hp_fold { hp_fold_line *lines; size_t n, cap; } hp_fold;

void hp_fold_init(hp_fold *f);
void hp_fold_free(hp_fold *f);
/* Adds the stack frames[0] (outermost) ; ... ; frames[nframes-1]. 0, or -1 out of memory. */
int hp_fold_add(hp_fold *f, const char *const *frames, size_t nframes, uint64_t count);
/* Merges equal stacks (counts add, saturating); leaves f sorted by text. */
void hp_fold_merge(hp_fold *f);
/* Merges, sorts and writes every stack added (f is left merged and sorted). 0, or -1 if the
 * stream failed. */
int hp_fold_write(FILE *out, hp_fold *f);

#endif

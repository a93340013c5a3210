/* samples.h — the samples profile type's shared pieces (ptype/samples*.c): the per-function
 * aggregation of the timer's stack samples that the report table, compare, annotate and the
 * invariants command use.
 * Self of a function = samples whose pcs[0] lies in it; total = samples with the function anywhere
 * on the stack, counted once per sample (recursion does not count twice). A return address
 * (pcs[1..]) is attributed at pc - 1, the call instruction. Functions are keyed by their start
 * (hp_sym_function_start); an address no symbol covers is its own function.
 */
#ifndef HOTPROF_ANALYSIS_PTYPE_SAMPLES_H
#define HOTPROF_ANALYSIS_PTYPE_SAMPLES_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/ptype/aptype.h"

typedef struct hp_sample_func { uint64_t addr, self, total; } hp_sample_func;

/* The address a stack frame is symbolized at: pcs[0] as it is, a return address at pc - 1. */
static inline uint64_t hp_stack_frame_addr(const hp_stack_stat *st, size_t i)
{
    return i == 0 || st->pcs[i] == 0 ? st->pcs[i] : st->pcs[i] - 1;
}
/* Every function seen on a stack, sorted by self then total (highest first), ties by address;
 * *n rows. NULL with *n = 0 when there are none or memory runs out (*oom = 1 then). */
hp_sample_func *hp_samples_functions(const hp_profile *p, hp_symbolizer *s, size_t *n, int *oom);
/* Samples (sum of counts) over every stack, saturating. */
uint64_t hp_samples_total(const hp_profile *p);
/* Samples whose interrupted pc is exactly pc. */
uint64_t hp_samples_at_pc(const hp_profile *p, uint64_t pc);

/* Hooks defined in samples_report.c / samples_export.c for the registration in samples.c. */
int hp_samples_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_samples_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_samples_text_totals(char *buf, size_t len, const hp_profile *p);
int hp_samples_json_totals(FILE *out, const hp_profile *p);
int hp_samples_folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_samples_pprof(hp_pprof_export *x);
int hp_samples_graph(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s);
struct hp_merge;
struct hp_pbuild;
int hp_samples_merge_add(struct hp_merge *m, hp_apt_acc *acc, size_t i);
int hp_samples_merge_write(struct hp_merge *m, struct hp_pbuild *b, const hp_apt_acc *acc);
extern const hp_cmp_view hp_samples_views[];
#define HP_SAMPLES_NVIEWS 1

#endif

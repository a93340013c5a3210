/* subpath.h — the pieces the subpath type's analysis files share (subpath.c: reader, merge;
 * subpath_report.c: the table and JSON; subpath_compare.c: `hotprof compare`'s subpath section;
 * subpath_merge.c: `hotprof merge`).
 * Not used outside src/analysis/ptype/subpath*.c (and its unit test).
 *
 * Bounds (core/metrics/osp.h, Eqs. 2.14-2.15): with c = the record's sample count and E its
 * estimate, eps = hp_osp_chernoff_error(c, confidence, one_sided); the bounds are E(1 - eps)
 * (at least 0) and E(1 + eps). A profile whose subpath.summary is `exact` has eps = 0 (its
 * counts are the executions themselves). Counting samples (subpath.params list=counting, INFO
 * subpath.tau > 1) add hp_osp_admission_error(c, tau, ...) to eps: the samples before a
 * subpath's admission are estimated, not counted.
 * Rank (finish): the estimate (weighted per weight=); with counting samples times the counted
 * share c / (c + tau - 1), so that a subpath held on a few samples, whose estimate is mostly the
 * admission term (tau - 1 samples' worth, divided by a small p_length for a long one), does not
 * outrank one counted thousands of times; the estimate shown stays unbiased.
 */
#ifndef HOTPROF_ANALYSIS_PTYPE_SUBPATH_H
#define HOTPROF_ANALYSIS_PTYPE_SUBPATH_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/compare.h"
#include "analysis/profile.h"
#include "analysis/report.h"

typedef enum hp_subpath_weight { HP_SUBPATH_BY_COUNT, HP_SUBPATH_BY_LENGTH, HP_SUBPATH_BY_COST } hp_subpath_weight;

/* The value of `name=` in the profile's subpath.params (into buf), or fallback. */
const char *hp_subpath_param(const hp_profile *p, const char *name, char *buf, size_t len, const char *fallback);
hp_subpath_weight hp_subpath_weighting(const hp_profile *p);
int hp_subpath_exact(const hp_profile *p); /* subpath.summary=exact */
/* INFO subpath.tau when subpath.params says list=counting, else 1. */
double hp_subpath_counting_tau(const hp_profile *p);

typedef struct hp_subpath_bounds {
    double lo95, hi95, lo80, hi80; /* two-sided */
    double lower95, lower80;       /* one-sided */
    double error95;                /* two-sided eps at 95% */
} hp_subpath_bounds;
hp_subpath_bounds hp_subpath_bounds_of(const hp_profile *p, const hp_subpath_stat *sp);

/* The blocks a --threshold is a share of: INFO subpath.blocks, else the sum of estimate x length. */
double hp_subpath_total_blocks(const hp_profile *p);
/* 1 if the row passes `report --threshold PCT` (its one-sided 95% lower bound >= PCT% of the blocks). */
int hp_subpath_passes(const hp_profile *p, const hp_subpath_stat *sp, double pct);

/* The subpath as `function file:line → file:line → …` (consecutive blocks on one source line
 * collapsed, the function printed where it changes; a block the map does not know: "guard N";
 * one without a line: its pc). Returns a malloc'd string, NULL out of memory. */
char *hp_subpath_path_text(hp_symbolizer *s, const hp_subpath_stat *sp);
/* The JSON array "blocks": [{guard, pc, function, file, line}, ...] of one subpath (or path). */
void hp_subpath_json_blocks(FILE *out, hp_symbolizer *s, const hp_subpath_stat *sp);

/* report hooks (subpath_report.c) */
int hp_subpath_shown(const hp_profile *p, const hp_report_opts *o);
int hp_subpath_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_subpath_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_subpath_sampling_text(FILE *out, const hp_profile *p);
int hp_subpath_text_totals(char *buf, size_t len, const hp_profile *p);
/* merge hooks (subpath_merge.c) */
struct hp_merge;
struct hp_pbuild;
struct hp_apt_acc;
int hp_subpath_merge_add(struct hp_merge *m, struct hp_apt_acc *acc, size_t i);
int hp_subpath_merge_write(struct hp_merge *m, struct hp_pbuild *b, const struct hp_apt_acc *acc);
/* compare hook (subpath_compare.c) */
int hp_subpath_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len);

#endif

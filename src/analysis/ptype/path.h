/* path.h — the pieces the path type's analysis files share (path.c: reader; path_report.c: the
 * table and JSON; path_compare.c: `hotprof compare`'s path section, Wall's weight matching;
 * path_merge.c: `hotprof merge`). A path is held as an hp_subpath_stat (profile.h) with
 * count = estimate = ranked = its completions, so that the subpath report's path text
 * (hp_subpath_path_text) prints it. Not used outside src/analysis/ptype/path*.c (and its unit test).
 */
#ifndef HOTPROF_ANALYSIS_PTYPE_PATH_H
#define HOTPROF_ANALYSIS_PTYPE_PATH_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/compare.h"
#include "analysis/profile.h"
#include "analysis/report.h"

/* Completions summed over every path of p (saturating). */
uint64_t hp_path_total(const hp_profile *p);

/* report hooks (path_report.c) */
int hp_path_shown(const hp_profile *p, const hp_report_opts *o);
int hp_path_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_path_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_path_text_totals(char *buf, size_t len, const hp_profile *p);
/* merge hooks (path_merge.c) */
struct hp_merge;
struct hp_pbuild;
struct hp_apt_acc;
int hp_path_merge_add(struct hp_merge *m, struct hp_apt_acc *acc, size_t i);
int hp_path_merge_write(struct hp_merge *m, struct hp_pbuild *b, const struct hp_apt_acc *acc);
/* compare hook (path_compare.c): a = the reference (exhaustive), b = the estimate (shadow) */
int hp_path_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len);

#endif

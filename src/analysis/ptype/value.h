/* value.h — the value profile type's shared pieces (ptype/value*.c): names of value kinds and
 * operands, shares of hot-list values, and the lookup of one instruction's hot-lists, for the
 * value report, annotate and the invariants command.
 * A value's share at its (pc, kind, operand) = its estimate (sum over threads of count x tau) /
 * captures (sum over threads), capped at 1 (a hot-list estimate can overshoot by its tau).
 */
#ifndef HOTPROF_ANALYSIS_PTYPE_VALUE_H
#define HOTPROF_ANALYSIS_PTYPE_VALUE_H
#include "analysis/ptype/aptype.h"
#include "hotprof/module.h"

/* "reg", "addr", "load", "store", "flags", "retaddr", "xmm", "cmp", "?" */
const char *hp_value_kind_name(uint8_t kind);
/* The operand as shown: "rax".."r15" (REG), "xmm0".."xmm15" (XMM), "mem0" (memory kinds), "op0"/"op1"
 * (CMP: left / right operand), "" else. */
void hp_value_operand_name(uint8_t kind, uint8_t operand, char *buf, size_t n);
/* The value as shown: "0x2a (42)", an xmm "0x3ff8000000000000 (double 1.5)", addresses and flags "0x246";
 * a customization module's format first, when one is set (and returns non-zero). The operand is
 * passed on to the module (hp_value_format_op). */
void hp_value_format(uint8_t kind, uint64_t value, char *buf, size_t n);
void hp_value_format_op(uint8_t kind, uint8_t operand, uint64_t value, char *buf, size_t n);
/* The module format used by hp_value_format* from now on (NULL: hotprof's own). The reports are
 * single-threaded: one process-wide setting (`hotprof report --module`). */
void hp_value_set_formatter(hotprof_format_fn *fn);
double hp_value_share(const hp_value_stat *v, size_t i);
/* The hot-lists of pc: *first = index of the first (p->values is sorted by pc), count returned. */
size_t hp_value_at(const hp_profile *p, uint64_t pc, size_t *first);
/* Captures summed over every hot-list of the profile (saturating). */
uint64_t hp_value_total_captures(const hp_profile *p);

int hp_value_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_value_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
int hp_value_text_totals(char *buf, size_t len, const hp_profile *p);
struct hp_merge;
struct hp_pbuild;
int hp_value_merge_add(struct hp_merge *m, hp_apt_acc *acc, size_t i);
int hp_value_merge_write(struct hp_merge *m, struct hp_pbuild *b, const hp_apt_acc *acc);
/* compare hook (value_compare.c): Diff-Top, A the estimate, B the reference. */
int hp_value_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len);
/* The summary the hot-lists were kept in: INFO values.summary (tnv, gm), else "concise" (value sampling). */
const char *hp_value_summary(const hp_profile *p);

#endif

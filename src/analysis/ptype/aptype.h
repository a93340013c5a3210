/* aptype.h — a profile type on the analysis side: how the reader decodes its sections into the
 * profile, how `hotprof report` prints it (text and JSON), and how `hotprof compare` keys it.
 *
 * One file per type in src/analysis/ptype/ defines one hp_aptype; registry.c lists them, indexed
 * by the core descriptor's id (core/ptype/ptype.h). The reader (reader.c), the report (report.c),
 * compare.c and hp_profile_free loop over hp_aptypes[]; nothing outside a type's own file names
 * the type (the hp_profile fields the type fills, declared in profile.h, are its output slots).
 *
 * Contract of the hooks (a NULL hook means "nothing to do"):
 *   decode   one complete section of the last complete group whose type is the core descriptor's
 *            `section`, or a SUMMARY whose id is its `summary_id`; the payload length is already
 *            checked against `record_size` (or is >= 8 for a SUMMARY). Sums go into acc.
 *            0 after hp_rd_fail (the file is refused).
 *   check    one such section of an earlier complete group (not decoded): validate it the way
 *            decode would (datastream: deserialize). 0 after hp_rd_fail. NULL: nothing to check.
 *   finish   always called once after the group (also when there is none): acc -> the profile's
 *            arrays (allocated even when empty). 0 after hp_rd_fail / hp_rd_oom.
 *   release  frees what finish put into the profile.
 *   wanted   1 if its table belongs in a report with these options (NULL: always).
 *   shown    1 if its table belongs in the report of this profile (NULL: `wanted` decides), e.g.
 *            only when the profile holds the type. `report --type TYPE` (text, JSON) shows only
 *            TYPE's table, whatever wanted and shown say (report.c).
 *   text     its table, starting with the blank line before its heading.
 *   json     its member(s) of the report object, without a leading or trailing comma.
 *   text_totals / json_totals  its part of the header's "totals" (text: into buf; JSON: members).
 *   distinct the word of the header's "distinct" list ("functions"); its count is rows(p).
 *   views    its compare rows (compare.h); a type may compare under several weights.
 *   compare_extra  its own section of `hotprof compare` (compare.h hp_cmp_extra) for figures keyed
 *            items cannot express: 1 when filled (both profiles hold the type), 0 nothing to add,
 *            -1 out of memory, -2 the two cannot be compared (the reason in refusal, one line).
 *   folded   its table as folded stacks (`report --format folded`, folded.h): the *recorded*
 *            counts (sampled ones in a bursty profile, never estimates), every row whatever
 *            --top, so that the counts sum to the type's totals. NULL: the type cannot be folded.
 *   diff_rows  its entries named portably for `hotprof diff` (diff.h): one (name, weight) line per
 *            member added to rows (a call pair as "caller;callee"), names from hp_rt_portable_name
 *            so that rebuilds of one program match; weights the shares of its report table are
 *            of. Equal names are merged by diff. 0, or -1 out of memory. NULL: not diffed.
 *   merge_add  `hotprof merge` (merge/merge.h): adds input i's table (m->in[i]) into acc, with every
 *            address rebased (hp_merge_addr, hp_merge_return_addr) and every block guard remapped
 *            (hp_merge_guard); counts saturate (hp_merge_accumulate). 0, or -1 after hp_merge_fail.
 *   merge_write  writes acc's merged table as the sections of the merged thread (profbuild.h).
 *            0, or -1 after hp_merge_fail. A type without merge_add is dropped (with a note).
 *   html     its table for `report --format html` (analysis/html/html.h: escape every name; start
 *            with its hp_html_heading). NULL: the page shows its `text` table preformatted.
 *   graph    its members as nodes (self weights) or edges (call counts) of the call graph the
 *            HTML report's icicle is drawn from (analysis/html/callgraph.h). NULL: none.
 *   pprof    its table as pprof samples (`report --format pprof`, analysis/pprof/export.h): declares
 *            its sample types (hp_pprof_sample_type), calls hp_pprof_export_sampling with its HPS
 *            type, and adds every row as a sample of recorded counts, locations from
 *            hp_pprof_export_location, leaf first. 0, or -1 out of memory. NULL: not exported.
 *   live_text  one row of its live view (`hotprof top`, analysis/live.h) as the member's name,
 *            into buf (always NUL-terminated). NULL: live.c's generic text (the row's pcs as a
 *            path `function file:line → file:line`, else its keys in hex).
 *   fold_rank  which type `--format folded` (or pprof) exports when no --type is given: of the types with a
 *            folded hook and rank > 0, the highest-ranked one whose table has rows (else the
 *            highest-ranked). 0: only on request.
 * Text, JSON and folded hooks return 0, or -1 when out of memory.
 *
 * Adding a profile type on the analysis side (after its core descriptor, core/ptype/):
 *   1. its output slot in hp_profile (profile.h), e.g. `hp_foo_stat *foos; size_t nfoos;`;
 *   2. src/analysis/ptype/foo.c: decode (its records -> acc), finish (acc -> p->foos), release,
 *      rows, and whichever report/compare hooks it has, then `const hp_aptype hp_aptype_foo`;
 *   3. one line in registry.c. The reader's shape check takes `record_size` from the core
 *      descriptor; report.c, compare.c and hp_profile_free need no edit.
 */
#ifndef HOTPROF_ANALYSIS_PTYPE_APTYPE_H
#define HOTPROF_ANALYSIS_PTYPE_APTYPE_H
#include <stdio.h>
#include "analysis/compare.h"
#include "analysis/folded.h"
#include "analysis/html/callgraph.h"
#include "analysis/pprof/export.h"
#include "analysis/reader.h"
#include "analysis/report.h"
#include "core/ptype/ptype.h"
#include "core/format/live.h"

struct hp_merge;
struct hp_pbuild;

typedef struct hp_aptype {
    int id; /* enum hp_ptype_id: hp_ptypes[id] is its core descriptor */
    /* reader */
    int (*decode)(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s);
    int (*check)(hp_reader *r, size_t index, const hp_section_ref *s);
    int (*finish)(hp_reader *r, hp_apt_acc *acc);
    void (*release)(hp_profile *p);
    size_t (*rows)(const hp_profile *p);
    /* report */
    int (*wanted)(const hp_report_opts *o);
    int (*shown)(const hp_profile *p, const hp_report_opts *o);
    int (*text)(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
    int (*json)(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
    int (*text_totals)(char *buf, size_t len, const hp_profile *p); /* chars written, 0 = none */
    int (*json_totals)(FILE *out, const hp_profile *p);             /* 1 if it wrote members */
    int (*sampling_text)(FILE *out, const hp_profile *p); /* its own header "sampling" line(s), 1 if any */
    const char *distinct;      /* text word for the distinct count, or NULL */
    const char *json_distinct; /* JSON totals key for the distinct count, or NULL */
    /* compare */
    const hp_cmp_view *views;
    size_t nviews;
    int (*compare_extra)(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len);
    /* export */
    int (*folded)(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
    int fold_rank;
    int (*pprof)(hp_pprof_export *x);
    /* diff */
    int (*diff_rows)(hp_fold *rows, const hp_profile *p, hp_symbolizer *s);
    /* merge */
    int (*merge_add)(struct hp_merge *m, hp_apt_acc *acc, size_t i);
    int (*merge_write)(struct hp_merge *m, struct hp_pbuild *b, const hp_apt_acc *acc);
    /* html report */
    int (*html)(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o);
    int (*graph)(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s);
    /* top */
    void (*live_text)(char *buf, size_t n, const hp_live_shm_row *r, hp_symbolizer *s);
} hp_aptype;

/* Every analysis profile type, indexed by core id; NULL-terminated after HP_PT_COUNT entries. */
extern const hp_aptype *const hp_aptypes[HP_PT_COUNT + 1];
/* The exports that take one profile type (`report --format folded|pprof --type TYPE`). */
typedef enum hp_export_kind { HP_EXPORT_FOLDED, HP_EXPORT_PPROF } hp_export_kind;
/* The type called name (a registry name or synonym) if it has the export's hook, else NULL. */
const hp_aptype *hp_aptype_export_named(const char *name, hp_export_kind k);
/* No --type: of the types with the hook and fold_rank > 0, the highest-ranked one whose table has
 * rows, else the highest-ranked; NULL if none. */
const hp_aptype *hp_aptype_export_default(const hp_profile *p, hp_export_kind k);
/* 0 if name can be exported so; else -1 and one message naming the types that can. */
int hp_aptype_export_check(const char *name, hp_export_kind k, char *msg, size_t len);
/* 1 if t's table belongs in the report of p with options o (text, JSON, HTML): with o->fold_type
 * (--type TYPE) only TYPE's; otherwise as its wanted and shown hooks say. */
int hp_aptype_shown(const hp_aptype *t, const hp_profile *p, const hp_report_opts *o);
/* 1 if p holds type t: rows, or a section of its type. */
int hp_aptype_held(const hp_aptype *t, const hp_profile *p);
/* "methods, callpairs, ..." (every registered type's name) into buf. */
void hp_aptype_names(char *buf, size_t len);
/* The type whose records fill section type sec / whose SUMMARY id is id; NULL if none. */
const hp_aptype *hp_aptype_by_section(uint32_t sec);
const hp_aptype *hp_aptype_by_summary(uint32_t id);

#endif

/* callgraph.h — the weighted call graph the icicle is drawn from (icicle.h), filled by the profile
 * types' `graph` hooks (aptype.h): a type adds self weights of named functions (methods: heat) or
 * caller -> callee counts (callpairs), without knowing the other types.
 *
 * Names are the report's symbolized names; equal names are one node (weights and counts add,
 * saturating). hp_cg_resolve turns what was added into nodes sorted by name (bytewise) and edges
 * by node index, so the result does not depend on the order of the additions.
 */
#ifndef HOTPROF_ANALYSIS_HTML_CALLGRAPH_H
#define HOTPROF_ANALYSIS_HTML_CALLGRAPH_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/folded.h"
#include "analysis/html/icicle.h"

typedef struct hp_callgraph {
    hp_fold self, calls; /* what the hooks added: "name" weight, "caller;callee" count */
    /* after hp_cg_resolve: */
    char **names; size_t n;      /* sorted, distinct (names[i] points into the folds) */
    double *weight;              /* self weight per node */
    hp_icicle_edge *edges; size_t nedges;
} hp_callgraph;

void hp_cg_init(hp_callgraph *g);
void hp_cg_free(hp_callgraph *g);
/* 0, or -1 out of memory. A weight or count of 0 adds nothing. */
int hp_cg_add_self(hp_callgraph *g, const char *name, uint64_t weight);
int hp_cg_add_call(hp_callgraph *g, const char *caller, const char *callee, uint64_t count);
/* Builds names, weight and edges from what was added. 0, or -1 out of memory. */
int hp_cg_resolve(hp_callgraph *g);

#endif

/* icicle.h — an icicle (top-down flame graph) from a weighted call graph, for the HTML report.
 *
 * Our profiles hold call pairs, not stacks, so the stacks are reconstructed:
 *   - nodes are functions with a self weight w(f) (heat: calls + back-edges), edges caller -> callee
 *     with a count (call-pair events);
 *   - recursion is cut: self-calls are dropped, and a depth-first search from the functions no one
 *     calls (then from the rest, in node order) drops every edge back to a function on the current
 *     path, which leaves a DAG; the search order is fixed, so the result is deterministic;
 *   - a callee's weight is distributed over its (remaining) callers in proportion to their call
 *     counts: share(u -> v) = count(u, v) / sum of count(x, v) over v's callers;
 *   - inclusive weight I(u) = w(u) + sum over callees v of share(u -> v) * I(v);
 *   - the roots are the functions with no remaining caller; the top frame "all" is as wide as the
 *     sum of I over the roots, which equals the sum of every w (each weight flows to the roots);
 *   - a frame of u of width W has one child per callee v of width W * share(u -> v) * I(v) / I(u),
 *     so children never exceed their parent, and over the whole icicle the exclusive width of u's
 *     frames (width - children) sums to w(u) when nothing is cut.
 * Cuts: frames deeper than max_depth, narrower than min_fraction of the total, or beyond
 * max_frames are not drawn (their weight stays in the parent's exclusive part). A profile type
 * with real stacks would produce frames directly and skip this construction.
 * Invariants: on a path from the top no node appears twice; frames are in depth-first preorder,
 * children in node order, each child's x within its parent's [x, x + width).
 */
#ifndef HOTPROF_ANALYSIS_HTML_ICICLE_H
#define HOTPROF_ANALYSIS_HTML_ICICLE_H
#include <stddef.h>

#define HP_ICICLE_TOP ((size_t)-1) /* the node of the synthetic top frame "all" */

typedef struct hp_icicle_edge { size_t caller, callee; double count; } hp_icicle_edge;

typedef struct hp_icicle_frame {
    size_t node;   /* node index, or HP_ICICLE_TOP */
    size_t parent; /* frame index of the parent; HP_ICICLE_TOP for the top frame */
    int depth;     /* 0 for the top frame */
    double x, width; /* in weight units, 0 <= x, x + width <= total */
} hp_icicle_frame;

typedef struct hp_icicle_opts { int max_depth; double min_fraction; size_t max_frames; } hp_icicle_opts;

typedef struct hp_icicle {
    hp_icicle_frame *frames; size_t n;
    double total;      /* width of the top frame: the sum of the self weights */
    double *inclusive; /* I(u) per node */
} hp_icicle;

#define HP_ICICLE_DEFAULT_OPTS ((hp_icicle_opts){48, 0.0005, 20000})

/* Builds the icicle of nnodes nodes with self weights self[] (>= 0) and edges[] (any order;
 * duplicates add, counts <= 0 and indexes out of range are ignored). 0, or -1 out of memory. */
int hp_icicle_build(size_t nnodes, const double *self, const hp_icicle_edge *edges, size_t nedges,
                    const hp_icicle_opts *o, hp_icicle *out);
void hp_icicle_free(hp_icicle *ic);

#endif

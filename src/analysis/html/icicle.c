/* icicle.c — the icicle construction of icicle.h: merge the edges into a CSR graph, cut recursion
 * with a depth-first search (back edges dropped), compute inclusive weights in post-order, then
 * expand frames from the roots, splitting each frame's width over its callees' shares.
 */
#include "analysis/html/icicle.h"
#include <stdlib.h>
#include <string.h>

typedef struct graph {
    size_t n, ne;
    size_t *start;       /* edges of u: e[start[u] .. start[u + 1]) */
    hp_icicle_edge *e;   /* sorted by (caller, callee), merged */
    unsigned char *kept; /* 0: a back edge (recursion), dropped */
    double *insum;       /* sum of kept incoming counts */
    size_t *post;        /* nodes in DFS post-order */
} graph;

static int by_caller_callee(const void *a, const void *b)
{
    const hp_icicle_edge *x = a, *y = b;
    if (x->caller != y->caller) return x->caller < y->caller ? -1 : 1;
    return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Valid edges sorted and merged into g->e, indexed by g->start. */
static int load_edges(graph *g, const hp_icicle_edge *edges, size_t nedges)
{
    size_t k = 0;
    g->e = malloc((nedges + 1) * sizeof *g->e);
    g->start = calloc(g->n + 2, sizeof *g->start);
    if (!g->e || !g->start) return -1;
    for (size_t i = 0; i < nedges; i++) {
        const hp_icicle_edge *x = &edges[i];
        if (x->caller < g->n && x->callee < g->n && x->caller != x->callee && x->count > 0) g->e[k++] = *x;
    }
    if (k > 1) qsort(g->e, k, sizeof *g->e, by_caller_callee);
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if (w && g->e[w - 1].caller == g->e[i].caller && g->e[w - 1].callee == g->e[i].callee)
            g->e[w - 1].count += g->e[i].count;
        else
            g->e[w++] = g->e[i];
    }
    g->ne = w;
    for (size_t i = 0; i < w; i++) g->start[g->e[i].caller + 1]++;
    for (size_t u = 0; u < g->n; u++) g->start[u + 1] += g->start[u];
    return 0;
}

/* One DFS from s: edges to a node on the stack (grey) are back edges; post-order appended. */
static void dfs(graph *g, size_t s, unsigned char *color, size_t *stack, size_t *pos, size_t *npost)
{
    size_t top = 0;
    stack[top] = s, pos[top] = g->start[s], color[s] = 1;
    while (top != (size_t)-1) {
        size_t u = stack[top];
        if (pos[top] == g->start[u + 1]) {
            color[u] = 2, g->post[(*npost)++] = u, top--;
            continue;
        }
        size_t ei = pos[top]++, v = g->e[ei].callee;
        if (color[v] == 1) g->kept[ei] = 0;
        else if (color[v] == 0) top++, stack[top] = v, pos[top] = g->start[v], color[v] = 1;
    }
}

/* Drops back edges (roots first, then the rest in node order) and sums the kept in-counts. */
static int cut_recursion(graph *g)
{
    unsigned char *color = calloc(g->n + 1, 1);
    size_t *stack = malloc((g->n + 1) * sizeof *stack), *pos = malloc((g->n + 1) * sizeof *pos), npost = 0;
    g->kept = malloc(g->ne + 1), g->insum = calloc(g->n + 1, sizeof *g->insum);
    g->post = malloc((g->n + 1) * sizeof *g->post);
    int rc = color && stack && pos && g->kept && g->insum && g->post ? 0 : -1;
    if (!rc) {
        memset(g->kept, 1, g->ne + 1);
        for (size_t i = 0; i < g->ne; i++) g->insum[g->e[i].callee] += g->e[i].count;
        for (int pass = 0; pass < 2; pass++)
            for (size_t u = 0; u < g->n; u++)
                if (!color[u] && (pass || g->insum[u] == 0)) dfs(g, u, color, stack, pos, &npost);
        memset(g->insum, 0, (g->n + 1) * sizeof *g->insum);
        for (size_t i = 0; i < g->ne; i++)
            if (g->kept[i]) g->insum[g->e[i].callee] += g->e[i].count;
    }
    free(color), free(stack), free(pos);
    return rc;
}

static double share(const graph *g, size_t ei) { return g->e[ei].count / g->insum[g->e[ei].callee]; }

/* I(u) in post-order: every kept callee is finished before its caller. */
static void inclusive_weights(const graph *g, const double *self, double *incl)
{
    for (size_t k = 0; k < g->n; k++) {
        size_t u = g->post[k];
        double s = self[u] > 0 ? self[u] : 0;
        for (size_t ei = g->start[u]; ei < g->start[u + 1]; ei++)
            if (g->kept[ei]) s += share(g, ei) * incl[g->e[ei].callee];
        incl[u] = s;
    }
}

typedef struct expander {
    const graph *g;
    const hp_icicle_opts *o;
    hp_icicle *ic;
    size_t cap;
    unsigned char *on_path;
} expander;

static int push_frame(expander *x, hp_icicle_frame f)
{
    if (x->ic->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 256;
        hp_icicle_frame *fr = realloc(x->ic->frames, cap * sizeof *fr);
        if (!fr) return -1;
        x->ic->frames = fr, x->cap = cap;
    }
    x->ic->frames[x->ic->n++] = f;
    return 0;
}

static int wide_enough(const expander *x, double w)
{
    return w > 0 && w >= x->o->min_fraction * x->ic->total && x->ic->n < x->o->max_frames;
}

/* Frame fi shows node u: adds its children (and theirs) after it. */
static int expand(expander *x, size_t fi, size_t u)
{
    const graph *g = x->g;
    hp_icicle_frame f = x->ic->frames[fi];
    double iu = x->ic->inclusive[u], cx = f.x;
    if (f.depth >= x->o->max_depth || iu <= 0) return 0;
    x->on_path[u] = 1;
    for (size_t ei = g->start[u]; ei < g->start[u + 1]; ei++) {
        size_t v = g->e[ei].callee;
        if (!g->kept[ei] || x->on_path[v]) continue;
        double w = f.width * share(g, ei) * x->ic->inclusive[v] / iu;
        if (wide_enough(x, w)) {
            size_t ci = x->ic->n;
            if (push_frame(x, (hp_icicle_frame){v, fi, f.depth + 1, cx, w}) || expand(x, ci, v)) return -1;
        }
        cx += w;
    }
    x->on_path[u] = 0;
    return 0;
}

static int expand_roots(expander *x, const graph *g)
{
    double cx = 0;
    if (push_frame(x, (hp_icicle_frame){HP_ICICLE_TOP, HP_ICICLE_TOP, 0, 0, x->ic->total})) return -1;
    for (size_t u = 0; u < g->n; u++) {
        double w = x->ic->inclusive[u];
        if (g->insum[u] > 0) continue;
        if (wide_enough(x, w)) {
            size_t ci = x->ic->n;
            if (push_frame(x, (hp_icicle_frame){u, 0, 1, cx, w}) || expand(x, ci, u)) return -1;
        }
        cx += w;
    }
    return 0;
}

int hp_icicle_build(size_t nnodes, const double *self, const hp_icicle_edge *edges, size_t nedges,
                    const hp_icicle_opts *o, hp_icicle *out)
{
    graph g = {.n = nnodes};
    expander x = {&g, o, out, 0, calloc(nnodes + 1, 1)};
    int rc = -1;
    *out = (hp_icicle){0};
    out->inclusive = calloc(nnodes + 1, sizeof *out->inclusive);
    if (x.on_path && out->inclusive && !load_edges(&g, edges, nedges) && !cut_recursion(&g)) {
        inclusive_weights(&g, self, out->inclusive);
        for (size_t u = 0; u < nnodes; u++)
            if (g.insum[u] == 0) out->total += out->inclusive[u];
        rc = expand_roots(&x, &g);
    }
    free(g.start), free(g.e), free(g.kept), free(g.insum), free(g.post), free(x.on_path);
    if (rc) hp_icicle_free(out);
    return rc;
}

void hp_icicle_free(hp_icicle *ic)
{
    free(ic->frames), free(ic->inclusive);
    *ic = (hp_icicle){0};
}

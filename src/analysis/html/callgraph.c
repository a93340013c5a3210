/* callgraph.c — the call-graph builder of callgraph.h: additions are kept as folded lines
 * (folded.h: equal lines merge, ';' inside a name becomes '_'), then resolved into sorted node
 * names with their self weights and index-pair edges.
 */
#include "analysis/html/callgraph.h"
#include <stdlib.h>
#include <string.h>

void hp_cg_init(hp_callgraph *g)
{
    *g = (hp_callgraph){0};
    hp_fold_init(&g->self);
    hp_fold_init(&g->calls);
}

void hp_cg_free(hp_callgraph *g)
{
    hp_fold_free(&g->self);
    hp_fold_free(&g->calls);
    free(g->names), free(g->weight), free(g->edges);
    *g = (hp_callgraph){0};
}

int hp_cg_add_self(hp_callgraph *g, const char *name, uint64_t weight)
{
    const char *frames[1] = {name};
    return hp_fold_add(&g->self, frames, 1, weight);
}

int hp_cg_add_call(hp_callgraph *g, const char *caller, const char *callee, uint64_t count)
{
    const char *frames[2] = {caller, callee};
    return hp_fold_add(&g->calls, frames, 2, count);
}

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static size_t index_of(const hp_callgraph *g, const char *name)
{
    char *const *hit = bsearch(&name, g->names, g->n, sizeof *g->names, by_string);
    return hit ? (size_t)(hit - g->names) : 0;
}

/* Every name once, sorted: self lines, then both halves of each call line (split at ';'). */
static int collect_names(hp_callgraph *g)
{
    size_t cap = g->self.n + 2 * g->calls.n, k = 0;
    g->names = malloc((cap + 1) * sizeof *g->names);
    if (!g->names) return -1;
    for (size_t i = 0; i < g->self.n; i++) g->names[k++] = g->self.lines[i].stack;
    for (size_t i = 0; i < g->calls.n; i++) {
        char *line = g->calls.lines[i].stack, *semi = strchr(line, ';');
        *semi = 0; /* every call line has exactly one ';' (the names' own are '_') */
        g->names[k++] = line, g->names[k++] = semi + 1;
    }
    if (k > 1) qsort(g->names, k, sizeof *g->names, by_string);
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
        if (!w || strcmp(g->names[w - 1], g->names[i])) g->names[w++] = g->names[i];
    g->n = w;
    return 0;
}

int hp_cg_resolve(hp_callgraph *g)
{
    hp_fold_merge(&g->self);
    hp_fold_merge(&g->calls);
    if (collect_names(g)) return -1;
    g->weight = calloc(g->n + 1, sizeof *g->weight);
    g->edges = malloc((g->calls.n + 1) * sizeof *g->edges);
    if (!g->weight || !g->edges) return -1;
    for (size_t i = 0; i < g->self.n; i++) g->weight[index_of(g, g->self.lines[i].stack)] = (double)g->self.lines[i].count;
    for (size_t i = 0; i < g->calls.n; i++) {
        const char *caller = g->calls.lines[i].stack, *callee = caller + strlen(caller) + 1;
        g->edges[i] = (hp_icicle_edge){index_of(g, caller), index_of(g, callee), (double)g->calls.lines[i].count};
    }
    g->nedges = g->calls.n;
    return 0;
}

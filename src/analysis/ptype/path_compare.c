/* path_compare.c — the path section of `hotprof compare A B` (path.h, compare.h hp_cmp_extra).
 * As every section of compare, A is the estimate (a sampled or shadow profile) and B the reference
 * (exhaustive). Figure: Wall's weight-matching accuracy (shadow-profiling.txt §4.2, Eq. 1;
 * core/metrics/shadow.h hp_wall_accuracy) over the top 5% of B's distinct paths: the share of the
 * reference's hot-path flow that A's equally many hottest paths recover. Paths match by key (the
 * hash of the guard sequence and length: both profiles must come from one build). Also: the keys
 * found in both (`common`).
 */
#define _GNU_SOURCE
#include "analysis/ptype/path.h"
#include "analysis/pairmap.h"
#include "core/metrics/shadow.h"
#include <stdlib.h>
#include <string.h>

/* p's paths as (key, count) items; NULL out of memory. */
static hp_metric_item *items_of(const hp_profile *p)
{
    hp_metric_item *it = malloc((p->npaths + 1) * sizeof *it);
    for (size_t i = 0; it && i < p->npaths; i++) it[i] = (hp_metric_item){p->paths[i].key, (double)p->paths[i].count};
    return it;
}

static size_t common_keys(const hp_profile *a, const hp_profile *b, int *oom)
{
    hp_pairmap keys = {0};
    size_t n = 0;
    for (size_t i = 0; i < b->npaths && !*oom; i++) *oom = !hp_pairmap_get(&keys, b->paths[i].key, 0);
    for (size_t i = 0; i < a->npaths && !*oom; i++) n += hp_pairmap_find(&keys, a->paths[i].key, 0) != NULL;
    hp_pairmap_free(&keys);
    return n;
}

int hp_path_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len)
{
    (void)refusal, (void)len;
    if (!a->npaths || !b->npaths) return 0;
    hp_metric_item *ia = items_of(a), *ib = items_of(b), *scratch = malloc((a->npaths + b->npaths + 1) * sizeof *scratch);
    int oom = !ia || !ib || !scratch;
    size_t common = oom ? 0 : common_keys(a, b, &oom);
    if (!oom) {
        memset(x, 0, sizeof *x);
        x->id = "path", x->title = "paths (Wall weight matching)";
        x->note = "accuracy: share of B's top-5% path flow held by A's equally many hottest paths (B the reference)";
        double acc = hp_wall_accuracy(ib, b->npaths, ia, a->npaths, HP_WALL_PAPER_TOP_FRACTION, scratch);
        x->values[x->nvalues++] = (hp_cmp_extra_value){"wall_accuracy", "Wall accuracy, top 5%", acc, 100};
        x->common = common;
    }
    free(ia), free(ib), free(scratch);
    return oom ? -1 : 1;
}

/* subpath_compare.c — the subpath section of `hotprof compare SAMPLED EXACT` (subpath.h,
 * compare.h hp_cmp_extra): keys are compared directly, so both profiles must use one encoding
 * (subpath.params enc=; else the comparison is refused with one message). Both profiles are ranked
 * by rank_estimate (the estimate; with counting samples times the counted share, subpath.h; an
 * exact profile's estimate is its count), highest first, ties by key.
 * Figures: recall_5 / recall_10 = |sampled top k ∩ exact top k| / min(k, exact subpaths);
 * ranks[i] = the exact rank (1-based) of the sampled rank i+1 of the top 10, 0 = absent from the
 * exact profile; hottest_error = |estimate - exact| / exact (%) of the exact hottest subpath
 * (estimate 0 when the sample misses it); mean_error_10 = the same error averaged over the exact
 * top 10; bounds_hit_5 = the share of the exact top 5 whose exact count lies inside the sampled
 * estimate's two-sided 95% bounds (a subpath the sample misses is a miss).
 */
#define _GNU_SOURCE
#include "analysis/ptype/subpath.h"
#include "analysis/pairmap.h"
#include "analysis/rtable.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_estimate(const void *a, const void *b, void *ctx)
{
    const hp_profile *p = ctx;
    const hp_subpath_stat *x = &p->subpaths[*(const size_t *)a], *y = &p->subpaths[*(const size_t *)b];
    if (x->rank_estimate != y->rank_estimate) return x->rank_estimate > y->rank_estimate ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* One profile ranked by rank_estimate: order[r] = its row of rank r + 1; ranks: key -> (rank, 0). */
typedef struct ranking { const hp_profile *p; size_t *order; hp_pairmap ranks; } ranking;

static int rank_profile(const hp_profile *p, ranking *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    if (!(r->order = hp_rt_order(p->nsubpaths, cmp_estimate, (void *)p))) return -1;
    for (size_t i = 0; i < p->nsubpaths; i++) {
        hp_pair_item *it = hp_pairmap_get(&r->ranks, p->subpaths[r->order[i]].key, 0);
        if (!it) return -1;
        if (!it->v1) it->v1 = i + 1;
    }
    return 0;
}

static void ranking_free(ranking *r)
{
    free(r->order);
    hp_pairmap_free(&r->ranks);
}

/* 1-based rank of key in r, 0 if absent. */
static size_t rank_in(const ranking *r, uint64_t key)
{
    const hp_pair_item *it = hp_pairmap_find(&r->ranks, key, 0);
    return it ? (size_t)it->v1 : 0;
}

static const hp_subpath_stat *at_rank(const ranking *r, size_t rank) { return &r->p->subpaths[r->order[rank - 1]]; }

static double recall(const ranking *a, const ranking *b, size_t k)
{
    size_t kb = k < b->p->nsubpaths ? k : b->p->nsubpaths, hit = 0;
    for (size_t i = 1; i <= kb; i++) {
        size_t r = rank_in(a, at_rank(b, i)->key);
        hit += r && r <= k;
    }
    return kb ? (double)hit / (double)kb : 0;
}

static double error_pct(double estimate, double exact) { return exact > 0 ? 100.0 * fabs(estimate - exact) / exact : 0; }

static void add(hp_cmp_extra *x, const char *key, const char *label, double v, double scale)
{
    x->values[x->nvalues++] = (hp_cmp_extra_value){key, label, v, scale};
}

static void fill(const ranking *a, const ranking *b, hp_cmp_extra *x)
{
    size_t nb = b->p->nsubpaths, top = nb < 10 ? nb : 10, hit5 = 0, n5 = nb < 5 ? nb : 5;
    double err_sum = 0, hottest = 0;
    for (size_t i = 1; i <= top; i++) {
        const hp_subpath_stat *e = at_rank(b, i);
        size_t r = rank_in(a, e->key);
        const hp_subpath_stat *s = r ? at_rank(a, r) : NULL;
        double err = error_pct(s ? s->estimate : 0, e->estimate);
        err_sum += err;
        if (i == 1) hottest = err;
        if (i <= n5 && s) {
            hp_subpath_bounds bd = hp_subpath_bounds_of(a->p, s);
            hit5 += e->estimate >= bd.lo95 && e->estimate <= bd.hi95;
        }
    }
    add(x, "recall_5", "top-5 recall", recall(a, b, 5), 100);
    add(x, "recall_10", "top-10 recall", recall(a, b, 10), 100);
    add(x, "hottest_error", "hottest count error", hottest, 1);
    add(x, "mean_error_10", "mean count error, exact top 10", top ? err_sum / (double)top : 0, 1);
    add(x, "bounds_hit_5", "exact top 5 inside 95% bounds", n5 ? (double)hit5 / (double)n5 : 0, 100);
    x->list_key = "ranks", x->list_label = "exact rank of sampled top 10";
    for (size_t i = 1; i <= a->p->nsubpaths && i <= 10; i++) x->list[x->nlist++] = (long)rank_in(b, at_rank(a, i)->key);
    for (size_t i = 0; i < a->p->nsubpaths; i++) x->common += rank_in(b, a->p->subpaths[i].key) != 0;
}

int hp_subpath_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len)
{
    char ea[16], eb[16];
    if (!a->nsubpaths || !b->nsubpaths) return 0;
    const char *enc_a = hp_subpath_param(a, "enc", ea, sizeof ea, "xor");
    const char *enc_b = hp_subpath_param(b, "enc", eb, sizeof eb, "xor");
    if (strcmp(enc_a, enc_b)) {
        snprintf(refusal, len, "subpaths of %s use enc=%s, of %s enc=%s: their keys cannot be compared (record both "
                 "with one enc)", a->name, enc_a, b->name, enc_b);
        return -2;
    }
    ranking ra = {0}, rb = {0};
    int rc = rank_profile(a, &ra) || rank_profile(b, &rb) ? -1 : 1;
    if (rc == 1) {
        memset(x, 0, sizeof *x);
        x->id = "subpath", x->title = "subpaths";
        x->note = "recall: share of the exact top k in the sampled top k; errors: |estimate - exact| / exact";
        fill(&ra, &rb, x);
    }
    ranking_free(&ra);
    ranking_free(&rb);
    return rc;
}

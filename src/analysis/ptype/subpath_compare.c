/* subpath_compare.c — the subpath section of `hotprof compare SAMPLED EXACT` (subpath.h,
 * compare.h hp_cmp_extra): keys are compared directly, so both profiles must use one encoding
 * (subpath.params enc=; else the comparison is refused with one message). Both profiles are ranked
 * by estimate (an exact profile's estimate is its count), highest first, ties by key.
 * Figures: recall_5 / recall_10 = |sampled top k ∩ exact top k| / min(k, exact subpaths);
 * ranks[i] = the exact rank (1-based) of the sampled rank i+1 of the top 10, 0 = absent from the
 * exact profile; hottest_error = |estimate - exact| / exact (%) of the exact hottest subpath
 * (estimate 0 when the sample misses it); mean_error_10 = the same error averaged over the exact
 * top 10; bounds_hit_5 = the share of the exact top 5 whose exact count lies inside the sampled
 * estimate's two-sided 95% bounds (a subpath the sample misses is a miss).
 */
#define _GNU_SOURCE
#include "analysis/ptype/subpath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Indexes of p->subpaths by estimate, highest first. NULL out of memory. */
static size_t *by_estimate(const hp_profile *p)
{
    size_t *o = malloc((p->nsubpaths + 1) * sizeof *o);
    if (!o) return NULL;
    for (size_t i = 0; i < p->nsubpaths; i++) {
        size_t k = i; /* insertion sort: lists are at most a few thousand entries */
        const hp_subpath_stat *x = &p->subpaths[i];
        for (; k > 0; k--) {
            const hp_subpath_stat *y = &p->subpaths[o[k - 1]];
            if (y->estimate > x->estimate || (y->estimate == x->estimate && y->key < x->key)) break;
            o[k] = o[k - 1];
        }
        o[k] = i;
    }
    return o;
}

/* 1-based position of key in order (of p), 0 if absent. */
static size_t rank_of(const hp_profile *p, const size_t *order, uint64_t key)
{
    for (size_t i = 0; i < p->nsubpaths; i++)
        if (p->subpaths[order[i]].key == key) return i + 1;
    return 0;
}

static double recall(const hp_profile *a, const size_t *oa, const hp_profile *b, const size_t *ob, size_t k)
{
    size_t kb = k < b->nsubpaths ? k : b->nsubpaths, hit = 0;
    for (size_t i = 0; i < kb; i++) {
        size_t r = rank_of(a, oa, b->subpaths[ob[i]].key);
        hit += r && r <= k;
    }
    return kb ? (double)hit / (double)kb : 0;
}

static double error_pct(double estimate, double exact) { return exact > 0 ? 100.0 * fabs(estimate - exact) / exact : 0; }

static void add(hp_cmp_extra *x, const char *key, const char *label, double v, double scale)
{
    x->values[x->nvalues++] = (hp_cmp_extra_value){key, label, v, scale};
}

static void fill(const hp_profile *a, const size_t *oa, const hp_profile *b, const size_t *ob, hp_cmp_extra *x)
{
    size_t top = b->nsubpaths < 10 ? b->nsubpaths : 10, hit5 = 0, n5 = b->nsubpaths < 5 ? b->nsubpaths : 5;
    double err_sum = 0, hottest = 0;
    for (size_t i = 0; i < top; i++) {
        const hp_subpath_stat *e = &b->subpaths[ob[i]];
        size_t r = rank_of(a, oa, e->key);
        const hp_subpath_stat *s = r ? &a->subpaths[oa[r - 1]] : NULL;
        double err = error_pct(s ? s->estimate : 0, e->estimate);
        err_sum += err;
        if (i == 0) hottest = err;
        if (i < n5 && s) {
            hp_subpath_bounds bd = hp_subpath_bounds_of(a, s);
            hit5 += e->estimate >= bd.lo95 && e->estimate <= bd.hi95;
        }
    }
    add(x, "recall_5", "top-5 recall", recall(a, oa, b, ob, 5), 100);
    add(x, "recall_10", "top-10 recall", recall(a, oa, b, ob, 10), 100);
    add(x, "hottest_error", "hottest count error", hottest, 1);
    add(x, "mean_error_10", "mean count error, exact top 10", top ? err_sum / (double)top : 0, 1);
    add(x, "bounds_hit_5", "exact top 5 inside 95% bounds", n5 ? (double)hit5 / (double)n5 : 0, 100);
    x->list_key = "ranks", x->list_label = "exact rank of sampled top 10";
    for (size_t i = 0; i < a->nsubpaths && i < 10; i++)
        x->list[x->nlist++] = (long)rank_of(b, ob, a->subpaths[oa[i]].key);
    for (size_t i = 0; i < a->nsubpaths; i++) x->common += rank_of(b, ob, a->subpaths[i].key) != 0;
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
    size_t *oa = by_estimate(a), *ob = by_estimate(b);
    if (!oa || !ob) return free(oa), free(ob), -1;
    memset(x, 0, sizeof *x);
    x->id = "subpath", x->title = "subpaths";
    x->note = "recall: share of the exact top k in the sampled top k; errors: |estimate - exact| / exact";
    fill(a, oa, b, ob, x);
    free(oa), free(ob);
    return 1;
}

/* items.c — the profile items every metric takes (key, weight), their sorting and the helpers the metric families share (definitions and citations in items.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/items.h"
#include <math.h>
#include <string.h>

/* ---- sorting ------------------------------------------------------------------------------- */

/* Strict "a comes before b" for the two orders we need. */
static int before_by_key(const hp_metric_item *a, const hp_metric_item *b)
{
    return a->key < b->key;
}

static int before_by_weight(const hp_metric_item *a, const hp_metric_item *b)
{
    if (a->weight != b->weight) return a->weight > b->weight;
    return a->key < b->key;
}

typedef int (*item_before_fn)(const hp_metric_item *, const hp_metric_item *);

static void swap_items(hp_metric_item *a, hp_metric_item *b)
{
    hp_metric_item t = *a;
    *a = *b;
    *b = t;
}

/* Max-heap by "comes last" so that popping the root fills the array from the back. */
static void sift_down(hp_metric_item *v, size_t root, size_t n, item_before_fn before)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && before(&v[child], &v[child + 1])) child++;
        if (!before(&v[root], &v[child])) return;
        swap_items(&v[root], &v[child]);
        root = child;
    }
}

static void heapsort_items(hp_metric_item *v, size_t n, item_before_fn before)
{
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n, before);
    for (size_t end = n - 1; end > 0; end--) {
        swap_items(&v[0], &v[end]);
        sift_down(v, 0, end, before);
    }
}

void hp_metric_sort_by_key(hp_metric_item *items, size_t n)
{
    heapsort_items(items, n, before_by_key);
}

void hp_metric_sort_by_weight(hp_metric_item *items, size_t n)
{
    heapsort_items(items, n, before_by_weight);
}

double hp_metric_total(const hp_metric_item *items, size_t n)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++) total += items[i].weight;
    return total;
}

/* ---- shared helpers ------------------------------------------------------------------------ */

/* Copies src into dst sorted heaviest first and returns how many have weight > 0 (a prefix). */
size_t hp_metric_copy_heaviest_first(hp_metric_item *dst, const hp_metric_item *src, size_t n)
{
    if (n) memcpy(dst, src, n * sizeof *src);
    hp_metric_sort_by_weight(dst, n);
    size_t positive = 0;
    while (positive < n && dst[positive].weight > 0.0) positive++;
    return positive;
}

/* Length of the smallest heaviest-first prefix whose weight reaches share * total. A relative
 * slack of 1e-12 keeps 0.9 * 10 from demanding a tenth item through rounding. */
size_t hp_metric_covering_prefix(const hp_metric_item *sorted, size_t n, double total, double share)
{
    double need = share * total * (1.0 - 1e-12);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += sorted[i].weight;
        if (sum >= need) return i + 1;
    }
    return n;
}

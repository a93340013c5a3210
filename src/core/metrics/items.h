/* items.h — the profile items every metric takes (key, weight), their sorting and the helpers the metric families share.
 *
 * Invariants: Pure C11: no allocation (in-place heapsorts), no globals. Ties in weight are broken by ascending key.
 */
#ifndef HOTPROF_CORE_METRICS_ITEMS_H
#define HOTPROF_CORE_METRICS_ITEMS_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_metric_item {
    uint64_t key;
    double weight; /* count, time, or any non-negative weight; integral counts are exact < 2^53 */
} hp_metric_item;

/* In-place heapsorts (no allocation, unlike some qsort implementations). */
void hp_metric_sort_by_key(hp_metric_item *items, size_t n);
/* Heaviest first; equal weights by ascending key. */
void hp_metric_sort_by_weight(hp_metric_item *items, size_t n);
double hp_metric_total(const hp_metric_item *items, size_t n);

/* Shared by the metric families (items.c). */
/* Copies src into dst sorted heaviest first and returns how many have weight > 0 (a prefix). */
size_t hp_metric_copy_heaviest_first(hp_metric_item *dst, const hp_metric_item *src, size_t n);
/* Length of the smallest heaviest-first prefix whose weight reaches share * total. */
size_t hp_metric_covering_prefix(const hp_metric_item *sorted, size_t n, double total, double share);
static inline size_t hp_metric_min_size(size_t a, size_t b) { return a < b ? a : b; }

#endif

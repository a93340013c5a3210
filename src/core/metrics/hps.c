/* hps.c — HPS overlap (hps-hybrid-profiling-support.txt, Section 5, after Feller) (definitions and citations in hps.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/hps.h"
#include <math.h>
#include <string.h>

/* ---- HPS overlap --------------------------------------------------------------------------- */

/* Selects a's covering prefix in dst (sorted by key, weights turned into contributions). */
static size_t select_contributions(hp_metric_item *dst, const hp_metric_item *src, size_t n,
                                   double coverage, enum hp_overlap_denominator denom)
{
    size_t positive = hp_metric_copy_heaviest_first(dst, src, n);
    double total = hp_metric_total(dst, positive);
    if (total <= 0.0) return 0;
    size_t selected = hp_metric_covering_prefix(dst, positive, total, coverage);
    double denominator = total;
    if (denom == HP_OVERLAP_RENORMALIZED) denominator = hp_metric_total(dst, selected);
    for (size_t i = 0; i < selected; i++) dst[i].weight /= denominator;
    hp_metric_sort_by_key(dst, selected);
    return selected;
}

double hp_overlap(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb,
                  double coverage, enum hp_overlap_denominator denom, hp_metric_item *scratch)
{
    hp_metric_item *sa = scratch, *sb = scratch + na;
    size_t la = select_contributions(sa, a, na, coverage, denom);
    size_t lb = select_contributions(sb, b, nb, coverage, denom);
    if (la == 0 && lb == 0) return 1.0;
    double overlap = 0.0;
    size_t i = 0, j = 0;
    while (i < la && j < lb) {
        if (sa[i].key < sb[j].key) {
            i++;
        } else if (sb[j].key < sa[i].key) {
            j++;
        } else {
            overlap += fmin(sa[i].weight, sb[j].weight);
            i++;
            j++;
        }
    }
    return overlap;
}

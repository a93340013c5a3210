/* agreement.h — plain top-k and threshold (heavy-hitter) agreement: precision, recall, Kendall tau-b rank agreement, mean relative error.
 *
 * Invariants: Inputs are never written; scratch holds copies.
 */
#ifndef HOTPROF_CORE_METRICS_AGREEMENT_H
#define HOTPROF_CORE_METRICS_AGREEMENT_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"

/* ---- Top-k agreement ---------------------------------------------------------------------------
 * T_exact / T_est = the k heaviest members (weight > 0) of each profile. precision = |T_exact ∩
 * T_est| / |T_est|, recall = |∩| / |T_exact| (an empty set gives 1 for its own ratio). Rank
 * agreement: Kendall tau-b between the two profiles' weights over the common members (ties count
 * neither concordant nor discordant); 1 = same order, -1 = reversed; defined as 1 for one common
 * member (or all ties in both), 0 for none. scratch: n_exact + n_est items. */
typedef struct hp_topk_agreement {
    size_t k_exact, k_est, common;
    double precision, recall, kendall_tau;
} hp_topk_agreement;
int hp_topk_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                    size_t n_est, size_t k, hp_metric_item *scratch, hp_topk_agreement *out);

/* ---- Threshold (heavy-hitter) agreement --------------------------------------------------------
 * True heavy set: exact members with weight >= phi * stream_total; reported set: estimated members
 * with estimate >= phi * stream_total (stream_total = length of the stream, i.e. the exact total,
 * passed in so that `exact` may be a truncated profile holding every key of interest). precision
 * and recall as for top-k. mean_rel_error = mean over reported members of |est - exact| /
 * max(exact, 1) (a reported key absent from `exact` has exact count 0). scratch: n_exact + n_est. */
typedef struct hp_heavy_agreement {
    size_t n_true, n_reported, n_correct;
    double precision, recall, mean_rel_error;
} hp_heavy_agreement;
int hp_heavy_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                     size_t n_est, double phi, double stream_total, hp_metric_item *scratch,
                     hp_heavy_agreement *out);

#endif

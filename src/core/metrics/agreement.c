/* agreement.c — plain top-k and threshold (heavy-hitter) agreement: precision, recall, Kendall tau-b rank agreement, mean relative error (definitions and citations in agreement.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/agreement.h"
#include <math.h>
#include <string.h>

/* ---- Top-k and threshold agreement ----------------------------------------------------------- */

static int sign_of(double x) { return (x > 0.0) - (x < 0.0); }

/* Kendall tau-b over m pairs (wa[i].weight, wb[i].weight). */
static double kendall_tau_b(const hp_metric_item *wa, const hp_metric_item *wb, size_t m)
{
    if (m == 0) return 0.0;
    double concordant = 0.0, discordant = 0.0, ties_a = 0.0, ties_b = 0.0, pairs = 0.0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = i + 1; j < m; j++) {
            int sa = sign_of(wa[i].weight - wa[j].weight);
            int sb = sign_of(wb[i].weight - wb[j].weight);
            pairs += 1.0;
            if (sa == 0) ties_a += 1.0;
            if (sb == 0) ties_b += 1.0;
            if (sa * sb > 0) concordant += 1.0;
            if (sa * sb < 0) discordant += 1.0;
        }
    }
    double denominator = sqrt((pairs - ties_a) * (pairs - ties_b));
    if (denominator <= 0.0) return 1.0;
    return (concordant - discordant) / denominator;
}

/* Walks two key-sorted arrays; for the c-th common key stores its two weights in a[c], b[c]
 * (c never passes the read positions, so this is safe in place). Returns the count. */
static size_t gather_common(hp_metric_item *a, size_t na, hp_metric_item *b, size_t nb)
{
    size_t common = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i].key < b[j].key) {
            i++;
        } else if (b[j].key < a[i].key) {
            j++;
        } else {
            a[common] = a[i++];
            b[common] = b[j++];
            common++;
        }
    }
    return common;
}

static double ratio_or_one(size_t num, size_t den)
{
    return den ? (double)num / (double)den : 1.0;
}

int hp_topk_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                    size_t n_est, size_t k, hp_metric_item *scratch, hp_topk_agreement *out)
{
    if (!out) return -1;
    hp_metric_item *sx = scratch, *se = scratch + n_exact;
    out->k_exact = hp_metric_min_size(k, hp_metric_copy_heaviest_first(sx, exact, n_exact));
    out->k_est = hp_metric_min_size(k, hp_metric_copy_heaviest_first(se, est, n_est));
    hp_metric_sort_by_key(sx, out->k_exact);
    hp_metric_sort_by_key(se, out->k_est);
    out->common = gather_common(sx, out->k_exact, se, out->k_est);
    out->precision = ratio_or_one(out->common, out->k_est);
    out->recall = ratio_or_one(out->common, out->k_exact);
    out->kendall_tau = kendall_tau_b(sx, se, out->common);
    return 0;
}

/* Moves members with weight >= cut to the front of v (order kept); returns their count. */
static size_t keep_at_least(hp_metric_item *v, size_t n, double cut)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].weight >= cut && v[i].weight > 0.0) v[kept++] = v[i];
    return kept;
}

/* Mean of |est - exact| / max(exact, 1) over the n reported members (both arrays key-sorted;
 * exact may hold more keys). */
static double mean_relative_error(const hp_metric_item *exact, size_t n_exact,
                                  const hp_metric_item *reported, size_t n)
{
    if (n == 0) return 0.0;
    double sum = 0.0;
    size_t i = 0;
    for (size_t j = 0; j < n; j++) {
        while (i < n_exact && exact[i].key < reported[j].key) i++;
        double truth = (i < n_exact && exact[i].key == reported[j].key) ? exact[i].weight : 0.0;
        sum += fabs(reported[j].weight - truth) / fmax(truth, 1.0);
    }
    return sum / (double)n;
}

static size_t count_common(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb)
{
    size_t common = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i].key < b[j].key) {
            i++;
        } else if (b[j].key < a[i].key) {
            j++;
        } else {
            common++;
            i++;
            j++;
        }
    }
    return common;
}

int hp_heavy_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                     size_t n_est, double phi, double stream_total, hp_metric_item *scratch,
                     hp_heavy_agreement *out)
{
    if (!out) return -1;
    hp_metric_item *sx = scratch, *se = scratch + n_exact;
    double cut = phi * stream_total;
    if (n_exact) memcpy(sx, exact, n_exact * sizeof *exact);
    if (n_est) memcpy(se, est, n_est * sizeof *est);
    hp_metric_sort_by_key(sx, n_exact);
    size_t n_reported = keep_at_least(se, n_est, cut);
    hp_metric_sort_by_key(se, n_reported);
    out->mean_rel_error = mean_relative_error(sx, n_exact, se, n_reported);
    size_t n_true = keep_at_least(sx, n_exact, cut);
    out->n_true = n_true;
    out->n_reported = n_reported;
    out->n_correct = count_common(sx, n_true, se, n_reported);
    out->precision = ratio_or_one(out->n_correct, n_reported);
    out->recall = ratio_or_one(out->n_correct, n_true);
    return 0;
}

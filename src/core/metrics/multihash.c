/* multihash.c — the multi-hash weighted error E of one interval and its mean over intervals (multihash-catching-accurate-profiles-in-hardware.txt, Sections 5.5.1-5.5.2, Eq. 1) (definitions and citations in multihash.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/multihash.h"
#include <math.h>
#include <string.h>

/* ---- Multi-hash weighted error -------------------------------------------------------------- */

/* Books one tuple (f_p, f_h) into its Figure 3 category. */
static void classify_tuple(hp_multihash_error *e, double f_p, int perfect_in, double f_h,
                           int hw_in)
{
    if (!perfect_in && !hw_in) return;
    double err = fabs(f_p - f_h);
    e->n_candidates++;
    if (hw_in && !perfect_in) {
        e->fp += err;
        e->n_fp++;
    } else if (perfect_in && !hw_in) {
        e->fn += err;
        e->n_fn++;
    } else if (f_h > f_p) {
        e->np += err;
        e->n_np++;
    } else if (f_h < f_p) {
        e->nn += err;
        e->n_nn++;
    } else {
        e->n_exact++;
    }
    e->total += f_p; /* the denominator, divided out at the end */
}

static void divide_error(hp_multihash_error *e)
{
    double denominator = e->total;
    double numerator = e->fp + e->fn + e->np + e->nn;
    if (e->n_candidates == 0) {
        e->total = 0.0;
        return;
    }
    if (denominator <= 0.0) {
        e->total = INFINITY;
        return;
    }
    e->fp /= denominator;
    e->fn /= denominator;
    e->np /= denominator;
    e->nn /= denominator;
    e->total = numerator / denominator;
}

int hp_multihash_interval_error(const hp_metric_item *perfect, size_t n_perfect,
                                const hp_metric_item *hw, size_t n_hw, double threshold,
                                hp_metric_item *scratch, hp_multihash_error *out)
{
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    hp_metric_item *sp = scratch, *sh = scratch + n_perfect;
    if (n_perfect) memcpy(sp, perfect, n_perfect * sizeof *perfect);
    if (n_hw) memcpy(sh, hw, n_hw * sizeof *hw);
    hp_metric_sort_by_key(sp, n_perfect);
    hp_metric_sort_by_key(sh, n_hw);
    size_t i = 0, j = 0;
    while (i < n_perfect || j < n_hw) {
        int take_p = j == n_hw || (i < n_perfect && sp[i].key <= sh[j].key);
        int take_h = i == n_perfect || (j < n_hw && sh[j].key <= sp[i].key);
        double f_p = take_p ? sp[i].weight : 0.0;
        double f_h = take_h ? sh[j].weight : 0.0;
        classify_tuple(out, f_p, take_p && f_p >= threshold, f_h, take_h);
        i += (size_t)take_p;
        j += (size_t)take_h;
    }
    divide_error(out);
    return 0;
}

double hp_multihash_mean_error(const double *interval_errors, size_t n_intervals)
{
    if (n_intervals == 0) return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n_intervals; i++) sum += interval_errors[i];
    return sum / (double)n_intervals;
}

/* osp.c — OSP's Chernoff error bounds and estimated counts (osp-online-subpath-profiling.txt, Section 2.3.6, Eqs. 2.14-2.15; Section 4) (definitions and citations in osp.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/osp.h"
#include <math.h>
#include <string.h>

/* ---- OSP Chernoff bounds --------------------------------------------------------------------- */

double hp_osp_chernoff_error(uint64_t sample_count, double confidence, int one_sided)
{
    if (sample_count == 0) return INFINITY;
    double c = one_sided ? 2.0 : 6.0;
    double log_inv_delta = -log(1.0 - confidence);
    return sqrt(c * log_inv_delta / (double)sample_count);
}

double hp_osp_admission_error(uint64_t sample_count, double tau, double confidence, int one_sided)
{
    if (!(tau > 1) || sample_count == 0) return 0;
    double share = one_sided ? 1 + log(confidence) : -log((1 - confidence) / 2) - 1;
    if (share < 1 && !one_sided) share = 1; /* K = 0: the estimate tau - 1 too high */
    return share * tau / (double)sample_count;
}

double hp_osp_estimated_count(uint64_t sample_count, double p_sample, double p_length)
{
    return (double)sample_count / p_sample / p_length;
}

hp_osp_bound hp_osp_count_bound(uint64_t sample_count, double p_sample, double p_length,
                                double confidence, int one_sided)
{
    hp_osp_bound b;
    b.estimate = hp_osp_estimated_count(sample_count, p_sample, p_length);
    b.error = hp_osp_chernoff_error(sample_count, confidence, one_sided);
    b.lower = b.error >= 1.0 ? 0.0 : b.estimate * (1.0 - b.error);
    b.upper = (one_sided || sample_count == 0) ? INFINITY : b.estimate * (1.0 + b.error);
    return b;
}

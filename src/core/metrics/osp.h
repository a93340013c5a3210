/* osp.h — OSP's Chernoff error bounds and estimated counts (osp-online-subpath-profiling.txt, Section 2.3.6, Eqs. 2.14-2.15; Section 4).
 *
 * Invariants: Closed forms, no state.
 */
#ifndef HOTPROF_CORE_METRICS_OSP_H
#define HOTPROF_CORE_METRICS_OSP_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"

/* ---- OSP Chernoff error bounds ----------------------------------------------------------------
 * OSP Section 2.3.6, Eq. 2.14 (two-sided):  Pr(x ∉ (1 ± eps) E(x)) <= exp(-eps^2 E(x) / 6)
 *                    Eq. 2.15 (one-sided):  bound exp(-eps^2 E(x) / 2)
 * Solving exp(...) = 1 - confidence for eps with the observed sample count x standing in for E(x),
 * as the paper's Tables 4.9/4.10 do:  eps = sqrt(c * ln(1 / (1 - confidence)) / x), c = 6 or 2.
 * (The tables used ln(1/0.05) ~= 3: count 109 -> 40.64% / 23.46% at 95%, 29.76% / 17.18% at 80%.)
 * x = 0 gives INFINITY. Two-sided: with the stated confidence the true count lies within
 * estimate * (1 ± eps). One-sided is the direction the paper needs to report a subpath as hot
 * ("if the subpath is hotter than we assume, it does not matter"): with the stated confidence the
 * true count is at least estimate * (1 - eps); no upper bound is claimed. */
double hp_osp_chernoff_error(uint64_t sample_count, double confidence, int one_sided);
/* Counting samples (core/summary/osplist.h): the samples a held subpath had before the list
 * admitted it are estimated as tau - 1; their true number K is geometric (success 1/tau), so the
 * estimate carries a further relative error, added to the Chernoff one. Two-sided: K beyond its
 * (1 + c) / 2 quantile, -ln((1 - c) / 2) x tau, overshoots tau - 1 by (-ln((1 - c) / 2) - 1) x tau
 * (which also covers K = 0 for c >= 0.73); one-sided (a lower bound: the estimate too high): K
 * below its 1 - c quantile, -ln(c) x tau, falls short by (1 + ln c) x tau. Over x samples;
 * tau <= 1 or x = 0 gives 0 (no admission under way, or nothing to bound). */
double hp_osp_admission_error(uint64_t sample_count, double tau, double confidence, int one_sided);
/* Section 4 (Table 4.8 text): estimated count = sample count / sampling probability / a-priori
 * probability of the path's length (for length 2^n, 1/2^n). E.g. 27006 / (1/1000) / (1/4). */
double hp_osp_estimated_count(uint64_t sample_count, double p_sample, double p_length);
typedef struct hp_osp_bound {
    double estimate; /* hp_osp_estimated_count */
    double error;    /* relative error eps */
    double lower;    /* estimate * (1 - eps), at least 0 */
    double upper;    /* estimate * (1 + eps); INFINITY when one-sided or x = 0 */
} hp_osp_bound;
hp_osp_bound hp_osp_count_bound(uint64_t sample_count, double p_sample, double p_length,
                                double confidence, int one_sided);

#endif

/* multihash.h — the multi-hash weighted error E of one interval and its mean over intervals (multihash-catching-accurate-profiles-in-hardware.txt, Sections 5.5.1-5.5.2, Eq. 1).
 *
 * Invariants: fp + fn + np + nn == total; inputs are never written.
 */
#ifndef HOTPROF_CORE_METRICS_MULTIHASH_H
#define HOTPROF_CORE_METRICS_MULTIHASH_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"

/* ---- Multi-hash weighted error E of one interval ----------------------------------------------
 * Multi-hash Sections 5.5.1-5.5.2. A tuple is a candidate of the perfect profiler when its true
 * interval frequency f_p >= T (the candidate threshold frequency; "Out" = below T) and a candidate
 * of the hardware profiler when it is in `hw` (the tuples the profiler identified, with their
 * hardware frequencies f_h). Over the n tuples that are candidates of either:
 *     E = sum_i (|f_p_i - f_h_i| / f_p_i) * f_p_i / sum_i f_p_i = sum_i |f_p_i - f_h_i| / sum_i f_p_i
 * (Eq. 1: E_i weighted by f_p_i). A false negative has f_h = 0; a false positive's f_p is its true
 * frequency in `perfect` (0 when absent). E splits exactly into the four categories:
 *     FP  hw In,  perfect Out          FN  hw Out, perfect In
 *     NP  both In, f_h > f_p           NN  both In, f_h < f_p      (both In, f_h = f_p: no error)
 * fp + fn + np + nn == total. No candidates at all: E = 0. Candidates whose true frequencies are
 * all 0 (only phantom hardware tuples): E = INFINITY.
 * perfect: every tuple seen in the interval with its true count (tuples below T may be omitted,
 * except that a hardware candidate missing from it is taken to have f_p = 0).
 * scratch: n_perfect + n_hw items. Returns 0, or -1 on a NULL out. */
typedef struct hp_multihash_error {
    double total, fp, fn, np, nn;  /* E and its four additive parts */
    size_t n_candidates;           /* n of Eq. 1 */
    size_t n_fp, n_fn, n_np, n_nn, n_exact;
} hp_multihash_error;
int hp_multihash_interval_error(const hp_metric_item *perfect, size_t n_perfect,
                                const hp_metric_item *hw, size_t n_hw, double threshold,
                                hp_metric_item *scratch, hp_multihash_error *out);
/* "The final net error rate is calculated as a simple average over the error rates seen by all
 * intervals" (Section 5.5.2). 0 for no intervals. */
double hp_multihash_mean_error(const double *interval_errors, size_t n_intervals);

#endif

/* metrics.h — accuracy metrics that compare a sampled/estimated profile with the exact one, each
 * implemented with the definition of the paper it comes from (see docs/metrics.md).
 *
 *   hp_overlap                 HPS (hps-hybrid-profiling-support.txt, Section 5, after Feller [13])
 *   hp_multihash_interval_error  Multi-hash (multihash-...-hardware.txt, Sections 5.5.1-5.5.2, Eq. 1)
 *   hp_wall_accuracy           Shadow profiling (shadow-profiling.txt, Section 4.2, Eq. 1)
 *   hp_diff_top                Shadow profiling (shadow-profiling.txt, Section 4.3, "Diff-Top")
 *   hp_osp_*                   OSP (osp-online-subpath-profiling.txt, Section 2.3.6, Eqs. 2.14-2.15,
 *                              and Section 4 / Tables 4.9-4.10 for the estimate and error figures)
 *   hp_topk_compare, hp_heavy_compare   plain top-k / threshold precision, recall, rank agreement
 *
 * Invariants: pure C11, no globals, no system calls and no allocation. Inputs are const; every
 * function that must reorder data copies it into a caller-supplied scratch array whose required
 * length is stated on the function. Profiles are unordered arrays of (key, weight) with distinct
 * keys; weights are >= 0. Ties in weight are always broken by ascending key, so every result is
 * deterministic.
 */
#ifndef HOTPROF_CORE_METRICS_H
#define HOTPROF_CORE_METRICS_H
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

/* ---- HPS overlap ------------------------------------------------------------------------------
 * HPS Section 5 ("To evaluate accuracy ..."): "We select the top members of the profile such that
 * their combined total accounts for 90% of the total profile. We then compute the contribution
 * percentage of each member in the profile total. Finally, we calculate the overlap of two
 * profiles by iterating over all members of the profiles. For each member, we add the minimum of
 * its contribution percentage to both profiles."
 * Read as: in EACH profile separately, take the smallest prefix of its members sorted heaviest
 * first whose weight reaches `coverage` (paper: 0.9) of that profile's total; a member's
 * contribution is weight / (total of the whole profile) — HP_OVERLAP_PAPER — or, as an option,
 * weight / (total of the selected members) — HP_OVERLAP_RENORMALIZED. Overlap = sum over members
 * selected in both of min(contribution in a, contribution in b); a member selected in only one
 * profile adds min(c, 0) = 0. Symmetric in (a, b). Result in [0, 1]. With HP_OVERLAP_PAPER two
 * identical profiles score the share the selected members hold (>= coverage, 1.0 only when
 * coverage = 1); with HP_OVERLAP_RENORMALIZED they score 1.0. Empty profile(s): 0 (1 if both
 * empty). scratch: na + nb items. */
enum hp_overlap_denominator { HP_OVERLAP_PAPER = 0, HP_OVERLAP_RENORMALIZED = 1 };
#define HP_OVERLAP_PAPER_COVERAGE 0.9
double hp_overlap(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb,
                  double coverage, enum hp_overlap_denominator denom, hp_metric_item *scratch);

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

/* ---- Shadow profiling: Wall weight matching ---------------------------------------------------
 * Shadow Section 4.2, Eq. 1:  accuracy = sum_{p in H_est ∩ H_act} F_act(p) / sum_{p in H_act} F_act(p)
 * F_act(p) = count(p) / total count (the normalization cancels). H_act = the hottest `top_fraction`
 * (paper: 5%) of the distinct paths of the exact profile: ceil(top_fraction * n) of its n members
 * with weight > 0 (at least 1). H_est = the same NUMBER of hottest members of the estimated
 * profile. Asymmetric: `actual` is the reference. Empty actual: 1 if est is empty too, else 0.
 * scratch: n_actual + n_est items. */
#define HP_WALL_PAPER_TOP_FRACTION 0.05
double hp_wall_accuracy(const hp_metric_item *actual, size_t n_actual, const hp_metric_item *est,
                        size_t n_est, double top_fraction, hp_metric_item *scratch);

/* ---- Shadow profiling: Diff-Top --------------------------------------------------------------
 * Shadow Section 4.3: for each instruction present in both profiles, invariance = (times its
 * top-most TNV value was observed) / (times the instruction executed); Diff-Top = the average of
 * |inv_perfect - inv_sampled| weighted by the perfect profile's execution count. Lower is better;
 * identical profiles give 0. As the paper words it, only the invariances are compared (the two top
 * values need not be the same value). No common instruction: 0 with *n_common = 0.
 * scratch: n_perfect + n_sampled sites. n_common may be NULL. */
typedef struct hp_value_site {
    uint64_t pc;
    uint64_t executions; /* times the instruction executed (in this profile) */
    uint64_t top_value;  /* its top-most TNV value */
    uint64_t top_count;  /* times top_value was observed; <= executions */
} hp_value_site;
double hp_diff_top(const hp_value_site *perfect, size_t n_perfect, const hp_value_site *sampled,
                   size_t n_sampled, hp_value_site *scratch, size_t *n_common);

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

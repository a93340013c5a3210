/* shadow.h — shadow profiling's metrics: Wall weight matching (Section 4.2, Eq. 1) and Diff-Top (Section 4.3) (shadow-profiling.txt).
 *
 * Invariants: Asymmetric: the exact profile is the reference; inputs are never written.
 */
#ifndef HOTPROF_CORE_METRICS_SHADOW_H
#define HOTPROF_CORE_METRICS_SHADOW_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"

/* ---- Shadow profiling: Wall weight matching ---------------------------------------------------
 * Shadow Section 4.2, Eq. 1:  accuracy = sum_{p in H_est ∩ H_act} F_act(p) / sum_{p in H_act} F_act(p)
 * F_act(p) = count(p) / total count (the normalization cancels). H_act = the hottest `top_fraction`
 * (paper: 5%) of the distinct paths of the exact profile: ceil(top_fraction * n) of its n members
 * with weight > 0 (at least 1). H_est = the same NUMBER of hottest members of the estimated
 * profile. Asymmetric: `actual` is the reference. Empty actual: 1 if est is empty too, else 0.
 * Ties at a cut-off (members weighing as much as the last one taken, on either side) are taken in
 * a uniformly random order and the value is its expectation: each tied member is in with
 * probability (places left) / (members tied), so the result does not depend on how the keys
 * happen to sort (a 6-way tie for the one place of a small profile gave 0 or 1 by key order
 * before). Without ties it is the paper's value.
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

/* ---- Shadow profiling: the native event rate of a shadow's calibration (docs/shadow.md, Coverage)
 * A shadow first runs the program's clean code with count mode's trampolines counting entries and
 * loop back-edges, in windows of about 1 ms of its CPU time. Each window gives a rate (events per
 * ns); the fastest window counts: the slower ones carry the shadow's first copy-on-write faults
 * and other kernel time that a native run does not pay there. The trampolines' own cost
 * (`count_ns` per counted event, measured by the shadow) comes off each window's time first, but
 * at most (1 - 1/HP_SHADOW_RATE_MAX_CUT) of it: natively, count mode's trampolines at most double
 * the time of the densest code (a chain of read-modify-writes of one word, ~1 ns an event), so a
 * larger cut is the measurement's noise. Windows shorter than HP_SHADOW_RATE_MIN_NS are
 * ignored. */
#define HP_SHADOW_RATE_MIN_NS 200000u
#define HP_SHADOW_RATE_MAX_CUT 2u
typedef struct hp_shadow_rate {
    uint64_t best_events, best_ns; /* the fastest window so far (0, 0: none) */
} hp_shadow_rate;
/* One window of `events` over `ns` of CPU time, of which `count_ns` per event was counting. */
void hp_shadow_rate_window(hp_shadow_rate *r, uint64_t events, uint64_t ns, double count_ns);
/* The native ns that `events` (the same kind: entries + back-edges) stand for; 0 if no window. */
double hp_shadow_rate_native_ns_of(const hp_shadow_rate *r, uint64_t events);

#endif

/* metrics.h — the umbrella of the accuracy metrics that compare a sampled/estimated profile with the exact one, each
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
 * One file per paper's metric family: items (shared), hps, multihash, shadow, osp, agreement.
 * Invariants: pure C11, no globals, no system calls and no allocation. Inputs are const; every
 * function that must reorder data copies it into a caller-supplied scratch array whose required
 * length is stated on the function. Profiles are unordered arrays of (key, weight) with distinct
 * keys; weights are >= 0. Ties in weight are always broken by ascending key, so every result is
 * deterministic.
 */
#ifndef HOTPROF_CORE_METRICS_H
#define HOTPROF_CORE_METRICS_H
#include "core/metrics/items.h"
#include "core/metrics/hps.h"
#include "core/metrics/multihash.h"
#include "core/metrics/shadow.h"
#include "core/metrics/osp.h"
#include "core/metrics/agreement.h"
#endif

/* hps.h — HPS overlap (hps-hybrid-profiling-support.txt, Section 5, after Feller).
 *
 * Invariants: Symmetric in its two profiles; scratch holds copies, inputs are never written.
 */
#ifndef HOTPROF_CORE_METRICS_HPS_H
#define HOTPROF_CORE_METRICS_HPS_H
#include <stddef.h>
#include <stdint.h>
#include "core/metrics/items.h"

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

#endif

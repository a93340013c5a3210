/* window_plan.h — the schedule of patched bursts (runtime/ctl/bursts.c) from HPS's per-type period S
 * and burst B (docs/bursty.md, "Patched bursts").
 *
 * Patched bursts switch every hook on or off at once, so one global schedule serves all types:
 *   - the schedule type is the enabled type (among those asked for) with the highest frequency
 *     f = B/(B+S) (the lowest type index wins a tie);
 *   - a window takes W = max(B, min_window) units of it (switching costs, so a window is not tiny);
 *   - the off phase lasts S' = round(W * S / B) units, so that W/(W+S') = B/(B+S) = f;
 *   - a type t of lower frequency f_t records in every k_t-th window, k_t = round(f / f_t)
 *     (k = 1 when f / f_t < 1.5; at most 10^6), so its share of windows follows its frequency.
 * Invariants of a plan made from at least one enabled type: window >= 1, window >= burst;
 * every[type] == 1; every[t] == 0 exactly for the types not enabled or not asked for.
 *
 * Pure C11: no globals, no allocation.
 */
#ifndef HOTPROF_CORE_WINDOW_PLAN_H
#define HOTPROF_CORE_WINDOW_PLAN_H
#include <stdint.h>
#include "core/control/bursty.h"

#define HP_WINDOW_PLAN_MAX_EVERY 1000000u

typedef struct hp_window_plan {
    uint32_t type;                      /* the schedule type */
    uint32_t burst, period, jitter_pct; /* its B (>= 1), S and jitter */
    uint32_t window;                    /* W: units per window */
    uint32_t every[HP_BURSTY_NTYPES];   /* type t records in every every[t]-th window (0: never) */
    uint64_t off_units;                 /* S': units the off phase should last */
} hp_window_plan;

/* The plan for p[HP_BURSTY_NTYPES] (enabled flags included) restricted to the `types` bits, with
 * windows of at least min_window (>= 1) units. 0, or -1 (plan zeroed) if none of them is enabled. */
int hp_window_plan_make(const hp_bursty_params p[HP_BURSTY_NTYPES], uint32_t types, uint32_t min_window,
                        hp_window_plan *out);

/* The types that record in window number w (w >= 1). */
uint32_t hp_window_plan_mask(const hp_window_plan *plan, uint64_t w);

#endif

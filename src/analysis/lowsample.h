/* analysis/lowsample.h — how many samples a sampled profile rests on, and the one-line warning
 * when they are too few for its estimates to mean anything (issue 14: XRay runs at 1/1000 gave
 * 1-30 samples and no warning). A profile is sampled when its INFO mode is bursty (live HPS
 * counters), patch (patched bursts, dual sites included) or xray, or any other mode whose runtime
 * records "<mode>.sampled_entries"; its samples are the boundary events it recorded, INFO
 * total.calls + total.backedges, plus total.loads + total.stores when the datastream type was on
 * (its samples are data references: a datastream-only run was warned "only 0 samples").
 * Exhaustive, timer and shadow profiles are never warned about, nor is a profile whose INFO
 * sample.<type>.enabled says no HPS type was on (subpaths alone).
 */
#ifndef HOTPROF_ANALYSIS_LOWSAMPLE_H
#define HOTPROF_ANALYSIS_LOWSAMPLE_H

#include "analysis/profile.h"
#include <stdint.h>
#include <stdio.h>

/* Fewer recorded samples than this: the warning is printed. */
#define HP_MIN_MEANINGFUL_SAMPLES 1000

/* 1 if p holds sampled counts (see the header), its recorded samples in *samples. */
int hp_profile_samples(const hp_profile *p, uint64_t *samples);

/* What to do about it: the second line of the warning (text report, `hotprof run`). */
#define HP_LOW_SAMPLE_HINT "sample more often (smaller period, longer burst) or run longer"

/* The warning text for p in buf, under 90 characters for counts below the threshold so that the
 * report header's line fits 100 columns ("" and 0 when p is not sampled or has enough samples);
 * 1 if there is one. */
int hp_low_sample_warning(const hp_profile *p, char *buf, size_t len);

#endif

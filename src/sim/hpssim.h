/* hpssim.h — `hotprof sim hps`: replays a `calls` trace (function entries <fn, site>, loop
 * back-edges <fn, 0>) through the HPS bursty controller (core/control/bursty.h) offline, one
 * controller per thread as the runtime keeps them, and scores the sampled methods and call-pairs
 * profiles against the trace's exact ones with the HPS overlap (core/metrics/hps.h).
 *
 * Methods count calls and back-edges of a function (Figure 5, P3); call pairs count calls
 * (P2). Invariants: events are mapped once to dense method and pair ids shared by the exact and
 * every sampled profile; each (period, burst) replay is one pass and independent of the others.
 */
#ifndef HOTPROF_SIM_HPSSIM_H
#define HOTPROF_SIM_HPSSIM_H
#include <stddef.h>
#include <stdint.h>
#include "sim/trace.h"

typedef struct hp_hpssim_event { uint32_t method, pair; } hp_hpssim_event; /* pair == UINT32_MAX: a back-edge */

typedef struct hp_hpssim_input {
    size_t nthreads;
    hp_hpssim_event **ev;
    size_t *nev;
    size_t nmethods, npairs;
    uint64_t *exact_methods, *exact_pairs; /* counts by id */
} hp_hpssim_input;

typedef struct hp_hpssim_result {
    uint32_t period, burst, jitter;
    double methods, pairs;             /* overlap, paper denominator (coverage 90%) */
    double methods_renorm, pairs_renorm; /* overlap renormalized to the selected members: 1 for identical profiles */
    double frequency;                  /* sampled / boundary events, as replayed */
    uint64_t sampled;
} hp_hpssim_result;

/* 0, or -1 with a message (not a calls trace, out of memory). */
int hp_hpssim_prepare(const hp_trace *tr, hp_hpssim_input *in, char *err, size_t errlen);
void hp_hpssim_input_free(hp_hpssim_input *in);
/* Replays one (period, burst, jitter) with the given seed. 0, or -1 (invalid values, out of memory). */
int hp_hpssim_replay(const hp_hpssim_input *in, uint32_t period, uint32_t burst, uint32_t jitter, uint64_t seed,
                     hp_hpssim_result *r);

#endif

/* mhplot.h — the SVG of `hotprof sim multihash --svg`, after the paper's Figures 10–12: mean
 * error E (percent) against the number of hash tables, one line per setting of the other axes
 * (counters, bits, C, R, retaining, shielding), points in the grid's tables order.
 * Invariant: the output is well-formed standalone XML (every text escaped; only digits and
 * fixed words are printed).
 */
#ifndef HOTPROF_SIM_MHPLOT_H
#define HOTPROF_SIM_MHPLOT_H
#include <stdio.h>
#include "sim/mhsim.h"

/* res holds hp_mhsim_grid_size(g) results in grid order. Returns 0, or -1 on a write error. */
int hp_mhplot_svg(FILE *out, const hp_mhsim_grid *g, const hp_mhsim_result *res, const char *title);

#endif

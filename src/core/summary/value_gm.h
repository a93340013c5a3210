/* value_gm.h — the per-(pc, kind, operand) value hot-list of value sampling (DCPI §2.2): a
 * Gibbons–Matias concise sample of at most HP_VGM_N (value, count) entries in a fixed-size struct.
 *
 * Every captured value is kept with probability 1/tau (tau starts at 1: a list that never
 * overflowed is exact). When a new value would make HP_VGM_N + 1 entries, tau is multiplied by
 * f = HP_VGM_N / (HP_VGM_N - 1) (16/15, the paper's setting) and every count is thinned by
 * binomial(count, 1/f), dropping zeros, until an entry is free. Estimated captures of a value =
 * count * tau; `captures` counts every capture offered (kept or not).
 * Invariants: n <= HP_VGM_N between calls; counts >= 1; tau >= 1. Pure (no allocation, no system
 * calls): usable in a signal handler; the random state lives in the struct.
 */
#ifndef HOTPROF_CORE_SUMMARY_VALUE_GM_H
#define HOTPROF_CORE_SUMMARY_VALUE_GM_H
#include <stdint.h>

#define HP_VGM_N 16u

typedef struct hp_vgm_entry { uint64_t value, count; } hp_vgm_entry;
typedef struct hp_vgm {
    uint64_t captures; /* values offered */
    double tau;        /* keep probability is 1/tau */
    uint64_t rng;      /* splitmix64 state */
    uint32_t n;        /* entries held */
    uint32_t pad;
    hp_vgm_entry e[HP_VGM_N];
} hp_vgm;

void hp_vgm_init(hp_vgm *g, uint64_t seed);
void hp_vgm_add(hp_vgm *g, uint64_t value);
/* The entries, highest count first (ties: lower value first), into out[HP_VGM_N]; returns n. */
uint32_t hp_vgm_sorted(const hp_vgm *g, hp_vgm_entry *out);

#endif

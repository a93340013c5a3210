/* zipf.h — Zipf key streams for the summary benchmarks (bench/summaries only).
 *
 * Rank r in [1, universe] is drawn with probability proportional to r^-alpha by inverting a
 * precomputed CDF (binary search; the table is built once per alpha, so cost is paid before any
 * timed loop). Ranks are turned into keys by a bijective 64-bit mixer so that hot keys are
 * scattered over the key space the way addresses or path ids are. Deterministic for a seed.
 */
#ifndef HOTPROF_BENCH_ZIPF_H
#define HOTPROF_BENCH_ZIPF_H
#include <stddef.h>
#include <stdint.h>

/* Bijective key of a rank (splitmix64 finalizer on rank + constant). */
uint64_t zipf_key_of_rank(uint64_t rank);
/* Fills keys[0..n) with a Zipf(alpha) stream over `universe` ranks. Returns 0, or -1 on no memory. */
int zipf_fill(uint64_t *keys, size_t n, double alpha, uint32_t universe, uint64_t seed);

#endif

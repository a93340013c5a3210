/* path.h — the path profile type's key (docs/paths.md): how an interprocedural path, a sequence of
 * basic blocks (sanitizer-coverage guard ids, first block first) between two taken back-edges,
 * becomes the 64-bit key of its PATHS record. The runtime builds the key one block at a time as
 * the path grows, so it is a running hash:
 *   h_0 = HP_PATH_SEED;  h_i = hp_mix64(h_{i-1} ^ id_i);  key = hp_mix64(h_L ^ L), or 1 if that is 0.
 * Order-sensitive (the path a→b and b→a differ) and length-sensitive; distinct sequences collide
 * only through 64-bit hash collisions (not detected: docs/paths.md). Key 0 is never produced.
 *
 * Header-only and pure: no state, no allocation.
 */
#ifndef HOTPROF_CORE_PTYPE_PATH_H
#define HOTPROF_CORE_PTYPE_PATH_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/hash.h"

#define HP_PATH_SEED 0x9a7c3e51d2b4f607ull
#define HP_PATH_DEFAULT_MAXLEN 64u
#define HP_PATH_MIN_MAXLEN 2u

static inline uint64_t hp_path_step(uint64_t h, uint32_t id) { return hp_mix64(h ^ id); }

static inline uint64_t hp_path_final(uint64_t h, uint32_t length)
{
    uint64_t k = hp_mix64(h ^ length);
    return k ? k : 1;
}

/* The key of ids[0..n) (the same as stepping through them one by one). */
static inline uint64_t hp_path_key(const uint32_t *ids, size_t n)
{
    uint64_t h = HP_PATH_SEED;
    for (size_t i = 0; i < n; i++) h = hp_path_step(h, ids[i]);
    return hp_path_final(h, (uint32_t)n);
}

#endif

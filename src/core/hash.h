/* hash.h — shared 64-bit mixers and seeded hashes for the bounded summaries.
 *
 * hp_mix64 is the murmur3/splitmix finalizer: a bijection on 64-bit words, so distinct keys
 * never collide before a table index is taken. hp_hash_seeded gives one independent-looking hash
 * per seed (a row of Count-Min, an array of HeavyKeeper). hp_reduce maps a 64-bit hash to
 * [0, n) without division (Lemire's multiply-shift), so table widths need not be powers of two.
 * Header-only, no state.
 *
 * Note: core/exact.h has a *different* mixer, hp_exact_mix64 (shifts of 32, one repeated constant),
 * used by exact, concise, counting and space-saving. The two are not merged because their outputs
 * differ and those summaries' table layouts (hence serialized forms) depend on them; the distinct
 * names keep the two from being confused or colliding.
 */
#ifndef HOTPROF_CORE_HASH_H
#define HOTPROF_CORE_HASH_H
#include <stdint.h>

static inline uint64_t hp_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Inverse of hp_mix64 (used by stream generators to make structured keys look random and back). */
static inline uint64_t hp_unmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0x9cb4b2f8129337dbull; /* inverse of 0xc4ceb9fe1a85ec53 */
    x ^= x >> 33;
    x *= 0x4f74430c22a54005ull; /* inverse of 0xff51afd7ed558ccd */
    x ^= x >> 33;
    return x;
}

static inline uint64_t hp_hash_seeded(uint64_t key, uint64_t seed)
{
    return hp_mix64(key ^ hp_mix64(seed + 0x9e3779b97f4a7c15ull));
}

static inline uint32_t hp_reduce(uint64_t hash, uint32_t n)
{
    return (uint32_t)(((__uint128_t)hash * n) >> 64);
}

#endif

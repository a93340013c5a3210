/* hash.h — the one family of 64-bit mixers and seeded hashes, for the summaries and the runtime.
 *
 * Every mixer is a bijection on 64-bit words (xorshift-multiply rounds), so distinct keys never
 * collide before a table index is taken. Three finalizers, kept because stored layouts and seeds
 * depend on their exact outputs:
 *   hp_mix64      murmur3 fmix64 (shifts 33): Count-Min, HeavyKeeper, data streams, compare keys.
 *   hp_mix64_xmx  shifts of 32, one repeated constant: the home slot of exact, concise, counting
 *                 and space-saving tables.
 *   hp_splitmix64_mix  splitmix64's increment and finalizer: the runtime's run and thread seeds
 *                 (header-only so the runtime need not link core/base/rng.c and libm).
 * hp_hash_seeded gives one independent-looking hash per seed (a row of Count-Min, an array of
 * HeavyKeeper). hp_reduce maps a 64-bit hash to [0, n) without division (Lemire's
 * multiply-shift), so table widths need not be powers of two. Header-only, no state.
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

static inline uint64_t hp_mix64_xmx(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return x;
}

static inline uint64_t hp_splitmix64_mix(uint64_t s)
{
    s += 0x9e3779b97f4a7c15ull;
    s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ull;
    s = (s ^ (s >> 27)) * 0x94d049bb133111ebull;
    return s ^ (s >> 31);
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

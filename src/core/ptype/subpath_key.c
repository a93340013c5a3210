/* subpath_key.c — the subpath encodings of subpath.h: xor and exact (least rotation + hash). */
#include "core/ptype/subpath.h"
#include "core/base/hash.h"

/* Two candidates i < j race; k compares their next characters. The loser jumps past the
 * compared prefix (no rotation starting inside it can be smaller). Ends when a candidate passes n
 * or the rotations are equal for n characters (periodic: the smaller index wins). */
size_t hp_subpath_least_rotation(const uint32_t *ids, size_t n)
{
    size_t i = 0, j = 1, k = 0;
    while (i < n && j < n && k < n) {
        uint32_t a = ids[(i + k) % n], b = ids[(j + k) % n];
        if (a == b) { k++; continue; }
        if (a > b) i += k + 1;
        else j += k + 1;
        if (i == j) j++;
        k = 0;
    }
    return n ? (i < j ? i : j) % n : 0;
}

static void reverse(uint32_t *a, size_t lo, size_t hi) /* [lo, hi) */
{
    while (lo + 1 < hi) {
        uint32_t t = a[lo];
        a[lo++] = a[--hi];
        a[hi] = t;
    }
}

void hp_subpath_canonical(uint32_t *ids, size_t n)
{
    size_t r = hp_subpath_least_rotation(ids, n);
    if (!r) return;
    reverse(ids, 0, r), reverse(ids, r, n), reverse(ids, 0, n); /* rotate left by r */
}

uint64_t hp_subpath_key_xor(const uint32_t *ids, size_t n)
{
    uint64_t k = (uint64_t)n << 40;
    for (size_t i = 0; i < n; i++) k ^= hp_mix64(ids[i]);
    return k ? k : 1;
}

uint64_t hp_subpath_key_exact_canonical(const uint32_t *ids, size_t n)
{
    uint64_t h = hp_mix64((uint64_t)n ^ HP_SUBPATH_EXACT_SEED);
    for (size_t i = 0; i < n; i++) h = hp_mix64(h ^ ids[i]);
    return h ? h : 1;
}

uint64_t hp_subpath_key(int enc, uint32_t *ids, size_t n)
{
    if (enc != HP_SUBPATH_ENC_EXACT) return hp_subpath_key_xor(ids, n);
    hp_subpath_canonical(ids, n);
    return hp_subpath_key_exact_canonical(ids, n);
}

/* blockra.c — the return address -> guard map of block hooks named by their return address
 * (blockra.h: the design, the invariants).
 * State: this file's module slots, written by constructors and destructors (reserve, fill,
 * publish), read lock-free by the hooks.
 */
#include "runtime/blockra.h"
#include "runtime/base.h"

#define MODS_CAP 1024u /* modules with such hooks at most, over the whole run */

typedef struct ra_mod {
    uint64_t lo, hi;               /* return addresses in [lo, hi]; lo > hi: empty or forgotten */
    uint64_t cap;                  /* table size (power of two) */
    uint64_t *keys;                /* return addresses, 0 = empty */
    uint32_t **vals;               /* their guards */
    const hp_blockra_rec *start;   /* the records: which module a fini names */
    uint32_t ready;                /* 1 once the fields above are filled (release) */
} ra_mod;

static ra_mod g_mods[MODS_CAP];
static uint32_t g_nmods; /* slots reserved */

static inline HP_NOINST uint64_t ra_hash(uint64_t ra) { return (ra * 0x9e3779b97f4a7c15ull) >> 32; }
static inline HP_NOINST uint64_t field_target(const int32_t *field) { return (uint64_t)(uintptr_t)field + (int64_t)*field; }

HP_NOINST uint64_t hp_blockra_cap(size_t n)
{
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)n) cap <<= 1;
    return cap;
}

HP_NOINST void hp_blockra_build(const hp_blockra_rec *start, const hp_blockra_rec *stop, uint64_t *keys,
                                uint32_t **vals, uint64_t cap)
{
    for (const hp_blockra_rec *r = start; r < stop; r++) {
        uint64_t ra = field_target(&r->ra);
        for (uint64_t i = ra_hash(ra) & (cap - 1);; i = (i + 1) & (cap - 1)) {
            if (keys[i] == ra) break; /* recorded twice: the first stays */
            if (keys[i]) continue;
            keys[i] = ra;
            vals[i] = (uint32_t *)(uintptr_t)field_target(&r->guard);
            break;
        }
    }
}

HP_NOINST uint32_t *hp_blockra_find(const uint64_t *keys, uint32_t *const *vals, uint64_t cap, uint64_t ra)
{
    for (uint64_t i = ra_hash(ra) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (keys[i] == ra) return vals[i];
        if (!keys[i]) return NULL;
    }
}

HP_NOINST int hp_blockra_register(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    if (!start || stop <= start) return 0;
    size_t n = (size_t)(stop - start);
    uint64_t cap = hp_blockra_cap(n), lo = UINT64_MAX, hi = 0;
    uint64_t *keys = hp_map(cap * sizeof *keys);
    uint32_t **vals = hp_map(cap * sizeof *vals);
    uint32_t slot = __atomic_fetch_add(&g_nmods, 1, __ATOMIC_ACQ_REL);
    if (!keys || !vals || slot >= MODS_CAP) return -1;
    hp_blockra_build(start, stop, keys, vals, cap);
    for (const hp_blockra_rec *r = start; r < stop; r++) {
        uint64_t ra = field_target(&r->ra);
        lo = ra < lo ? ra : lo;
        hi = ra > hi ? ra : hi;
    }
    ra_mod *m = &g_mods[slot];
    *m = (ra_mod){.lo = lo, .hi = hi, .cap = cap, .keys = keys, .vals = vals, .start = start};
    __atomic_store_n(&m->ready, 1, __ATOMIC_RELEASE);
    return 0;
}

HP_NOINST void hp_blockra_unregister(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    if (!start || stop <= start) return;
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MODS_CAP; i++)
        if (__atomic_load_n(&g_mods[i].ready, __ATOMIC_ACQUIRE) && g_mods[i].start == start) {
            __atomic_store_n(&g_mods[i].lo, UINT64_MAX, __ATOMIC_RELEASE);
            __atomic_store_n(&g_mods[i].hi, 0, __ATOMIC_RELEASE);
        }
}

HP_NOINST uint32_t *hp_blockra_guard(uint64_t ra)
{
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MODS_CAP; i++) {
        ra_mod *m = &g_mods[i];
        if (!__atomic_load_n(&m->ready, __ATOMIC_ACQUIRE)) continue;
        if (ra < __atomic_load_n(&m->lo, __ATOMIC_ACQUIRE) || ra > __atomic_load_n(&m->hi, __ATOMIC_ACQUIRE)) continue;
        return hp_blockra_find(m->keys, m->vals, m->cap, ra);
    }
    return NULL;
}

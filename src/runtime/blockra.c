/* blockra.c — the return address -> guard map of block hooks named by their return address
 * (blockra.h: the design, the invariants).
 * State: this file's module slots, written by constructors and destructors (reserve, fill,
 * publish) and, once per module, by the first lookup that builds its table; read lock-free.
 */
#include "runtime/blockra.h"
#include "runtime/base.h"

#define MODS_CAP 1024u /* modules with such hooks at most, over the whole run */

enum { MOD_KNOWN = 1, MOD_BUILDING, MOD_BUILT, MOD_NO_TABLE }; /* 0: not filled yet */

typedef struct ra_mod {
    uint64_t lo, hi;                   /* return addresses in [lo, hi]; lo > hi: forgotten */
    const hp_blockra_rec *start, *stop; /* the records (a fini names the module by start) */
    uint64_t cap;                      /* the table: size (power of two), keys (0 = empty), guards */
    uint64_t *keys;
    uint32_t **vals;
    uint32_t state;                    /* MOD_*: KNOWN once the fields above it are filled */
} ra_mod;

static ra_mod g_mods[MODS_CAP];
static uint32_t g_nmods; /* slots reserved */

static inline HP_NOINST uint64_t ra_hash(uint64_t ra) { return (ra * 0x9e3779b97f4a7c15ull) >> 32; }
static inline HP_NOINST uint64_t field_target(const int32_t *field)
{
    return (uint64_t)(uintptr_t)field + (int64_t)*field;
}

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

/* The first record naming ra, by a scan: while another frame builds the table, or without one. */
static HP_NOINST uint32_t *scan(const hp_blockra_rec *start, const hp_blockra_rec *stop, uint64_t ra)
{
    for (const hp_blockra_rec *r = start; r < stop; r++)
        if (field_target(&r->ra) == ra) return (uint32_t *)(uintptr_t)field_target(&r->guard);
    return NULL;
}

HP_NOINST int hp_blockra_register(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    if (!start || stop <= start) return 0;
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MODS_CAP; i++) /* every object of a link names the same section */
        if (__atomic_load_n(&g_mods[i].state, __ATOMIC_ACQUIRE) && g_mods[i].start == start) return 0;
    uint32_t slot = __atomic_fetch_add(&g_nmods, 1, __ATOMIC_ACQ_REL);
    if (slot >= MODS_CAP) return -1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const hp_blockra_rec *r = start; r < stop; r++) {
        uint64_t ra = field_target(&r->ra);
        lo = ra < lo ? ra : lo;
        hi = ra > hi ? ra : hi;
    }
    ra_mod *m = &g_mods[slot];
    *m = (ra_mod){.lo = lo, .hi = hi, .start = start, .stop = stop};
    __atomic_store_n(&m->state, MOD_KNOWN, __ATOMIC_RELEASE);
    return 0;
}

HP_NOINST void hp_blockra_unregister(const hp_blockra_rec *start, const hp_blockra_rec *stop)
{
    if (!start || stop <= start) return;
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MODS_CAP; i++)
        if (__atomic_load_n(&g_mods[i].state, __ATOMIC_ACQUIRE) && g_mods[i].start == start) {
            __atomic_store_n(&g_mods[i].lo, UINT64_MAX, __ATOMIC_RELEASE);
            __atomic_store_n(&g_mods[i].hi, 0, __ATOMIC_RELEASE);
        }
}

/* The first lookup in a module builds its table (a run that never enters an instrumented copy
 * pays nothing); a lookup that finds it being built, or that could not map one, scans. */
static HP_NOINST uint32_t *lookup(ra_mod *m, uint64_t ra)
{
    uint32_t s = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
    if (HP_LIKELY(s == MOD_BUILT)) return hp_blockra_find(m->keys, m->vals, m->cap, ra);
    if (s != MOD_KNOWN || !__atomic_compare_exchange_n(&m->state, &s, MOD_BUILDING, 0, __ATOMIC_ACQ_REL,
                                                       __ATOMIC_ACQUIRE))
        return scan(m->start, m->stop, ra);
    uint64_t cap = hp_blockra_cap((size_t)(m->stop - m->start));
    m->keys = hp_map(cap * sizeof *m->keys);
    m->vals = hp_map(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        __atomic_store_n(&m->state, MOD_NO_TABLE, __ATOMIC_RELEASE);
        return scan(m->start, m->stop, ra);
    }
    hp_blockra_build(m->start, m->stop, m->keys, m->vals, cap);
    m->cap = cap;
    __atomic_store_n(&m->state, MOD_BUILT, __ATOMIC_RELEASE);
    return hp_blockra_find(m->keys, m->vals, cap, ra);
}

HP_NOINST uint32_t *hp_blockra_guard(uint64_t ra)
{
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MODS_CAP; i++) {
        ra_mod *m = &g_mods[i];
        if (!__atomic_load_n(&m->state, __ATOMIC_ACQUIRE)) continue;
        if (ra < __atomic_load_n(&m->lo, __ATOMIC_ACQUIRE) || ra > __atomic_load_n(&m->hi, __ATOMIC_ACQUIRE)) continue;
        return lookup(m, ra);
    }
    return NULL;
}

HP_NOINST uint32_t hp_blockra_modules(void)
{
    uint32_t n = __atomic_load_n(&g_nmods, __ATOMIC_ACQUIRE);
    return n < MODS_CAP ? n : MODS_CAP;
}

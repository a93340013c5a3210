/* blockmap.c — guard id assignment and the guard -> {pc, flags, fn} map (blockmap.h).
 *
 * State: hp_g.bmap and hp_g.guards (base.h); this file's own, private: the spin lock serializing
 * guard_init/pcs_init and the range of the last guard_init (pcs_init pairs with it).
 * Async-signal-safety: none needed (module constructors); the map is read lock-free elsewhere.
 */
#include "runtime/blockmap.h"
#include <sched.h>

static int g_guard_lock;
static uint32_t *g_last_guard_start, *g_last_guard_stop; /* range of the last guard_init */

static HP_NOINST void guard_lock(void)
{
    while (__atomic_exchange_n(&g_guard_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static HP_NOINST void guard_unlock(void) { __atomic_store_n(&g_guard_lock, 0, __ATOMIC_RELEASE); }

HP_NOINST void hp_blockmap_lock_reset(void) { guard_unlock(); }

/* Make hp_g.bmap hold ids 0..need-1 (copy + publish; the old map stays mapped). */
static HP_NOINST void bmap_reserve(uint64_t need)
{
    hp_bmap *old = hp_g.bmap;
    if (old && old->cap >= need) return;
    uint64_t cap = 1024;
    while (cap < need) cap *= 2;
    hp_bmap *m = hp_map(sizeof(hp_bmap) + cap * sizeof(hp_bentry));
    if (!m) return;
    m->cap = cap;
    for (uint64_t i = 0; old && i < old->cap; i++) m->e[i] = old->e[i];
    HP_STORE_REL(&hp_g.bmap, m);
}

HP_NOINST int hp_blockmap_guard_init(uint32_t *start, uint32_t *stop)
{
    if (start == stop) return 0;
    guard_lock();
    uint32_t next = hp_g.guards;
    for (uint32_t *g = start; g < stop; g++)
        if (*g == 0) *g = ++next;
    bmap_reserve((uint64_t)next + 1);
    HP_STORE_REL(&hp_g.guards, next);
    g_last_guard_start = start;
    g_last_guard_stop = stop;
    guard_unlock();
    return 1;
}

HP_NOINST void hp_blockmap_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end)
{
    guard_lock();
    hp_bmap *m = hp_g.bmap;
    size_t n = (size_t)(pcs_end - pcs_beg) / 2;
    size_t guards = g_last_guard_start ? (size_t)(g_last_guard_stop - g_last_guard_start) : 0;
    uint64_t fn = 0;
    for (size_t i = 0; m && i < n && i < guards; i++) {
        uint32_t id = g_last_guard_start[i];
        uint64_t pc = (uint64_t)pcs_beg[2 * i], flags = (uint64_t)pcs_beg[2 * i + 1];
        if (flags & 1) fn = pc; /* a function's entry block opens its run of blocks */
        if (id >= m->cap) continue;
        HP_STORE_RLX(&m->e[id].flags, flags);
        HP_STORE_RLX(&m->e[id].fn, fn);
        HP_STORE_RLX(&m->e[id].pc, pc);
    }
    guard_unlock();
}

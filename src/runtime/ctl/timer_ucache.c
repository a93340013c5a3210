/* timer_ucache.c — a per-thread cache of unwind steps (timer.h: hp_ucache_*), so that a stack
 * whose every frame has been seen before is taken without libunwind.
 *
 * An entry says, for one pc (and whether it was the interrupted pc, frame 0, or a return address:
 * the CFI rule looked up differs at a function's last byte), that the frame's CFA = its sp + off
 * and the return address is at CFA - 8 (the caller's sp = CFA), or that the frame is the
 * outermost (libunwind's step said 0). Entries are filled only from libunwind's own results, and
 * trusted only after HP_UC_TRUST agreeing sightings; one sighting that disagrees (a frame whose
 * CFA is not rsp-based at a fixed offset: alloca, a realigned stack) marks the pc bad for good.
 * The cached walk reads only [sp, stack top) of the thread's own stack (bounds taken at thread
 * start), so a wrong rule cannot fault; it gives up (0: use libunwind) on any pc not trusted.
 *
 * Not known to the cache: code unloaded and other code loaded at the same address (dlclose)
 * would keep the old rules. HOTPROF_UNWIND_CHECK=1 (a debug setting, docs/timer.md) runs both
 * and counts the stacks that differ (INFO timer.unwind_mismatches), for the tests.
 *
 * Only the owning thread touches its cache (in its handler, and at its start).
 */
#define _GNU_SOURCE
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include "core/base/hash.h"
#include "core/format/format.h"
#include <pthread.h>

#define HP_UC_ENTRIES 4096u
#define HP_UC_TRUST 2u
#define HP_UC_BAD 255u
#define HP_UC_MAX_OFF (1u << 20)

typedef struct hp_uc_entry {
    uint64_t key;   /* pc << 1 | first; 0: empty */
    uint32_t off;   /* CFA - sp; 0: the outermost frame */
    uint8_t seen;   /* agreeing sightings, HP_UC_BAD: never cache */
    uint8_t pad[3];
} hp_uc_entry;

HP_NOINST void hp_ucache_thread_begin(hp_timer_thread *tt)
{
    pthread_attr_t a;
    void *lo = NULL;
    size_t size = 0;
    tt->stack_lo = tt->stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) return;
    if (pthread_attr_getstack(&a, &lo, &size) == 0) tt->stack_lo = (uint64_t)lo, tt->stack_hi = (uint64_t)lo + size;
    pthread_attr_destroy(&a);
    if (!tt->ucache) tt->ucache = hp_map(HP_UC_ENTRIES * sizeof(hp_uc_entry));
}

static HP_NOINST hp_uc_entry *slot(hp_timer_thread *tt, uint64_t key)
{
    hp_uc_entry *e = tt->ucache;
    return &e[hp_splitmix64_mix(key) & (HP_UC_ENTRIES - 1)];
}

/* One sighting: the frame at ip (first: frame 0) with sp has CFA cfa (0: the outermost). */
static HP_NOINST void observe(hp_timer_thread *tt, uint64_t ip, int first, uint64_t cfa, uint64_t sp)
{
    uint64_t key = ip << 1 | (uint64_t)first;
    hp_uc_entry *e = slot(tt, key);
    uint64_t off = cfa ? cfa - sp : 0;
    if (cfa && (cfa <= sp || off > HP_UC_MAX_OFF)) off = ~0ull;
    if (e->key != key) { /* empty or another pc: the newest takes the slot */
        e->key = key, e->off = (uint32_t)off, e->seen = off == ~0ull ? HP_UC_BAD : 1;
        return;
    }
    if (e->seen == HP_UC_BAD) return;
    if (e->off != off) e->seen = HP_UC_BAD;
    else if (e->seen < HP_UC_TRUST) e->seen++;
}

HP_NOINST void hp_ucache_observe(hp_timer_thread *tt, uint64_t ip, int first, uint64_t sp, uint64_t next_sp,
                                 uint64_t next_ip)
{
    if (!tt->ucache || !tt->stack_hi) return;
    /* the return address must be where the cached rule will read it */
    int ok = next_sp >= tt->stack_lo + 8 && next_sp <= tt->stack_hi && next_sp > sp &&
             *(const uint64_t *)(next_sp - 8) == next_ip;
    observe(tt, ip, first, ok ? next_sp : sp, sp); /* !ok: cfa == sp, never cacheable (off ~0) */
}

HP_NOINST void hp_ucache_observe_end(hp_timer_thread *tt, uint64_t ip, int first)
{
    if (tt->ucache) observe(tt, ip, first, 0, 0);
}

HP_NOINST uint32_t hp_ucache_walk(hp_timer_thread *tt, uint64_t ip, uint64_t sp, int first, uint64_t *pcs, uint32_t n,
                                  uint32_t depth, uint16_t *flags)
{
    if (!tt->ucache || sp < tt->stack_lo || sp >= tt->stack_hi) return 0;
    for (;; first = 0) {
        const hp_uc_entry *e = slot(tt, ip << 1 | (uint64_t)first);
        if (e->key != (ip << 1 | (uint64_t)first) || e->seen != HP_UC_TRUST) return 0;
        if (e->off == 0) return *flags = 0, n; /* the outermost frame */
        uint64_t cfa = sp + e->off;
        if (cfa > tt->stack_hi || cfa < sp + 8) return 0;
        ip = *(const uint64_t *)(cfa - 8), sp = cfa;
        if (ip == 0) return *flags = 0, n;
        if (n == depth) return *flags = HP_STACK_TRUNCATED, n;
        pcs[n++] = ip;
    }
}

/* dual_branch.c — latch branches switched with the sites (`hotprof cc --dual-latch=branch`,
 * analysis/latch_asm.h, docs/dual.md "The latch's branch as the site").
 *
 * A module built that way has a __hotprof_dualbr section beside __hotprof_dual: records
 * {int32 rel32 - &rec.field, int32 L - &rec.on, int32 C - &rec.off, u32 0}. The rel32 is a jmp's or
 * jcc's displacement, inside one aligned 8-byte word; it reaches the latch site's block L while
 * sites are on and the code after the site, C, while they are off. Both are correct at any moment
 * (a branch to L runs the site as it is; a branch to C is the site switched off), so these writes
 * need no order with the sites' own: dual.c writes the branches after the sites when switching on
 * and before them when switching off, so that a back-edge skips a site only while it is off.
 * A rel32 is written with one aligned 8-byte store of its word (the other bytes as read), as the
 * sites are; a record whose rel32 crosses its word is never written (counted as unwritable).
 *
 * State (file-static): the module table of branch sections (a module whose every branch was written
 * once skips the page check, as dual.c's sites do), the counts. Every function here runs under
 * dual.c's lock (dual.h hp_dual_branch_*), which also owns the pages made writable; the two counts
 * are also read by hp_dual_info (relaxed loads, async-signal-safe).
 */
#include "runtime/ctl/dual.h"
#include "runtime/base.h"
#include <string.h>

#define BR_MODS_CAP 1024u

static struct {
    const hp_dual_branch_rec *start, *stop;
    int writable; /* every page of its branches made writable: switching checks none */
} g_br[BR_MODS_CAP];
static uint32_t g_nbr;
static uint64_t g_branches, g_unwritable;

static uint64_t at(const int32_t *p) { return (uint64_t)(uintptr_t)p + (uint64_t)(int64_t)*p; }

uint64_t hp_dual_branch_word(uint64_t word, unsigned off, uint32_t rel)
{
    for (unsigned i = 0; i < 4; i++) {
        word &= ~((uint64_t)0xff << (8 * (off + i)));
        word |= (uint64_t)(uint8_t)(rel >> (8 * i)) << (8 * (off + i));
    }
    return word;
}

/* r's rel32 to L (on) or C (off). 0 if it cannot be written. */
static int write_branch(const hp_dual_branch_rec *r, int on, int page_known)
{
    uint64_t field = at(&r->field), to = on ? at(&r->on) : at(&r->off);
    unsigned off = (unsigned)(field & 7);
    if (off > 4 || (!page_known && !hp_dual_page_writable(field))) return 0;
    uint64_t *w = (uint64_t *)(uintptr_t)(field & ~(uint64_t)7);
    uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
    uint64_t word = hp_dual_branch_word(old, off, (uint32_t)(to - (field + 4)));
    if (word != old) __atomic_store_n(w, word, __ATOMIC_RELEASE);
    return 1;
}

static uint64_t switch_module(uint32_t m, int on)
{
    uint64_t n = 0;
    int known = g_br[m].writable; /* (as dual.c's sites: no page scan per branch once all are writable) */
    for (const hp_dual_branch_rec *r = g_br[m].start; r && r < g_br[m].stop; r++)
        n += (uint64_t)write_branch(r, on, known);
    if (g_br[m].start && n == (uint64_t)(g_br[m].stop - g_br[m].start)) g_br[m].writable = 1;
    return n;
}

int hp_dual_branch_add(const void *start, const void *stop, int on)
{
    const hp_dual_branch_rec *a = start, *z = stop;
    if (!a || a >= z) return 0;
    for (uint32_t i = 0; i < g_nbr; i++)
        if (g_br[i].start == a) return 0;
    g_branches += (uint64_t)(z - a);
    if (g_nbr == BR_MODS_CAP) return g_unwritable += (uint64_t)(z - a), 0; /* (never written: off) */
    g_br[g_nbr].start = a, g_br[g_nbr].stop = z, g_br[g_nbr].writable = 0;
    if (on) g_unwritable += (uint64_t)(z - a) - switch_module(g_nbr, 1);
    g_nbr++;
    return 1;
}

void hp_dual_branch_remove(const void *start)
{
    for (uint32_t i = 0; i < g_nbr; i++)
        if (g_br[i].start == start) {
            g_branches -= (uint64_t)(g_br[i].stop - g_br[i].start);
            g_br[i].start = g_br[i].stop = NULL;
            g_br[i].writable = 0;
        }
}

void hp_dual_branch_switch(int on)
{
    uint64_t n = 0;
    for (uint32_t m = 0; m < g_nbr; m++) n += switch_module(m, on);
    if (g_branches >= n) g_unwritable = g_branches - n;
}

uint64_t hp_dual_branch_count(void) { return HP_LOAD_RLX(&g_branches); }
uint64_t hp_dual_branch_unwritable(void) { return HP_LOAD_RLX(&g_unwritable); }

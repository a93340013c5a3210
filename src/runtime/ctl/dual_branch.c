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
 * Count mode (HP_BRANCH_COUNT): each branch gets a trampoline of its own (dual_tramp.h's code,
 * mapped near its module): the countdown's decrement, `jle` the instrumented target of the site at
 * L (hp_dual_latch_target), else `jmp C`. A back-edge then takes one branch to it and one back to
 * C, where pointing the branch at L took L's `jmp` to the site's trampoline and that one's `jmp`
 * to L + 5 too (and L's `jmp C` when the site block has one). A branch whose L holds no latch site
 * of a module registered now, or whose trampoline cannot be reached, goes to L (correct: the site's
 * own trampoline counts it).
 *
 * Latch pads (a record's `pad`: the pad's guard X, a `jmp C` over it, or the pad P itself when
 * nothing falls into it; P = C - 16, or a detached pad followed by `jmp C`; analysis/latch_asm.h):
 * in count mode a branch goes to P instead, once P holds the countdown's decrement and a jle to
 * its site's target (dual_tramp.h): no jump out and back. The first branch that finds P
 * (16-aligned, its guard in place) as the rewrite wrote it writes it for its target, in one
 * 16-byte store whose instruction boundaries include the nops'
 * (nothing runs them but a branch sent there after the store). A branch whose site has another
 * target than the one written, or whose pad is missing, misplaced or not as written, keeps its
 * trampoline. Pads are never written back: count mode is for the rest of the run, and written
 * pads are correct in every mode (branches go to P only in count mode).
 *
 * State (file-static): the module table of branch sections (a module whose every branch was written
 * once skips the page check, as dual.c's sites do; count mode: its trampolines), the counts. Every function here runs under
 * dual.c's lock (dual.h hp_dual_branch_*), which also owns the pages made writable; the two counts
 * are also read by hp_dual_info (relaxed loads, async-signal-safe).
 */
#include "runtime/ctl/dual.h"
#include "runtime/ctl/dual_tramp.h"
#include "runtime/ctl/x86_call.h"
#include "runtime/thread.h"
#include "runtime/base.h"
#include <string.h>
#include <sys/mman.h>

#define BR_MODS_CAP 1024u

static struct {
    const hp_dual_branch_rec *start, *stop;
    int writable; /* every page of its branches made writable: switching checks none */
    uint8_t *tramp; /* count mode: one HP_TRAMP_SLOT per record, int3 where none (NULL: none made) */
} g_br[BR_MODS_CAP];
static uint32_t g_nbr;
static uint64_t g_branches, g_unwritable, g_tramps, g_pads, g_padded;
static int32_t g_fs_off; /* count mode: the countdown's %fs offset ... */
static int g_fs_known;   /* ... once known (the same in every thread) */

static uint64_t at(const int32_t *p) { return (uint64_t)(uintptr_t)p + (uint64_t)(int64_t)*p; }

uint64_t hp_dual_branch_word(uint64_t word, unsigned off, uint32_t rel)
{
    for (unsigned i = 0; i < 4; i++) {
        word &= ~((uint64_t)0xff << (8 * (off + i)));
        word |= (uint64_t)(uint8_t)(rel >> (8 * i)) << (8 * (off + i));
    }
    return word;
}

/* Count mode: module m's trampolines (once; 1 if made). */
static int make_tramps(uint32_t m)
{
    const hp_dual_branch_rec *a = g_br[m].start, *z = g_br[m].stop;
    if (!g_fs_known) return 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const hp_dual_branch_rec *r = a; r < z; r++) {
        uint64_t f = at(&r->field), l = at(&r->on), c = at(&r->off);
        lo = f < lo ? f : lo, lo = l < lo ? l : lo, lo = c < lo ? c : lo;
        hi = f + 4 > hi ? f + 4 : hi, hi = l > hi ? l : hi, hi = c > hi ? c : hi;
    }
    size_t len = (size_t)(z - a) * HP_TRAMP_SLOT;
    uint8_t *p = hp_tramp_map_near(lo, hi, len);
    if (!p) return 0;
    memset(p, 0xcc, len);
    uint64_t made = 0;
    for (size_t i = 0; i < (size_t)(z - a); i++) {
        uint64_t target = hp_dual_latch_target(at(&a[i].on)), slot = (uint64_t)(uintptr_t)(p + i * HP_TRAMP_SLOT);
        uint8_t code[HP_TRAMP_SLOT];
        if (target && hp_tramp_encode(code, slot, target, at(&a[i].off), g_fs_off))
            memcpy(p + i * HP_TRAMP_SLOT, code, HP_TRAMP_LEN), made++;
    }
    if (!made || mprotect(p, len, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, len);
        return 0;
    }
    g_br[m].tramp = p;
    g_tramps += made;
    return 1;
}

/* Count mode: r's latch pad, written for its site's target if it is still the rewrite's nops; 0 if
 * r has none or it cannot serve r (the comment above). */
static uint64_t pad_entry(const hp_dual_branch_rec *r)
{
    if (!r->pad) return 0; /* (a build before latch pads) */
    unsigned guard_len = 0, jmp_len;
    uint64_t c = at(&r->off), x = at(&r->pad);
    uint64_t p = hp_x86_jmp_dest(x, &guard_len) == c ? c - HP_PAD_LEN : x; /* (a guard: `jmp C`) */
    if (p % HP_PAD_LEN || (x != p && x + guard_len > p)) return 0;
    if (p + HP_PAD_LEN != c && hp_x86_jmp_dest(p + HP_PAD_LEN, &jmp_len) != c) return 0; /* (detached: `jmp C`) */
    uint64_t target = hp_dual_latch_target(at(&r->on));
    uint8_t code[HP_PAD_LEN];
    int32_t rel;
    if (!target || !hp_tramp_rel32(at(&r->field) + 4, p, &rel) ||
        hp_tramp_encode_pad(code, p, target, g_fs_off, HP_PAD_15_1) != HP_PAD_LEN)
        return 0;
    const uint8_t *now = (const uint8_t *)(uintptr_t)p;
    if (memcmp(now, code, HP_PAD_LEN) != 0) { /* (equal: written for this target by another branch) */
        if (memcmp(now, hp_tramp_latch_pad_nops(), HP_PAD_LEN) != 0 || !hp_dual_page_writable(p) ||
            !hp_tramp_store16((void *)(uintptr_t)p, code))
            return 0;
        g_pads++;
    }
    return p;
}

/* Where r goes in mode: C, L, or (count mode) its latch pad, else its trampoline if it has one in
 * reach, else L. */
static uint64_t destination(uint32_t m, const hp_dual_branch_rec *r, int mode)
{
    if (mode == HP_BRANCH_OFF) return at(&r->off);
    uint64_t pad = mode == HP_BRANCH_COUNT && g_fs_known ? pad_entry(r) : 0;
    if (pad) return g_padded++, pad;
    const uint8_t *tr = g_br[m].tramp ? g_br[m].tramp + (size_t)(r - g_br[m].start) * HP_TRAMP_SLOT : NULL;
    int32_t rel;
    if (mode == HP_BRANCH_COUNT && tr && *tr != 0xcc && hp_tramp_rel32(at(&r->field) + 4, (uint64_t)(uintptr_t)tr, &rel))
        return (uint64_t)(uintptr_t)tr;
    return at(&r->on);
}

/* r's rel32 to `to`. 0 if it cannot be written. */
static int write_branch(const hp_dual_branch_rec *r, uint64_t to, int page_known)
{
    uint64_t field = at(&r->field);
    unsigned off = (unsigned)(field & 7);
    if (off > 4 || (!page_known && !hp_dual_page_writable(field))) return 0;
    uint64_t *w = (uint64_t *)(uintptr_t)(field & ~(uint64_t)7);
    uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
    uint64_t word = hp_dual_branch_word(old, off, (uint32_t)(to - (field + 4)));
    if (word != old) __atomic_store_n(w, word, __ATOMIC_RELEASE);
    return 1;
}

static uint64_t switch_module(uint32_t m, int mode)
{
    uint64_t n = 0;
    int known = g_br[m].writable; /* (as dual.c's sites: no page scan per branch once all are writable) */
    if (mode == HP_BRANCH_COUNT && !g_fs_known) g_fs_known = hp_tramp_fs_offset(&hp_dual_countdown, &g_fs_off);
    if (mode == HP_BRANCH_COUNT && !g_br[m].tramp) make_tramps(m);
    for (const hp_dual_branch_rec *r = g_br[m].start; r && r < g_br[m].stop; r++)
        n += (uint64_t)write_branch(r, destination(m, r, mode), known);
    if (g_br[m].start && n == (uint64_t)(g_br[m].stop - g_br[m].start)) g_br[m].writable = 1;
    return n;
}

int hp_dual_branch_add(const void *start, const void *stop, int mode)
{
    const hp_dual_branch_rec *a = start, *z = stop;
    if (!a || a >= z) return 0;
    for (uint32_t i = 0; i < g_nbr; i++)
        if (g_br[i].start == a) return 0;
    g_branches += (uint64_t)(z - a);
    if (g_nbr == BR_MODS_CAP) return g_unwritable += (uint64_t)(z - a), 0; /* (never written: off) */
    g_br[g_nbr].start = a, g_br[g_nbr].stop = z, g_br[g_nbr].writable = 0, g_br[g_nbr].tramp = NULL;
    if (mode != HP_BRANCH_OFF) g_unwritable += (uint64_t)(z - a) - switch_module(g_nbr, mode);
    g_nbr++;
    return 1;
}

void hp_dual_branch_remove(const void *start)
{
    for (uint32_t i = 0; i < g_nbr; i++)
        if (g_br[i].start == start) {
            g_branches -= (uint64_t)(g_br[i].stop - g_br[i].start);
            if (g_br[i].tramp) munmap(g_br[i].tramp, (size_t)(g_br[i].stop - g_br[i].start) * HP_TRAMP_SLOT);
            g_br[i].tramp = NULL; /* (its code is going: no thread runs its branches) */
            g_br[i].start = g_br[i].stop = NULL;
            g_br[i].writable = 0;
        }
}

void hp_dual_branch_switch(int mode)
{
    uint64_t n = 0;
    g_padded = 0; /* (counted again by this pass) */
    for (uint32_t m = 0; m < g_nbr; m++) n += switch_module(m, mode);
    if (g_branches >= n) g_unwritable = g_branches - n;
}

uint64_t hp_dual_branch_count(void) { return HP_LOAD_RLX(&g_branches); }
uint64_t hp_dual_branch_unwritable(void) { return HP_LOAD_RLX(&g_unwritable); }
uint64_t hp_dual_branch_tramps(void) { return HP_LOAD_RLX(&g_tramps); }
uint64_t hp_dual_branch_pads(void) { return HP_LOAD_RLX(&g_pads); }
uint64_t hp_dual_branch_padded(void) { return HP_LOAD_RLX(&g_padded); }

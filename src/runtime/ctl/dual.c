/* dual.c — switching the patchable sites of two-version code (dual.h, docs/dual.md).
 *
 * How a site is written: the plugin aligns every 5-byte nop so that it lies inside one aligned
 * 8-byte word (byte offset 0..3), padding with CS prefixes of the nop itself (in the word before,
 * never written; a record's site is the nop's first byte). Switching reads that word, replaces the
 * site's five bytes (nop <-> jmp rel32) and writes the word back with ONE aligned 8-byte store, so
 * a core fetching the instruction sees either the whole old or the whole new five bytes, never a
 * mix: no int3, no SIGTRAP handler, no membarrier (the one-byte toggle of sites.c is not possible
 * here: a nop and a jmp share no tail). The other three bytes of the word are written back
 * unchanged; they belong to neighbouring instructions nobody else writes (code is written only
 * here, under g_lock). A core may run the stale five bytes for a short while after the store
 * (cross-modifying code is coherent on x86 but not instantaneous): one event more or fewer at a
 * window's edge. A site at offset 4..7 (a module not built by our plugin) is never written (counted
 * in g_skipped).
 *
 * Pages holding sites are made read-write-execute once, when their first site is written, and
 * stay so (as sites.c does). A page that cannot be made writable keeps its sites as they are.
 *
 * A module's destructor (dlclose, exit) unregisters it: its records are dropped and its pages
 * forgotten, so a module mapped there later is made writable again before it is written.
 *
 * Bursts (hp_dual_start): the backend's on switches every dual site to its instrumented block and
 * the call sites of sites.c on; off the dual sites back to nops and the call sites off; tick is
 * sites.c's. off_now (the hook that takes a window's last unit) switches both off at once in that
 * thread, if it gets g_lock without waiting (a hook must never wait for it: else the control
 * thread's off does it). A pass that would leave every site as it is is skipped (g_switched_on).
 * A thread in an instrumented copy goes back to the
 * clean copy at its next loop back-edge once the window's mask is down (hooks_dual.h), or
 * returns. Known race: a hook call site of sites.c whose opcode byte shares an aligned word with
 * a dual nop can have its toggle undone by our read-modify-write (sites_off_now runs in a program
 * thread); both forms are valid instructions, so it costs at most a stale call or mov there.
 *
 * Count mode (`--bursts count`, hp_dual_count_probe/start): each module gets one trampoline per
 * record (dual_tramp.h) in a page mapped near it, and every site is switched once, for good, to
 * `jmp` its trampoline (or straight to its target if the module got none); modules registered
 * later get theirs at registration. Trampoline pages are never unmapped (a dlclose'd module's
 * stay mapped: a few bytes per site). The hooks that run the bursts are in hooks_dual.h.
 *
 * Entry pads (HP_DUAL_REC_PAD, count builds) are written in count mode as the countdown's decrement
 * and jle, in place (write_pad): no trampoline; a pad that is not the code generator's nops gets a
 * trampoline that resumes past it.
 *
 * Latch branches (`hotprof cc --dual-latch=branch`, dual_branch.c) are switched with the sites:
 * pointed at their site's block after the sites go on, past it before they go off; on at once for
 * a module registered while sites are on (exhaustive, count mode, an open window).
 *
 * Return sites (kind HP_DUAL_KIND_RETURN) are never switched by bursts or exhaustive mode; in
 * count mode with subpaths (hp_dual_count_start(1)) they jump to a trampoline that tests the
 * countdown instead of decrementing it, and each module with trampolines gets a sorted table of
 * its return sites' call ranges (hp_dual_return_point), built before its sites are written.
 *
 * State (file-static): the module table (up to MODS_CAP modules: ranges of records and their
 * trampolines), the page set, g_all (every site on from now on: exhaustive mode), g_count (every
 * site to its trampoline from now on: count mode) and the countdown's %fs offset, counters;
 * g_lock serializes writers.
 * Async-signal-safety: hp_dual_info only.
 */
#define _GNU_SOURCE
#include "runtime/ctl/dual.h"
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/dual_tramp.h"
#include "runtime/thread.h"
#include "core/format/info_keys.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MODS_CAP 1024u
#define PAGES_CAP 4096u

static struct {
    const hp_dual_rec *start, *stop;
    uint8_t *tramp; /* count mode: the module's trampolines, one slot per record (NULL: none) */
    const uint64_t *rets; /* count mode with return sites: (lo, hi] call ranges sorted by lo */
    uint64_t nrets;       /* (published after rets is filled) */
    const uint64_t *latch; /* count mode, latch branches: (site, target) of its latch sites sorted by site */
    uint64_t nlatch;
    int writable;         /* every page of its sites made writable: switching checks none */
} g_mods[MODS_CAP];
static uint32_t g_nmods;
static uint64_t g_pages[PAGES_CAP]; /* pages made writable (0: empty slot) */
static uint32_t g_npages;
static int g_all, g_lock;
static int g_switched_on;    /* the last hp_dual_switch pass switched the sites on (patched bursts) */
static int g_rets_live; /* some module's return sites written (count mode with subpaths) */
static uint64_t g_sites, g_skipped, g_switches, g_count_sites;
static int g_count;           /* count mode: every site to its trampoline, now and for later modules */
static int g_count_ret;       /* ... return sites too (subpaths in count mode) */
static int32_t g_fs_off;      /* %fs offset of hp_dual_countdown (the same in every thread) */
static uint64_t g_tramps, g_direct, g_bursts, g_pads;

static void lock(void) { while (__atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE)) sched_yield(); }
static void unlock(void) { __atomic_store_n(&g_lock, 0, __ATOMIC_RELEASE); }

uint64_t hp_dual_word_nop(uint64_t word, unsigned off, uint64_t site, uint64_t target, int on, const uint8_t nop[5])
{
    uint8_t b[5];
    memcpy(b, nop, 5);
    if (on) {
        uint32_t rel = (uint32_t)(target - (site + 5));
        b[0] = 0xe9;
        for (int i = 0; i < 4; i++) b[1 + i] = (uint8_t)(rel >> (8 * i));
    }
    for (unsigned i = 0; i < 5; i++) {
        word &= ~((uint64_t)0xff << (8 * (off + i)));
        word |= (uint64_t)b[i] << (8 * (off + i));
    }
    return word;
}

uint64_t hp_dual_word(uint64_t word, unsigned off, uint64_t site, uint64_t target, int on)
{
    static const uint8_t nop[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    return hp_dual_word_nop(word, off, site, target, on, nop);
}

static uint64_t rec_site(const hp_dual_rec *r) { return (uint64_t)(uintptr_t)&r->site + (uint64_t)(int64_t)r->site; }
static int is_pad(const hp_dual_rec *r) { return (r->flags & HP_DUAL_REC_PAD) != 0; }
/* The bytes of r's site: where its function's clean code goes on (a trampoline's resume). */
static uint64_t site_len(const hp_dual_rec *r) { return is_pad(r) ? HP_PAD_LEN : 5u; }

/* Make the page of addr writable (once). 0 if it cannot be. */
int hp_dual_page_writable(uint64_t addr)
{
    uint64_t page = addr & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
    for (uint32_t i = 0; i < g_npages; i++)
        if (g_pages[i] == page) return 1;
    if (g_npages == PAGES_CAP) return 0; /* (slots freed by unregister are not reused) */
    if (mprotect((void *)(uintptr_t)page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return 0;
    g_pages[g_npages++] = page;
    return 1;
}

static uint64_t rec_target(const hp_dual_rec *r) { return (uint64_t)(uintptr_t)&r->target + (uint64_t)(int64_t)r->target; }

/* The site of r as jmp rel32 to `target` (on) or the nop (off). 0 if it cannot be written; an
 * inline count site is never written (1: it needs no switching in every mode it runs in). */
static int write_site_to(const hp_dual_rec *r, uint64_t target, int on, int page_known)
{
    if (r->flags & HP_DUAL_REC_COUNT) return 1;
    uint64_t site = rec_site(r);
    unsigned off = (unsigned)(site & 7);
    if (off > 3 || (!page_known && !hp_dual_page_writable(site))) return 0;
    uint64_t *w = (uint64_t *)(uintptr_t)(site & ~(uint64_t)7);
    uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
    uint8_t head[5];
    if (is_pad(r)) hp_tramp_pad_head((const uint8_t *)(uintptr_t)site, head);
    uint64_t word = is_pad(r) ? hp_dual_word_nop(old, off, site, target, on, head) : hp_dual_word(old, off, site, target, on);
    __atomic_store_n(w, word, __ATOMIC_RELEASE);
    return 1;
}

static int write_site(const hp_dual_rec *r, int on, int page_known)
{
    return write_site_to(r, rec_target(r), on, page_known);
}

/* Records that are sites (not HP_DUAL_KIND_CALL). */
static uint64_t nsites(const hp_dual_rec *start, const hp_dual_rec *stop)
{
    uint64_t n = 0;
    for (const hp_dual_rec *r = start; r < stop; r++) n += r->kind != HP_DUAL_KIND_CALL;
    return n;
}

/* Bursts and exhaustive mode: every site but return sites (left as nops: counted as written). */
static uint64_t switch_module(uint32_t m, int on)
{
    uint64_t n = 0, sites = 0;
    int known = g_mods[m].writable; /* (the page scan cost 0.4 ms a pass on qjs's 2 911 sites) */
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        if (r->kind != HP_DUAL_KIND_CALL) {
            sites++;
            n += r->kind == HP_DUAL_KIND_RETURN ? 1u : (uint64_t)write_site(r, on, known);
        }
    if (n == sites) g_mods[m].writable = 1; /* (a site at offset 4..7 keeps the module checking) */
    return n;
}

/* ---- count mode: trampolines (dual_tramp.h) ---- */

/* Maps and fills module m's trampolines, one slot per record (under g_lock). 1 if made. */
static int make_tramps(uint32_t m)
{
    const hp_dual_rec *a = g_mods[m].start, *z = g_mods[m].stop;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const hp_dual_rec *r = a; r < z; r++) {
        uint64_t s = rec_site(r), t = rec_target(r);
        lo = s < lo ? s : lo, lo = t < lo ? t : lo;
        hi = s + site_len(r) > hi ? s + site_len(r) : hi, hi = t > hi ? t : hi;
    }
    size_t len = (size_t)(z - a) * HP_TRAMP_SLOT;
    uint8_t *p = hp_tramp_map_near(lo, hi, len);
    if (!p) return 0;
    for (size_t i = 0; i < (size_t)(z - a); i++) {
        uint8_t *at = p + i * HP_TRAMP_SLOT;
        size_t (*enc)(uint8_t *, uint64_t, uint64_t, uint64_t, int32_t) =
            a[i].kind == HP_DUAL_KIND_RETURN ? hp_tramp_encode_test : hp_tramp_encode;
        if (!enc(at, (uint64_t)(uintptr_t)at, rec_target(&a[i]), rec_site(&a[i]) + site_len(&a[i]), g_fs_off)) {
            munmap(p, len);
            return 0;
        }
    }
    if (mprotect(p, len, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, len);
        return 0;
    }
    g_mods[m].tramp = p;
    g_tramps += (uint64_t)(z - a);
    return 1;
}

/* The form of r's entry pad if count mode can fill it in place (16-aligned, still the code
 * generator's nops), else HP_PAD_NONE. */
static int pad_form(const hp_dual_rec *r)
{
    uint64_t site = rec_site(r);
    if (!is_pad(r) || site % HP_PAD_LEN) return HP_PAD_NONE;
    return hp_tramp_pad_form((const uint8_t *)(uintptr_t)site);
}

/* Module m has inline count sites and fitting pads only: it counts without trampolines. */
static int only_count_sites(uint32_t m)
{
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        if (!(r->flags & HP_DUAL_REC_COUNT) && !pad_form(r)) return 0;
    return 1;
}

/* The pad of r in its count form, in one 16-byte store (under g_lock; dual_tramp.h says why a
 * thread inside the old nops is safe). 0 if it does not fit or cannot be written (a trampoline
 * then). */
static int write_pad(const hp_dual_rec *r)
{
    uint64_t site = rec_site(r);
    uint8_t code[HP_PAD_LEN];
    int form = pad_form(r);
    if (!form || !hp_dual_page_writable(site)) return 0;
    if (hp_tramp_encode_pad(code, site, rec_target(r), g_fs_off, form) != HP_PAD_LEN) return 0;
    if (!hp_tramp_store16((void *)(uintptr_t)site, code)) return 0;
    g_pads++;
    return 1;
}

static int cmp_range(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int has_range(const hp_dual_rec *r) { return r->kind == HP_DUAL_KIND_RETURN || r->kind == HP_DUAL_KIND_CALL; }

/* Module m's call ranges (lo, hi] = (site - distance, site] of its return sites and instrumented
 * calls, sorted (under g_lock, before its return sites are written). 0 if it has no return site
 * or they cannot be stored. */
static uint64_t make_rets(uint32_t m)
{
    uint64_t n = 0, nret = 0;
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        n += has_range(r), nret += r->kind == HP_DUAL_KIND_RETURN;
    uint64_t *v = nret ? hp_map((size_t)n * 2 * sizeof *v) : NULL;
    if (!v) return 0;
    uint64_t k = 0;
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        if (has_range(r)) {
            v[k++] = rec_site(r) - HP_DUAL_REC_CALL_DIST(r);
            v[k++] = rec_site(r);
        }
    qsort(v, (size_t)n, 2 * sizeof *v, cmp_range);
    g_mods[m].rets = v;
    HP_STORE_REL(&g_mods[m].nrets, n);
    return n;
}

/* The site's place in count mode: its trampoline (a return site's only with g_count_ret and
 * ranges: else it stays a nop), or straight to its target without trampolines. 1 if written or
 * rightly left alone. */
static int count_site(uint32_t m, const hp_dual_rec *r, int rets)
{
    uint8_t *tr = g_mods[m].tramp;
    size_t i = (size_t)(r - g_mods[m].start);
    if (r->kind == HP_DUAL_KIND_CALL) return 0; /* not a site */
    if (r->kind == HP_DUAL_KIND_RETURN) return !rets || write_site_to(r, (uint64_t)(uintptr_t)(tr + i * HP_TRAMP_SLOT), 1, 0);
    if (is_pad(r) && write_pad(r)) return 1;
    g_direct += !tr && !(r->flags & HP_DUAL_REC_COUNT); /* a count site needs no trampoline */
    return write_site_to(r, tr ? (uint64_t)(uintptr_t)(tr + i * HP_TRAMP_SLOT) : rec_target(r), 1, 0);
}

/* Every site of module m to its trampoline (or straight to its target without one). Sites written. */
static uint64_t switch_module_count(uint32_t m)
{
    uint64_t n = 0;
    int rets = g_count_ret && g_mods[m].tramp && make_rets(m);
    if (rets) HP_STORE_REL(&g_rets_live, 1);
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++) n += (uint64_t)count_site(m, r, rets);
    return n;
}

/* Module m's nop latch sites as (site, target) pairs sorted by site (under g_lock, count mode:
 * the latch branches' trampolines, hp_dual_latch_target). 0 if it has none or they cannot be stored. */
static uint64_t make_latch_index(uint32_t m)
{
    uint64_t n = 0;
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        n += r->kind == HP_DUAL_KIND_BACKEDGE && !(r->flags & HP_DUAL_REC_COUNT);
    uint64_t *v = n ? hp_map((size_t)n * 2 * sizeof *v) : NULL;
    if (!v) return 0;
    uint64_t k = 0;
    for (const hp_dual_rec *r = g_mods[m].start; r < g_mods[m].stop; r++)
        if (r->kind == HP_DUAL_KIND_BACKEDGE && !(r->flags & HP_DUAL_REC_COUNT)) {
            v[k++] = rec_site(r);
            v[k++] = rec_target(r);
        }
    qsort(v, (size_t)n, 2 * sizeof *v, cmp_range);
    g_mods[m].latch = v;
    return g_mods[m].nlatch = n;
}

uint64_t hp_dual_latch_target(uint64_t block)
{
    for (uint32_t m = 0; m < g_nmods; m++) {
        if (!g_mods[m].start || (!g_mods[m].latch && !make_latch_index(m))) continue;
        const uint64_t *v = g_mods[m].latch;
        uint64_t lo = 0, hi = g_mods[m].nlatch; /* the first pair whose site >= block */
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (v[2 * mid] < block) lo = mid + 1;
            else hi = mid;
        }
        if (lo < g_mods[m].nlatch && v[2 * lo] - block <= HP_DUAL_SITE_PAD) return v[2 * lo + 1];
    }
    return 0;
}

int hp_dual_return_sites_live(void) { return HP_LOAD_ACQ(&g_rets_live); }

int hp_dual_return_point(uint64_t ret)
{
    uint32_t nm = HP_LOAD_ACQ(&g_nmods);
    for (uint32_t m = 0; m < nm; m++) {
        uint64_t n = HP_LOAD_ACQ(&g_mods[m].nrets);
        const uint64_t *v = g_mods[m].rets;
        if (!n || ret <= v[0] || ret > v[2 * n - 1]) continue; /* (disjoint ranges: the last hi is the highest) */
        uint64_t lo = 0, hi = n; /* the last range whose lo < ret */
        while (hi - lo > 1) {
            uint64_t mid = (lo + hi) / 2;
            if (v[2 * mid] < ret) lo = mid;
            else hi = mid;
        }
        if (v[2 * lo] < ret && ret <= v[2 * lo + 1] && g_mods[m].start) return 1;
    }
    return 0;
}

int hp_dual_register(const hp_dual_rec *start, const hp_dual_rec *stop)
{
    if (!start || start >= stop) return 0;
    hp_dual_text_note(start);
    lock();
    for (uint32_t i = 0; i < g_nmods; i++)
        if (g_mods[i].start == start) { unlock(); return 0; } /* the same module again */
    if (g_nmods < MODS_CAP) {
        uint32_t m = g_nmods;
        g_mods[m].start = start;
        g_mods[m].stop = stop;
        g_sites += nsites(start, stop);
        for (const hp_dual_rec *r = start; r < stop; r++) g_count_sites += r->flags & HP_DUAL_REC_COUNT;
        HP_STORE_REL(&g_nmods, m + 1);
        if (g_all) g_skipped += nsites(start, stop) - switch_module(m, 1);
        if (g_count) {
            make_tramps(m);
            g_skipped += nsites(start, stop) - switch_module_count(m);
        }
    }
    unlock();
    return 1;
}

void hp_dual_register_branches(const void *start, const void *stop)
{
    lock();
    hp_dual_branch_add(start, stop, g_count ? HP_BRANCH_COUNT : g_all || g_switched_on ? HP_BRANCH_ON : HP_BRANCH_OFF);
    unlock();
}

void hp_dual_unregister_branches(const void *start)
{
    lock();
    hp_dual_branch_remove(start);
    unlock();
}

void hp_dual_unregister(const hp_dual_rec *start, const hp_dual_rec *stop)
{
    if (!start || start >= stop) return;
    uint64_t lo = UINT64_MAX, hi = 0, mask = ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
    for (const hp_dual_rec *r = start; r < stop; r++) {
        uint64_t a = rec_site(r) & mask;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    lock();
    for (uint32_t i = 0; i < g_nmods; i++)
        if (g_mods[i].start == start) {
            g_sites -= nsites(start, stop);
            for (const hp_dual_rec *r = start; r < stop; r++) g_count_sites -= r->flags & HP_DUAL_REC_COUNT;
            HP_STORE_REL(&g_mods[i].nrets, 0); /* no call range either */
            g_mods[i].latch = NULL, g_mods[i].nlatch = 0;
            g_mods[i].start = g_mods[i].stop = NULL; /* no site left */
            g_mods[i].writable = 0;
        }
    for (uint32_t i = 0; i < g_npages; i++)
        if (g_pages[i] >= lo && g_pages[i] <= hi) g_pages[i] = 0; /* another module may map there */
    unlock();
}

int hp_dual_present(void) { return HP_LOAD_ACQ(&g_nmods) > 0; }
uint64_t hp_dual_count_sites(void) { return HP_LOAD_RLX(&g_count_sites); }

uint64_t hp_dual_all_on(void)
{
    uint64_t n = 0;
    lock();
    g_all = g_switched_on = 1;
    for (uint32_t m = 0; m < g_nmods; m++) n += switch_module(m, 1);
    hp_dual_branch_switch(HP_BRANCH_ON);
    g_skipped = g_sites - n;
    unlock();
    return n;
}

/* A shadow (ctl/shadow_child.c, one thread after clone): every site on in its own copy-on-write
 * text. The parent's threads are not in this process: a lock one of them held at the clone is free. */
uint64_t hp_dual_child_all_on(void)
{
    g_lock = 0;
    return hp_dual_all_on();
}

/* Under g_lock. A pass that would write what is there already is skipped: a store to a line of
 * code another core is running costs that core a pipeline flush, whatever the bytes. */
static void switch_all(int on)
{
    if (g_switched_on == on) return;
    if (!on) hp_dual_branch_switch(HP_BRANCH_OFF); /* (latch branches skip only sites that are off) */
    for (uint32_t m = 0; m < g_nmods; m++) switch_module(m, on);
    if (on) hp_dual_branch_switch(HP_BRANCH_ON);
    g_switched_on = on;
    g_switches++;
}

void hp_dual_switch(int on)
{
    lock();
    switch_all(on);
    unlock();
}

int hp_dual_try_switch_off(void)
{
    if (__atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE)) return 0;
    int done = !g_all && !g_count;
    if (done) switch_all(0);
    unlock();
    return done;
}

size_t hp_dual_info(char *out, size_t cap)
{
    size_t at = 0;
    if (cap) out[0] = 0;
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_SITES, HP_LOAD_RLX(&g_sites));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_MODULES, HP_LOAD_RLX(&g_nmods));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_UNPATCHABLE, HP_LOAD_RLX(&g_skipped));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_SWITCHES, HP_LOAD_RLX(&g_switches));
    if (hp_dual_branch_count()) {
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_BRANCHES, hp_dual_branch_count());
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_BRANCHES_UNWRITABLE, hp_dual_branch_unwritable());
    }
    if (HP_LOAD_RLX(&g_count_sites))
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL, HP_INFO_DUAL_COUNT_SITES, HP_LOAD_RLX(&g_count_sites));
    return at;
}

static void dual_on(void)
{
    hp_sites_backend()->on();
    hp_dual_switch(1);
}

static void dual_off(void)
{
    hp_dual_switch(0);
    hp_sites_backend()->off();
}

static void dual_tick(void) { hp_sites_backend()->tick(); }
/* The hook that took the window's last unit: the dual sites go off with the call sites, at once,
 * not when the control thread wakes (its futex wake-up took 20-29 us here, with every entry
 * still jumping into the instrumented copies: 2/3 of a window's time). */
static void dual_off_now(void)
{
    hp_dual_try_switch_off();
    hp_sites_backend()->off_now();
}

static size_t dual_backend_info(char *out, size_t cap)
{
    size_t n = hp_sites_backend()->info(out, cap);
    return n + hp_dual_info(out + n, cap - n);
}

static const hp_pb_backend g_dual_backend = {
    .prefix = "patch", .on = dual_on, .off = dual_off, .tick = dual_tick, .off_now = dual_off_now,
    .info = dual_backend_info};

const hp_pb_backend *hp_dual_backend(void) { return &g_dual_backend; }

int hp_dual_start(uint32_t min_window)
{
    if (!HP_LOAD_ACQ(&hp_g.patch) || !hp_dual_present()) return -1;
    HP_STORE_REL(&hp_g.dual, HP_DUAL_BURSTS);
    return hp_pb_start(&g_dual_backend, min_window, HP_BURSTY_ALL) == 0 ? 0 : -1;
}

/* ---- count mode: init and INFO ---- */

int hp_dual_count_probe(const char **why)
{
    if (!hp_dual_present()) {
        *why = "needs a program built with `hotprof cc --hooks=dual-functions|dual-blocks|dual-memory`";
        return -1;
    }
    if (!hp_tramp_fs_offset(&hp_dual_countdown, &g_fs_off)) {
        *why = "the thread countdown is not at a 32-bit %fs offset";
        return -1;
    }
    uint32_t ready = 0;
    lock();
    for (uint32_t m = 0; m < g_nmods; m++)
        if (g_mods[m].start)
            ready += (uint32_t)(g_mods[m].tramp || only_count_sites(m) || make_tramps(m));
    unlock();
    if (ready) return 0;
    *why = "cannot map trampolines within 2 GB of the program's code";
    return -1;
}

void hp_dual_count_start(int return_sites)
{
    HP_STORE_REL(&hp_g.dual, HP_DUAL_COUNT);
    uint64_t n = 0;
    lock();
    g_count = 1;
    g_count_ret = return_sites;
    for (uint32_t m = 0; m < g_nmods; m++)
        if (g_mods[m].start) n += switch_module_count(m);
    hp_dual_branch_switch(HP_BRANCH_COUNT);
    g_skipped = g_sites - n;
    unlock();
}

void hp_dual_count_burst(void) { __atomic_fetch_add(&g_bursts, 1, __ATOMIC_RELAXED); }

/* Per thread, the most boundary events and recorded units of any type (each type sees every event). */
static void count_totals(uint64_t *events, uint64_t *sampled)
{
    *events = *sampled = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        uint64_t e_max = 0, s_max = 0;
        for (int type = 0; t->bursty == HP_THREAD_BURSTY && type < HP_BURSTY_NTYPES; type++) {
            uint64_t e, s;
            hp_thread_bursty_counts(t, type, &e, &s);
            e_max = e > e_max ? e : e_max;
            s_max = s > s_max ? s : s_max;
        }
        *events += e_max;
        *sampled += s_max;
    }
}

size_t hp_dual_count_info(char *out, size_t cap)
{
    size_t at = 0;
    if (cap) out[0] = 0;
    if (HP_LOAD_RLX(&hp_g.dual) != HP_DUAL_COUNT) return 0;
    uint64_t events, sampled;
    count_totals(&events, &sampled);
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_TRAMPOLINES, HP_LOAD_RLX(&g_tramps));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_DIRECT, HP_LOAD_RLX(&g_direct));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_ENTRY_PADS, HP_LOAD_RLX(&g_pads));
    if (hp_dual_branch_count()) {
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_BRANCH_TRAMPOLINES, hp_dual_branch_tramps());
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_LATCH_PADS, hp_dual_branch_pads());
        at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_PADDED_BRANCHES, hp_dual_branch_padded());
    }
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_BURSTS, HP_LOAD_RLX(&g_bursts));
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_EVENTS, events);
    at = hp_info_u64(out, at, cap, HP_INFO_DUAL_COUNT, HP_INFO_DUAL_COUNT_SAMPLED, sampled);
    return at + hp_dual_info(out + at, cap - at);
}

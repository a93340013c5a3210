/* sites.c — the call-site backend of patched bursts (bursts.c): the compiler's hook calls
 * (-finstrument-functions*, -fsanitize-coverage trace-pc-guard, trace-loads/stores, trace-cmp)
 * become `mov eax, imm32` between bursts and calls again for a burst, so that outside bursts no
 * hook runs at all.
 *
 * Discovery: a hook that runs outside a window (hp_g.pb.mask == 0) calls hp_sites_note with its
 * return address. If the 5 bytes before it are `call rel32` (e8) whose target is the hook, or a
 * PLT stub (`[endbr64] [bnd] jmp *GOT(%rip)`) whose GOT slot holds the hook, the site is claimed
 * in a lock-free open-addressing set and appended to a dense list. Sites that never
 * run are never touched; sites of code loaded later are found when they first run.
 *
 * Patching changes ONE byte per site: the opcode. On: `e8 r0 r1 r2 r3`
 * (call rel32, the compiler's own bytes). Off: `b8 r0 r1 r2 r3` (mov eax, imm32: the same four
 * bytes as an immediate). Both are 5 bytes long with the same tail, so no thread can ever see a
 * torn instruction: a core fetches the old or the new opcode, never a mix (the property the
 * kernel's text_poke_bp relies on when it writes its int3 over a first byte). The mov is a
 * correct replacement for the call: eax (rax) is caller-saved and the call clobbers it by the
 * ABI, so the compiler never keeps a live value in it across the hook call; flags and every other
 * register are untouched. A core may run the stale opcode for a short while after the store
 * (cross-modifying code is coherent on x86 but not instantaneous): an event more or fewer at a
 * window's edge. So there is no int3, no SIGTRAP handler and no core serialization: programs that
 * block or handle SIGTRAP, and debuggers, are unaffected. Pages holding sites are made RWX once,
 * when their first site is patched, and stay so while the program runs (one mprotect per page,
 * not two per window).
 *
 * Invariants: a site is in the list only after its 5 bytes were verified to be a direct call to
 * a hook; code bytes (byte 0 of listed sites, e8 or b8) are written only inside a pass, under
 * g_pass_lock: by the control thread, or by the hook that closes a window (sites_off_now, over
 * sites whose pages are writable already); only the control thread adds to the page set; the
 * set and list never shrink. Capacities are fixed (SITES_CAP sites): beyond them
 * a site stays a live call (correct, just not free).
 *
 * Limits: direct calls only (an indirect call to a hook stays live); a fork child keeps the
 * sites as they were at fork and records nothing.
 *
 * State: hp_g.patch (base.h); the site set, list, page set, pass lock and statistics below are
 * this file's own, file-static. Settings (HOTPROF_BURSTS, HOTPROF_WINDOW) come from config.c
 * through hp_sites_probe's arguments.
 */
#define _GNU_SOURCE
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/x86_call.h"
#include "core/format/info_keys.h"
#include "core/control/spec.h"
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SITES_CAP (1u << 19)        /* sites patched at most */
#define SET_CAP (SITES_CAP * 2u)    /* open-addressing set of site addresses (load <= 1/2) */
#define PAGES_CAP (1u << 16)        /* pages made writable at most */
#define DEAD 1ull                   /* a list entry whose page cannot be made writable */
#define OP_CALL HP_X86_CALL_REL32   /* call rel32 */
#define OP_MOV_EAX 0xb8             /* mov eax, imm32: the off form, same length and tail */

static uint64_t *g_set;    /* site addresses, 0 = empty */
static uint64_t *g_list;   /* dense: site addresses in discovery order (0 = being published) */
static uint32_t g_n;       /* list entries reserved */
static uint32_t g_done;    /* list entries [0, g_done) are off (control thread) */
static uint64_t *g_pages;  /* pages made writable (control thread only) */
static uint32_t g_min_window;
static struct { uint64_t passes, writes; } g_stats;

static inline HP_NOINST uint64_t site_hash(uint64_t a) { return (a * 0x9e3779b97f4a7c15ull) >> 44; }

/* 1 if target is a PLT stub whose GOT slot holds hook (x86_call.h). */
static HP_NOINST int plt_to(const uint8_t *p, uint64_t hook)
{
    if (!(p = hp_x86_plt_jump(p))) return 0;
    const uint8_t *next = p + 6;
    uint64_t slot;
    memcpy(&slot, next + (int32_t)hp_x86_u32(p + 2), 8);
    return slot == hook;
}

HP_NOINST void hp_sites_note(uint64_t ret, uint64_t hook)
{
    if (!HP_LOAD_RLX(&hp_g.patch) || !hook) return; /* hook 0: a call never switched (hooks.c) */
    uint64_t site = ret - 5;
    uint64_t i = site_hash(site) & (SET_CAP - 1);
    for (;; i = (i + 1) & (SET_CAP - 1)) { /* fast path: already known */
        uint64_t k = HP_LOAD_ACQ(&g_set[i]);
        if (k == site) return;
        if (k == 0) break;
    }
    uint64_t target = hp_x86_call_target(ret); /* 0: mid-patch (then it is known) or no direct call */
    if (!target) return;
    if (target != hook && !plt_to((const uint8_t *)(uintptr_t)target, hook)) return;
    if (HP_LOAD_RLX(&g_n) >= SITES_CAP) return;
    for (;; i = (i + 1) & (SET_CAP - 1)) {
        uint64_t expect = 0;
        if (__atomic_compare_exchange_n(&g_set[i], &expect, site, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) break;
        if (expect == site) return; /* another thread claimed it */
    }
    uint32_t idx = __atomic_fetch_add(&g_n, 1, __ATOMIC_ACQ_REL);
    if (idx >= SITES_CAP) return; /* claimed but never patched: stays a live call */
    HP_STORE_REL(&g_list[idx], site);
}

/* ---------------------------------------------------------------- patching (control thread) */

/* Makes the page of addr (a site's opcode byte) writable, once. 0 on failure (site skipped). */
static HP_NOINST int page_writable(uint64_t addr)
{
    uint64_t page = addr & ~4095ull;
    for (uint64_t i = site_hash(page) & (PAGES_CAP - 1);; i = (i + 1) & (PAGES_CAP - 1)) {
        if (g_pages[i] == page) return 1;
        if (g_pages[i] != 0) continue;
        if (mprotect((void *)(uintptr_t)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return 0;
        g_pages[i] = page;
        return 1;
    }
}

/* Sets the opcode of sites [from, to) of the list: call (on) or mov eax, imm32 (off). Returns the
 * first index not handled (an entry still being published stops the pass there). */
static HP_NOINST uint32_t pass(uint32_t from, uint32_t to, int on)
{
    uint32_t i = from, writes = 0;
    for (; i < to; i++) {
        uint64_t s = HP_LOAD_ACQ(&g_list[i]);
        if (!s) break;
        if (s == DEAD) continue;
        if (!page_writable(s)) { /* cannot write: it stays a live call */
            g_list[i] = DEAD;
            continue;
        }
        uint8_t *op = (uint8_t *)(uintptr_t)s, want = on ? OP_CALL : OP_MOV_EAX;
        /* Only a change is written: a store to a line of code another core runs flushes its
         * pipeline, and the control thread's off usually follows the last unit's off_now. */
        if (__atomic_load_n(op, __ATOMIC_RELAXED) == want) continue;
        __atomic_store_n(op, want, __ATOMIC_RELAXED);
        writes++;
    }
    HP_STORE_RLX(&g_stats.passes, g_stats.passes + 1);
    HP_STORE_RLX(&g_stats.writes, g_stats.writes + writes);
    return i;
}

static HP_NOINST uint32_t listed(void)
{
    uint32_t n = HP_LOAD_ACQ(&g_n);
    return n > SITES_CAP ? SITES_CAP : n;
}

/* Passes are serialized by g_pass_lock: the control thread waits for it, a hook only tries it. */
static int g_pass_lock;
static HP_NOINST int pass_trylock(void) { return !__atomic_exchange_n(&g_pass_lock, 1, __ATOMIC_ACQUIRE); }
static HP_NOINST void pass_lock(void)
{
    while (!pass_trylock()) sched_yield();
}
static HP_NOINST void pass_unlock(void) { __atomic_store_n(&g_pass_lock, 0, __ATOMIC_RELEASE); }

static HP_NOINST void sites_on(void)
{
    pass_lock();
    pass(0, HP_LOAD_RLX(&g_done), 1);
    pass_unlock();
}
static HP_NOINST void sites_off(void)
{
    pass_lock();
    HP_STORE_RLX(&g_done, pass(0, listed(), 0));
    pass_unlock();
}
static HP_NOINST void sites_tick(void)
{
    pass_lock();
    uint32_t n = listed();
    if (n > g_done) HP_STORE_RLX(&g_done, pass(g_done, n, 0));
    pass_unlock();
}
/* The hook that took the window's last unit turns the sites off at once, so that the window does
 * not last until the control thread is scheduled (milliseconds on a loaded machine, with every
 * hook live meanwhile). Only sites [0, g_done): their pages are writable already, so the pass is
 * plain stores (async-signal-safe). Skipped if the control thread is in a pass. */
static HP_NOINST void sites_off_now(void)
{
    if (!pass_trylock()) return;
    pass(0, HP_LOAD_RLX(&g_done), 0);
    pass_unlock();
}

static HP_NOINST size_t sites_info(char *out, size_t cap)
{
#define PATCH_KEY(stat) HP_INFO_PB_PATCH "." stat "="
    static const char *const keys[] = {PATCH_KEY(HP_INFO_PB_SITES), PATCH_KEY(HP_INFO_PB_PASSES),
                                       PATCH_KEY(HP_INFO_PB_SITE_WRITES)};
    uint64_t vals[] = {listed(), HP_LOAD_RLX(&g_stats.passes), HP_LOAD_RLX(&g_stats.writes)};
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        char num[24];
        size_t kl = strlen(keys[k]), nl = hp_fmt_u64(num, vals[k]);
        if (n + kl + nl + 1 > cap) break;
        memcpy(out + n, keys[k], kl), n += kl;
        memcpy(out + n, num, nl), n += nl;
        out[n++] = '\n';
    }
    return n;
}

static const hp_pb_backend g_sites_backend = {
    .prefix = "patch", .on = sites_on, .off = sites_off, .tick = sites_tick, .off_now = sites_off_now, .info = sites_info};

HP_NOINST const hp_pb_backend *hp_sites_backend(void) { return &g_sites_backend; }

/* ---------------------------------------------------------------- init */

static HP_NOINST void say1(const char *msg)
{
    const char *parts[] = {"hotprof: patch: ", msg};
    hp_say(parts, 2);
}

/* bursts (HOTPROF_BURSTS, read by config.c): live (hooks always run: HPS's counters in every
 * hook), patch (required), auto (patch when possible). window: units per window at least. */
HP_NOINST int hp_sites_probe(int quiet, int bursts, int bursts_unknown, uint32_t window)
{
    int required = bursts == HP_BURSTS_PATCH;
    if (bursts == HP_BURSTS_LIVE) return 0;
    if (bursts_unknown && !quiet) say1("HOTPROF_BURSTS is live, patch, count or auto; using auto");
    g_min_window = window;
    hp_pb_schedule probe;
    if (hp_pb_schedule_from_config(&probe, g_min_window, HP_BURSTY_ALL) != 0) return 0;
    g_set = hp_map(SET_CAP * sizeof *g_set);
    g_list = hp_map(SITES_CAP * sizeof *g_list);
    g_pages = hp_map(PAGES_CAP * sizeof *g_pages);
    if (!g_set || !g_list || !g_pages) {
        if (required || !quiet) say1("unavailable: cannot map the site tables; hooks stay live");
        return 0;
    }
    HP_STORE_REL(&hp_g.patch, 1);
    return 1;
}

/* Init, after the output is open: starts the control thread. If it cannot start, patch mode
 * stays on (the profile says mode=patch) but no window ever opens: the profile records nothing. */
HP_NOINST void hp_sites_start(void)
{
    if (!HP_LOAD_ACQ(&hp_g.patch)) return;
    hp_pb_start(&g_sites_backend, g_min_window, HP_BURSTY_ALL);
}

/* ---------------------------------------------------------------- shadow mode (ctl/shadow.c) */

/* Shadow mode's parent: patch mode with no windows ever (hp_g.pb.mask stays 0), so every hook
 * only hands its site over and the monitor turns it off for good (hp_sites_tick_off). 1 if the
 * tables are mapped (hp_g.patch set). */
HP_NOINST int hp_sites_probe_off(void)
{
    g_set = hp_map(SET_CAP * sizeof *g_set);
    g_list = hp_map(SITES_CAP * sizeof *g_list);
    g_pages = hp_map(PAGES_CAP * sizeof *g_pages);
    if (!g_set || !g_list || !g_pages) return 0;
    HP_STORE_REL(&hp_g.patch, 1);
    return 1;
}

/* The monitor thread: turn off the sites found since the last call; returns how many are off. */
HP_NOINST uint32_t hp_sites_tick_off(void)
{
    sites_tick();
    return HP_LOAD_RLX(&g_done);
}

/* A shadow (one thread, after clone): every listed site back on, in its own copy-on-write text.
 * The parent's monitor may have held the pass lock at the clone: it is not in this process. */
HP_NOINST void hp_sites_child_all_on(void)
{
    g_pass_lock = 0;
    pass(0, listed(), 1);
}

/* ---- a shadow's native-rate calibration (shadow_rate_sites.c; one thread, after
 * hp_sites_child_all_on: every listed site is on and its page writable). Retargeting writes a
 * site's rel32 too: no other thread can run it here, and the shadow ends without turning back. */

/* The lowest and highest listed site (0 if none). */
HP_NOINST void hp_sites_child_span(uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX, *hi = 0;
    for (uint32_t i = 0, n = listed(); i < n; i++) {
        uint64_t s = g_list[i];
        if (!s || s == DEAD) continue;
        *lo = s < *lo ? s : *lo, *hi = s > *hi ? s : *hi;
    }
    if (!*hi) *lo = 0;
}

static HP_NOINST int calls_one_of(uint64_t site, const uint64_t *hooks, int nhooks)
{
    uint64_t target = hp_x86_rel32_dest(site); /* (call or its off form: the same tail) */
    for (int k = 0; k < nhooks; k++)
        if (target == hooks[k] || plt_to((const uint8_t *)(uintptr_t)target, hooks[k])) return 1;
    return 0;
}

HP_NOINST uint32_t hp_sites_child_retarget(uint64_t stub, const uint64_t *hooks, int nhooks)
{
    uint32_t n = listed(), moving = 0;
    for (uint32_t i = 0; i < n; i++) { /* every listed site must reach the stub; some must move */
        uint64_t s = g_list[i], d = stub - (s + 5);
        if (!s || s == DEAD) continue;
        if ((int64_t)d != (int64_t)(int32_t)d) return 0;
        moving += (uint32_t)calls_one_of(s, hooks, nhooks);
    }
    for (uint32_t i = 0; moving && i < n; i++) {
        uint64_t s = g_list[i];
        if (!s || s == DEAD) continue;
        uint8_t *p = (uint8_t *)(uintptr_t)s;
        int32_t rel = (int32_t)(stub - (s + 5));
        if (calls_one_of(s, hooks, nhooks)) memcpy(p + 1, &rel, 4);
        else p[0] = OP_MOV_EAX;
    }
    return moving;
}

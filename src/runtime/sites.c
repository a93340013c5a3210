/* sites.c — the call-site backend of patched bursts (bursts.c): the compiler's hook calls
 * (-finstrument-functions*, -fsanitize-coverage trace-pc-guard, trace-loads/stores) become 5-byte
 * nops between bursts and calls again for a burst, so that outside bursts no hook runs at all.
 *
 * Discovery: a hook that runs outside a window (hp_pb_mask == 0) calls hp_sites_note with its
 * return address. If the 5 bytes before it are `call rel32` (e8) whose target is the hook, or a
 * PLT stub (`[endbr64] [bnd] jmp *GOT(%rip)`) whose GOT slot holds the hook, the site is claimed
 * in a lock-free open-addressing set and appended to a dense list with its rel32. Sites that never
 * run are never touched; sites of code loaded later are found when they first run.
 *
 * Patching (control thread only), kernel text_poke_bp's protocol for cross-modifying code:
 *   1. int3 (cc) over byte 0 of every site of the pass;  sync_cores();
 *   2. bytes 1..4 (the call's rel32, or the nop's tail 1f 44 00 00);  sync_cores();
 *   3. byte 0 (e8 for a call, 0f for the nop 0f 1f 44 00 00);  sync_cores().
 * sync_cores() is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) (every thread of the
 * process runs a core-serializing instruction before it returns), or PRIVATE_EXPEDITED where
 * SYNC_CORE is missing (its IPI returns through IRET, serializing on x86). A thread that reaches a
 * site while its byte 0 is int3 traps; the SIGTRAP handler moves it to site + 5, skipping the
 * instruction: either form is a call to a hook or a nop, so skipping loses at most one event.
 * A SIGTRAP at any other address goes to the handler that was installed before ours (or the
 * default action). Pages holding sites are made RWX once, when their first site is patched, and
 * stay so while the program runs (one mprotect per page, not two per window).
 *
 * Invariants: a site is in the list only after its 5 bytes were verified to be a direct call to
 * a hook; list[i] is published (release) after orig[i]; only the control thread writes code
 * bytes and the page set; the set and list never shrink; a site whose bytes are mid-patch is
 * either a call or a nop to every thread that does not trap. Capacities are fixed (SITES_CAP
 * sites): beyond them a site stays a live call (correct, just not free).
 *
 * Limits: direct calls only (an indirect call to a hook stays live); a fork child keeps the
 * sites as they were at fork and records nothing; the program's own SIGTRAP handler still sees
 * its own traps (chained), but a debugger's breakpoints are unaffected (ptrace sees them first).
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include <linux/membarrier.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define SITES_CAP (1u << 19)        /* sites patched at most */
#define SET_CAP (SITES_CAP * 2u)    /* open-addressing set of site addresses (load <= 1/2) */
#define PAGES_CAP (1u << 16)        /* pages made writable at most */
#define MIN_WINDOW_DEFAULT 100u     /* boundary events per window at least (HOTPROF_WINDOW) */
#define DEAD 1ull                   /* a list entry whose page cannot be made writable */

int hp_g_patch;

static uint64_t *g_set;    /* site addresses, 0 = empty */
static uint64_t *g_list;   /* dense: site addresses in discovery order (0 = being published) */
static uint32_t *g_orig;   /* the call's rel32 of g_list[i] */
static uint32_t g_n;       /* list entries reserved */
static uint32_t g_done;    /* list entries [0, g_done) are off (control thread) */
static uint64_t *g_pages;  /* pages made writable (control thread only) */
static int g_sync_cmd;     /* the membarrier command of sync_cores() */
static struct sigaction g_old_trap;
static uint32_t g_min_window;
static struct { uint64_t passes, writes, traps; } g_stats;

static inline HP_NOINST uint64_t site_hash(uint64_t a) { return (a * 0x9e3779b97f4a7c15ull) >> 44; }

/* 1 if addr is a known site (async-signal-safe: reads only). */
static HP_NOINST int site_known(uint64_t addr)
{
    for (uint64_t i = site_hash(addr) & (SET_CAP - 1);; i = (i + 1) & (SET_CAP - 1)) {
        uint64_t k = HP_LOAD_ACQ(&g_set[i]);
        if (k == addr) return 1;
        if (k == 0) return 0;
    }
}

static HP_NOINST uint32_t load_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* 1 if target is a PLT stub whose GOT slot holds hook: [f3 0f 1e fa] [f2] ff 25 disp32. */
static HP_NOINST int plt_to(const uint8_t *p, uint64_t hook)
{
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4;
    if (p[0] == 0xf2) p++;
    if (p[0] != 0xff || p[1] != 0x25) return 0;
    const uint8_t *next = p + 6;
    uint64_t slot;
    memcpy(&slot, next + (int32_t)load_u32(p + 2), 8);
    return slot == hook;
}

HP_NOINST void hp_sites_note(uint64_t ret, uint64_t hook)
{
    if (!HP_LOAD_RLX(&hp_g_patch)) return;
    uint64_t site = ret - 5;
    uint64_t i = site_hash(site) & (SET_CAP - 1);
    for (;; i = (i + 1) & (SET_CAP - 1)) { /* fast path: already known */
        uint64_t k = HP_LOAD_ACQ(&g_set[i]);
        if (k == site) return;
        if (k == 0) break;
    }
    const uint8_t *p = (const uint8_t *)(uintptr_t)site;
    if (p[0] != 0xe8) return; /* mid-patch (then it is known) or not a direct call */
    uint32_t rel = load_u32(p + 1);
    uint64_t target = ret + (uint64_t)(int64_t)(int32_t)rel;
    if (target != hook && !plt_to((const uint8_t *)(uintptr_t)target, hook)) return;
    if (HP_LOAD_RLX(&g_n) >= SITES_CAP) return;
    for (;; i = (i + 1) & (SET_CAP - 1)) {
        uint64_t expect = 0;
        if (__atomic_compare_exchange_n(&g_set[i], &expect, site, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) break;
        if (expect == site) return; /* another thread claimed it */
    }
    uint32_t idx = __atomic_fetch_add(&g_n, 1, __ATOMIC_ACQ_REL);
    if (idx >= SITES_CAP) return; /* claimed but never patched: stays a live call */
    g_orig[idx] = rel;
    HP_STORE_REL(&g_list[idx], site);
}

/* ---------------------------------------------------------------- patching (control thread) */

static HP_NOINST void sync_cores(void) { syscall(SYS_membarrier, g_sync_cmd, 0, 0); }

/* Makes the page of addr (and of addr + 4) writable, once. 0 on failure (site skipped). */
static HP_NOINST int page_writable(uint64_t addr)
{
    uint64_t page = addr & ~4095ull;
    for (uint64_t i = site_hash(page) & (PAGES_CAP - 1);; i = (i + 1) & (PAGES_CAP - 1)) {
        if (g_pages[i] == page) return 1;
        if (g_pages[i] != 0) continue;
        uint64_t len = ((addr + 4) & ~4095ull) == page ? 4096 : 8192;
        if (mprotect((void *)(uintptr_t)page, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return 0;
        g_pages[i] = page;
        if (len == 8192) return page_writable(page + 4096);
        return 1;
    }
}

/* Rewrites sites [from, to) of the list into calls (on) or nops (off); returns the first index
 * not handled (an entry still being published stops the pass there). */
static HP_NOINST uint32_t pass(uint32_t from, uint32_t to, int on)
{
    static const uint8_t nop_tail[4] = {0x1f, 0x44, 0x00, 0x00};
    uint32_t end = from;
    while (end < to && HP_LOAD_ACQ(&g_list[end])) end++;
    if (end == from) return from;
    for (uint32_t i = from; i < end; i++) {
        uint64_t s = g_list[i];
        if (s == DEAD || !page_writable(s)) { g_list[i] = DEAD; continue; } /* cannot write: stays live */
        __atomic_store_n((uint8_t *)(uintptr_t)s, 0xcc, __ATOMIC_RELAXED);
    }
    sync_cores();
    for (uint32_t i = from; i < end; i++) {
        if (g_list[i] == DEAD) continue;
        uint8_t *p = (uint8_t *)(uintptr_t)g_list[i];
        if (on) memcpy(p + 1, &g_orig[i], 4);
        else memcpy(p + 1, nop_tail, 4);
    }
    sync_cores();
    for (uint32_t i = from; i < end; i++)
        if (g_list[i] != DEAD) __atomic_store_n((uint8_t *)(uintptr_t)g_list[i], on ? 0xe8 : 0x0f, __ATOMIC_RELAXED);
    sync_cores();
    HP_STORE_RLX(&g_stats.passes, g_stats.passes + 1);
    HP_STORE_RLX(&g_stats.writes, g_stats.writes + (end - from));
    return end;
}

static HP_NOINST uint32_t listed(void)
{
    uint32_t n = HP_LOAD_ACQ(&g_n);
    return n > SITES_CAP ? SITES_CAP : n;
}

static HP_NOINST void sites_on(void) { pass(0, g_done, 1); }
static HP_NOINST void sites_off(void) { g_done = pass(0, listed(), 0); }
static HP_NOINST void sites_tick(void)
{
    uint32_t n = listed();
    if (n > g_done) g_done = pass(g_done, n, 0);
}

static HP_NOINST size_t sites_info(char *out, size_t cap)
{
    static const char *const keys[] = {"patch.sites=", "patch.passes=", "patch.site_writes=", "patch.traps="};
    uint64_t vals[] = {listed(), HP_LOAD_RLX(&g_stats.passes), HP_LOAD_RLX(&g_stats.writes),
                       HP_LOAD_RLX(&g_stats.traps)};
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        char num[24];
        size_t kl = strlen(keys[k]), nl = hp_fmt_u64(num, vals[k]);
        if (n + kl + nl + 1 > cap) break;
        memcpy(out + n, keys[k], kl), n += kl;
        memcpy(out + n, num, nl), n += nl;
        out[n++] = '\n';
    }
    return n;
}

static const hp_pb_backend g_sites_backend = {"patch", sites_on, sites_off, sites_tick, sites_info};

/* ---------------------------------------------------------------- SIGTRAP */

static HP_NOINST void on_trap(int signo, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    uint64_t at = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
    if (g_set && site_known(at)) {
        uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(at + 5); /* skip the half-patched instruction */
        HP_STORE_RLX(&g_stats.traps, g_stats.traps + 1);
        return;
    }
    if (g_old_trap.sa_flags & SA_SIGINFO) {
        if (g_old_trap.sa_sigaction) g_old_trap.sa_sigaction(signo, si, ctx);
        return;
    }
    if (g_old_trap.sa_handler == SIG_IGN) return;
    if (g_old_trap.sa_handler != SIG_DFL) {
        g_old_trap.sa_handler(signo);
        return;
    }
    signal(SIGTRAP, SIG_DFL); /* not ours: the default action (core dump) */
    raise(SIGTRAP);
}

/* ---------------------------------------------------------------- init */

static HP_NOINST void say1(const char *msg)
{
    const char *parts[] = {"hotprof: patch: ", msg};
    hp_say(parts, 2);
}

static HP_NOINST int membarrier_ready(void)
{
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0) {
        g_sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;
        return 1;
    }
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0) {
        g_sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
        return 1;
    }
    return 0;
}

/* HOTPROF_BURSTS: "live" (hooks always run: HPS's counters in every hook), "patch" (required),
 * unset/"auto" (patch when possible). HOTPROF_WINDOW: units per window at least. */
HP_NOINST int hp_sites_probe(int quiet)
{
    const char *want = getenv("HOTPROF_BURSTS");
    int required = want && strcmp(want, "patch") == 0;
    if (want && strcmp(want, "live") == 0) return 0;
    if (want && *want && !required && strcmp(want, "auto") != 0) {
        if (!quiet) say1("HOTPROF_BURSTS is live, patch or auto; using auto");
    }
    const char *w = getenv("HOTPROF_WINDOW");
    long min_window = w && *w ? strtol(w, NULL, 10) : (long)MIN_WINDOW_DEFAULT;
    if (min_window < 1 || min_window > (long)HP_BURSTY_MAX_COUNT) min_window = MIN_WINDOW_DEFAULT;
    g_min_window = (uint32_t)min_window;
    hp_pb_schedule probe;
    if (hp_pb_schedule_from_config(&probe, g_min_window, HP_BURSTY_ALL) != 0) return 0;
    if (!membarrier_ready()) {
        if (required || !quiet) say1("unavailable: membarrier() cannot serialize cores here; hooks stay live");
        return 0;
    }
    g_set = hp_map(SET_CAP * sizeof *g_set);
    g_list = hp_map(SITES_CAP * sizeof *g_list);
    g_orig = hp_map(SITES_CAP * sizeof *g_orig);
    g_pages = hp_map(PAGES_CAP * sizeof *g_pages);
    if (!g_set || !g_list || !g_orig || !g_pages) return 0;
    HP_STORE_REL(&hp_g_patch, 1);
    return 1;
}

HP_NOINST void hp_sites_start(void)
{
    if (!HP_LOAD_ACQ(&hp_g_patch)) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, &g_old_trap) != 0) {
        say1("cannot install the SIGTRAP handler; hooks stay live");
        HP_STORE_REL(&hp_g_patch, 0);
        return;
    }
    if (hp_pb_start(&g_sites_backend, g_min_window, HP_BURSTY_ALL) != 0) HP_STORE_REL(&hp_g_patch, 0);
}

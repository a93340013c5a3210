/* shadow_rate_sites.c — a shadow's native event rate without two-version code (docs/shadow.md
 * "Coverage"): a program built with --hooks=all, blocks, ... whose hook call sites the parent
 * turned off (sites.c). Before its seccomp filter, the shadow (one thread) maps a page near its
 * listed sites holding a counting stub (`movabs $g_count, %rax; incq (%rax); ret`: rax and the
 * flags are the call's to clobber) and two measuring loops; it times a call of the stub against a
 * 5-byte nop (the stub's cost per event), then makes every listed site whose call goes to the
 * entry hook or the block hook call the stub, and every other listed site off
 * (hp_sites_child_retarget) — when the shadow has recorded its sample (shadow_rate.c
 * hp_shadow_rate_hold_end): the program runs its own code and counts its calls + blocks at about
 * native speed; shadow_rate.c closes windows at its ticks as for two-version code, and the shadow
 * ends after them (its sites are never turned back).
 *
 * Not counted: sites never run in the parent before the fork (they are not listed; they call
 * their hooks, which count their events exactly, only slower), indirect calls to hooks.
 * State: the counter and the page (file-static; a shadow's only, unused in the parent).
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/dual_tramp.h"
#include <string.h>
#include <sys/mman.h>

#define STUB_AT 64 /* the stub's offset in the page; the loops are at 0 (call) and 32 (nop) */

void __cyg_profile_func_enter(void *fn, void *site);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

static uint64_t g_count; /* calls of the stub */
static uint8_t *g_page;

/* The page: at 0 a loop of `n` (rdi) iterations that calls the stub, at 32 the same loop with a
 * 5-byte nop, at STUB_AT the stub. Near [lo, hi] (rel32 reach), read-execute. */
static HP_NOINST uint8_t *make_page(uint64_t lo, uint64_t hi)
{
    uint8_t *p = hp_tramp_map_near(lo, hi, 4096);
    if (!p) return NULL;
    hp_shadow_rate_loops(p, 0xe8, STUB_AT - 5); /* call rel32 */
    uint8_t *s = p + STUB_AT;
    uint64_t counter = (uint64_t)(uintptr_t)&g_count;
    s[0] = 0x48, s[1] = 0xb8; /* movabs $counter, %rax */
    memcpy(s + 2, &counter, 8);
    s[10] = 0x48, s[11] = 0xff, s[12] = 0x00; /* incq (%rax) */
    s[13] = 0xc3;
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}

HP_NOINST int hp_shadow_rate_sites_prepare(double *cost_ns)
{
    uint64_t lo, hi;
    hp_sites_child_span(&lo, &hi);
    if (!hi || !(g_page = make_page(lo, hi + 5))) return 0;
    *cost_ns = hp_shadow_rate_cost_ns(g_page, g_page + 32);
    return 1;
}

HP_NOINST int hp_shadow_rate_sites_begin(void)
{
    if (!g_page) return 0;
    const uint64_t hooks[2] = {(uint64_t)(uintptr_t)&__cyg_profile_func_enter,
                               (uint64_t)(uintptr_t)&__sanitizer_cov_trace_pc_guard};
    g_count = 0;
    return hp_sites_child_retarget((uint64_t)(uintptr_t)(g_page + STUB_AT), hooks, 2) > 0;
}

HP_NOINST uint64_t hp_shadow_rate_sites_count(void) { return HP_LOAD_RLX(&g_count); }

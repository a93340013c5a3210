/* dual_text.c — the executable ranges of the modules that registered dual sites (dual.h
 * hp_dual_text_note / hp_dual_in_text), so count mode's subpath cut rule can tell a return into
 * a clean copy of ours (its blocks are not seen: cut) from a return out of every module of ours
 * (a thread's start routine returning into libc, a callback returning into an uninstrumented
 * library: no block of ours runs until code of ours is entered again, which the exhaustive block
 * stream sees as the very next block too — nothing to cut; docs/dual.md "Return sites").
 *
 * The same ranges let a sampled call tell a tail call of a clean copy (hp_dual_tail_caller).
 *
 * Invariants: g_text[0..g_ntext) are half-open [lo, hi) ranges of PF_X PT_LOAD segments, each
 * written before g_ntext is published (release), never removed (a dlclose'd module's range stays:
 * a return into whatever is mapped there later is treated as ours, i.e. cut — the conservative
 * side). Writers: module constructors (hp_dual_register, under dual.c's lock). Readers
 * (hp_dual_in_text) are async-signal-safe: loads only.
 */
#define _GNU_SOURCE
#include "runtime/ctl/dual.h"
#include "runtime/base.h"
#include "runtime/ctl/x86_call.h"
#include <link.h>

#define TEXT_CAP 256u

static struct { uint64_t lo, hi; } g_text[TEXT_CAP];
static uint32_t g_ntext;
static int g_overflow; /* a range could not be stored: every address counts as ours */

static int has_range(uint64_t lo, uint64_t hi)
{
    for (uint32_t i = 0; i < g_ntext; i++)
        if (g_text[i].lo == lo && g_text[i].hi == hi) return 1;
    return 0;
}

static void add_range(uint64_t lo, uint64_t hi)
{
    if (has_range(lo, hi)) return;
    if (g_ntext >= TEXT_CAP) {
        HP_STORE_REL(&g_overflow, 1);
        return;
    }
    g_text[g_ntext].lo = lo;
    g_text[g_ntext].hi = hi;
    HP_STORE_REL(&g_ntext, g_ntext + 1);
}

/* dl_iterate_phdr callback: the object that maps `data` adds its executable segments. */
static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uint64_t a = (uint64_t)(uintptr_t)data;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uint64_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && a >= lo && a < lo + p->p_memsz) mine = 1;
    }
    if (!mine) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
            add_range(info->dlpi_addr + p->p_vaddr, info->dlpi_addr + p->p_vaddr + p->p_memsz);
    }
    return 1;
}

void hp_dual_text_note(const void *module_data)
{
    if (dl_iterate_phdr(note_object, (void *)(uintptr_t)module_data) == 0) HP_STORE_REL(&g_overflow, 1);
}

/* 1 if [lo, hi) lies inside one noted range. */
static int in_noted(uint64_t lo, uint64_t hi)
{
    uint32_t n = HP_LOAD_ACQ(&g_ntext);
    for (uint32_t i = 0; i < n; i++)
        if (lo >= g_text[i].lo && hi <= g_text[i].hi) return 1;
    return 0;
}

int hp_dual_in_text(uint64_t addr) { return HP_LOAD_ACQ(&g_overflow) || in_noted(addr, addr + 1); }

/* 1 if [lo, hi) can be read: inside one noted range (never after an overflow). */
static int readable(uint64_t lo, uint64_t hi) { return !HP_LOAD_ACQ(&g_overflow) && lo <= hi && in_noted(lo, hi); }

/* A jump on the way to a function rather than a function: a PLT entry, or a jump thunk within
 * our text. A `jmp rel32` out of it is a clean entry's count-mode site jumping to its trampoline
 * (dual_tramp.h): a function. */
static int is_stub(const uint8_t *q)
{
    if (hp_x86_plt_jump(q)) return 1;
    if (q[0] == 0xe9) {
        uint64_t to = hp_x86_rel32_dest((uint64_t)(uintptr_t)q);
        return readable(to, to + 1);
    }
    return q[0] == 0xeb;
}

uint64_t hp_dual_tail_caller(uint64_t fn, uint64_t ret)
{
    if (ret < 5 || !readable(ret - 5, ret)) return 0;
    uint64_t target = hp_x86_call_target(ret); /* 0: no direct call before ret, nothing to tell */
    if (!target || target == fn || !readable(target, target + 16)) return 0;
    return is_stub((const uint8_t *)(uintptr_t)target) ? 0 : target;
}

/* dual_text.c — the executable ranges of the modules that registered dual sites (dual.h
 * hp_dual_text_note / hp_dual_in_text), so count mode's subpath cut rule can tell a return into
 * a clean copy of ours (its blocks are not seen: cut) from a return out of every module of ours
 * (a thread's start routine returning into libc, a callback returning into an uninstrumented
 * library: no block of ours runs until code of ours is entered again, which the exhaustive block
 * stream sees as the very next block too — nothing to cut; docs/dual.md "Return sites").
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

int hp_dual_in_text(uint64_t addr)
{
    if (HP_LOAD_ACQ(&g_overflow)) return 1;
    uint32_t n = HP_LOAD_ACQ(&g_ntext);
    for (uint32_t i = 0; i < n; i++)
        if (addr >= g_text[i].lo && addr < g_text[i].hi) return 1;
    return 0;
}

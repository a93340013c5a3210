/* x86_call.h — the few x86-64 encodings the runtime reads in code it did not write: a direct call
 * (`call rel32`, e8) before a return address, any 5-byte rel32 instruction's destination, a direct
 * jmp's, and a PLT entry (`jmp *disp32(%rip)`, ff 25, after an optional endbr64 and bnd prefix).
 * Used by sites.c (hook call sites), dual_text.c (tail calls of clean copies) and dual_branch.c
 * (latch pads' guards). Callers make sure the
 * bytes they pass are mapped. Static inline, loads only: async-signal-safe.
 */
#ifndef HOTPROF_RUNTIME_CTL_X86_CALL_H
#define HOTPROF_RUNTIME_CTL_X86_CALL_H
#include <stdint.h>
#include <string.h>
#include "runtime/base.h"

#define HP_X86_CALL_REL32 0xe8

static inline HP_NOINST uint32_t hp_x86_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Where the 5-byte instruction at insn with a rel32 operand (call e8, jmp e9, or a site's other
 * forms with the same tail) goes: insn + 5 + rel32, whatever its opcode byte. */
static inline HP_NOINST uint64_t hp_x86_rel32_dest(uint64_t insn)
{
    return insn + 5 + (uint64_t)(int64_t)(int32_t)hp_x86_u32((const uint8_t *)(uintptr_t)insn + 1);
}

/* Where the direct jmp at insn goes (`jmp rel8`, eb, or `jmp rel32`, e9; *len its length), or 0
 * if the bytes there are no such jmp. */
static inline HP_NOINST uint64_t hp_x86_jmp_dest(uint64_t insn, unsigned *len)
{
    const uint8_t *q = (const uint8_t *)(uintptr_t)insn;
    if (q[0] == 0xeb) return *len = 2, insn + 2 + (uint64_t)(int64_t)(int8_t)q[1];
    if (q[0] == 0xe9) return *len = 5, hp_x86_rel32_dest(insn);
    return 0;
}

/* The target of the `call rel32` that ends right before ret, or 0 if those 5 bytes are none. */
static inline HP_NOINST uint64_t hp_x86_call_target(uint64_t ret)
{
    if (*(const uint8_t *)(uintptr_t)(ret - 5) != HP_X86_CALL_REL32) return 0;
    return hp_x86_rel32_dest(ret - 5);
}

/* The ff 25 of a PLT entry at p ([f3 0f 1e fa] [f2] ff 25 disp32), or NULL. */
static inline HP_NOINST const uint8_t *hp_x86_plt_jump(const uint8_t *p)
{
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4; /* endbr64 */
    if (p[0] == 0xf2) p++;                                                     /* bnd */
    return p[0] == 0xff && p[1] == 0x25 ? p : NULL;
}

#endif

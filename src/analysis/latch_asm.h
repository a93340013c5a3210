/* latch_asm.h — the latch's own branch as the site (`hotprof cc --dual-latch=branch`, docs/dual.md
 * "The latch's branch as the site"): a rewrite of the assembly clang writes for a dual-* build.
 *
 * The plugin puts a patchable nop site (plugin/hotprof_dual.cpp emitSite) on every loop latch
 * edge: a block L holding the nop, then either a `jmp` back to the header or a fall-through into
 * it. Switched off, every back-edge still runs that nop, and the `jmp` when there is one. This
 * rewrite finds each back-edge nop site of clang's -no-integrated-as output, the labels L that
 * stand for its block (labels right before the site, nothing between) and its continuation C (the
 * `jmp` target after the nop, else the label after it: one is added when there is none), and
 * rewrites every direct `jmp`/`jcc` to L into the same branch with a 32-bit displacement to C,
 * aligned so that its rel32 lies inside one aligned 8-byte word (DS prefixes of the branch pad it
 * there: `.p2align 3,0x3e,5` before a jcc, `,4` before a jmp; 0x3e is the "taken" hint, ignored or
 * right for a back-edge). Each rewritten branch gets a record in section __hotprof_dualbr (in the
 * site's own section group when the function is in a comdat):
 *     {int32 rel32 - &this, int32 L - &this, int32 C - &this, int32 X - &this}
 * (X: the latch pad's guard, or the pad itself; 0: no pad, as in builds before session 38)
 * and the runtime (runtime/ctl/dual_branch.c) points the rel32 at L while sites are on and at C
 * while they are off. Both states run the same program: a branch to L runs the nop (off: on to C;
 * on: into the instrumented copy), a branch to C is the nop switched off. Everything else that
 * reaches L (a fall-through, a jump table, an address taken) still runs the nop.
 *
 * Latch pads (P): right before each continuation's labels (after the code generator's own
 * `.p2align`, if any) go `.p2align 4` and 16 bytes of three nops (9, 6 and 1 bytes,
 * HP_LATCH_ASM_PAD_BYTES), so P + 16 = C; where the code above may fall into them, a guard X
 * before that alignment: `jmp C` (2 bytes), which also skips the alignment's nops. The record's
 * last field is X, or P when there is no guard (a jmp, ret or ud2 comes before). Nothing runs the
 * pad's nops. Count mode (`--bursts count`) writes P once as
 *     64 48 ff 0c 25 <off32>  decq %fs:countdown  |  0f 8e <rel32>  jle <target>  |  90
 * and points the branches at P: a back-edge then decrements and falls into C, with no jump out
 * and back (a trampoline's). Sites whose continuations are one place and whose records name one
 * target share one pad; a site with another target gets a detached pad at its function's end
 * (before `.Lfunc_end`), the same 16 bytes followed by `jmp C`, named by its records (no guard).
 * A continuation the rewrite made (after the site) gets its own pad, guarded.
 *
 * One more line is changed, for GNU as: a `.section` of a link-order section in a comdat group,
 * which LLVM prints as `...,@progbits,GROUP,comdat,LINKED` and gas takes as
 * `...,@progbits,LINKED,GROUP,comdat` (hotprof cc gives clang -fbinutils-version=2.36, so that
 * such sections stay in their group at all).
 *
 * Invariants: the output assembles to the input's code but for the rewritten branches, the padding
 * before them and the added labels and records; lines between #APP and #NO_APP are copied as they
 * are; a pad goes only before .L labels and lines that emit nothing, its guard only before those
 * or an alignment; a site whose text is not exactly the plugin's nop site of kind 1 (back-edge),
 * flags 0, is left alone, as is a branch that is not `j<cc>`/`jmp` with one plain label operand.
 */
#ifndef HOTPROF_ANALYSIS_LATCH_ASM_H
#define HOTPROF_ANALYSIS_LATCH_ASM_H
#include <stddef.h>
#include <stdio.h>

typedef struct hp_latch_asm_stats {
    size_t sites;      /* back-edge nop sites found */
    size_t targeted;   /* ... of them reached by at least one rewritten branch */
    size_t branches;   /* branches rewritten */
    size_t conts_made; /* continuation labels added */
    size_t pads;       /* latch pads written */
} hp_latch_asm_stats;

/* A latch pad's bytes as the rewrite writes them (the runtime's dual_tramp.h hp_tramp_latch_pad_nops). */
#define HP_LATCH_ASM_PAD_BYTES "0x66,0x0f,0x1f,0x84,0x00,0x00,0x00,0x00,0x00,0x66,0x0f,0x1f,0x44,0x00,0x00,0x90"

/* The condition-code nibble of a jcc mnemonic ("jne" -> 5), or -1 (jmp, or not a jcc). */
int hp_latch_asm_cc(const char *mnemonic, size_t len);

/* Rewrites text[0..len) to out, with latch pads unless pads == 0. 0, or -1 if out failed or
 * memory ran out (out may hold part). */
int hp_latch_asm_rewrite(const char *text, size_t len, FILE *out, int pads, hp_latch_asm_stats *stats);

#endif

/* dual_tramp.h — the per-site trampolines of count-triggered bursts on two-version code
 * (`--bursts count`, ctl/dual.c, docs/dual.md): their encoding, the executable pages near a module
 * that hold them, and the %fs offset of the thread's countdown they decrement.
 *
 * One trampoline (HP_TRAMP_SLOT bytes, HP_TRAMP_LEN used, the rest int3):
 *     64 48 83 2c 25 <off32> 01    subq $1, %fs:OFF      (OFF: hp_dual_countdown, thread.h)
 *     0f 8e <rel32>                jle  <the site's instrumented target>
 *     e9 <rel32>                   jmp  <site + 5>       (back into the clean copy)
 * A return site's trampoline (hp_tramp_encode_test) compares instead of decrementing:
 *     64 48 83 3c 25 <off32> 00    cmpq $0, %fs:OFF      (not an event: the countdown is unchanged)
 *     0f 8e <rel32> / e9 <rel32>   as above: the instrumented copy while the countdown is <= 0
 * No stack use (the red zone stays intact); it clobbers the flags only, which the plugin's nops
 * declare clobbered (~{flags}). Both jumps are rel32: a trampoline must lie within +-2 GB of its
 * targets, hence pages mapped near the module (hp_tramp_map_near).
 *
 * Pure encoders (hp_tramp_rel32, hp_tramp_encode) are unit-tested; the others make system calls.
 * No state. Layering: ctl/ (base only).
 */
#ifndef HOTPROF_RUNTIME_CTL_DUAL_TRAMP_H
#define HOTPROF_RUNTIME_CTL_DUAL_TRAMP_H
#include <stddef.h>
#include <stdint.h>

#define HP_TRAMP_SLOT 32u /* bytes per trampoline (32-byte aligned slots) */
#define HP_TRAMP_LEN 21u  /* bytes of code in a slot */

/* The rel32 of a jump whose next instruction is at `next` to `to`: 1 (and *rel) if it fits. */
int hp_tramp_rel32(uint64_t next, uint64_t to, int32_t *rel);
/* Writes the trampoline that will live at address `at` into out[HP_TRAMP_SLOT]: jle to target,
 * else jmp to resume, after decrementing the 64-bit word at %fs:fs_off. HP_TRAMP_LEN, or 0 when
 * target or resume is out of rel32 reach from at (out is then unspecified). */
size_t hp_tramp_encode(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off);
/* The same with `cmpq $0, %fs:fs_off` in place of the decrement (a return site: not an event). */
size_t hp_tramp_encode_test(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off);
/* A count build's entry pad (dual.h HP_DUAL_REC_PAD): the 16 bytes the code generator put at a
 * function's first byte. clang 14 fills them with a 10- and a 6-byte nop (HP_PAD_10_6, generic
 * tuning) or a 15- and a 1-byte nop (HP_PAD_15_1, -march=skylake, znver3, x86-64-v3 ...). In count
 * mode they become, in one 16-byte store (hp_tramp_store16),
 *   10+6:  64 48 83 2c 25 <off32> 01   subq $1, %fs:OFF    0f 8e <rel32>   jle <target>
 *   15+1:  64 48 ff 0c 25 <off32>      decq %fs:OFF        0f 8e <rel32>   jle <target>   90  nop
 * (dec sets ZF, SF and OF as sub $1 does), so every boundary of the old nops (0, 10 or 15, 16) is
 * a boundary of the new code: a thread that ran the first nop before the store runs the jle with
 * the flags its caller left (10+6) or the nop (15+1), and at worst enters the instrumented copy
 * once without a decrement (its hook then counts the event). */
#define HP_PAD_LEN 16u
enum { HP_PAD_NONE = 0, HP_PAD_10_6 = 1, HP_PAD_15_1 = 2 };
/* The 16 bytes clang emits for a form (HP_PAD_10_6 or HP_PAD_15_1). */
const uint8_t *hp_tramp_pad_nops(int form);
/* The form of the 16 bytes at p: HP_PAD_10_6 or HP_PAD_15_1 if they are clang's nops, else 0. */
int hp_tramp_pad_form(const uint8_t *p);
/* Writes the count form of a pad of the given form that lives at `at` into out[HP_PAD_LEN]:
 * HP_PAD_LEN, or 0 when target is out of rel32 reach or the form is none (out is then unspecified). */
size_t hp_tramp_encode_pad(uint8_t *out, uint64_t at, uint64_t target, int32_t fs_off, int form);
/* The first five bytes that make the pad at p whole again after a `jmp` was written over them (a
 * nop site's off): the form's own when bytes 5..15 are still one of the forms, else `jmp .+16`
 * (eb 0e) and p's bytes 2..4 (past the pad: correct whatever the rest holds). */
void hp_tramp_pad_head(const uint8_t *p, uint8_t head[5]);
/* A latch pad (`--dual-latch=branch` builds, analysis/latch_asm.h): 16 bytes right before a latch
 * branch's continuation C, three nops of 9, 6 and 1 bytes as the assembly rewrite writes them (a
 * `jmp C` above them keeps what falls in out). Count mode writes them as HP_PAD_15_1's count form
 * (hp_tramp_encode_pad: decq, jle, nop; boundaries 0, 9, 15, 16, the nops' among them). */
const uint8_t *hp_tramp_latch_pad_nops(void);
/* Stores the 16 bytes v at the 16-aligned w atomically (lock cmpxchg16b). 0 if this CPU has no
 * cmpxchg16b (nothing is written). */
int hp_tramp_store16(void *w, const uint8_t v[16]);
/* len bytes of fresh read-write memory mapped so that every byte of it reaches every address in
 * [lo, hi] with a rel32 jump; NULL if no such place could be mapped. */
void *hp_tramp_map_near(uint64_t lo, uint64_t hi, size_t len);
/* The %fs-relative offset of a variable of this thread's static (initial-exec) TLS block:
 * (char *)var - %fs:0. 1 (and *off) if it fits in 32 bits. The same in every thread. */
int hp_tramp_fs_offset(const void *tls_var, int32_t *off);

#endif

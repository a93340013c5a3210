/* dual_tramp.c — encoding and placing the per-site trampolines of `--bursts count` (dual_tramp.h,
 * docs/dual.md). Invariant: a trampoline is only ever written while no thread can run it (its page
 * is filled before any site jumps to it, then made read-execute). No state.
 */
#define _GNU_SOURCE
#include "runtime/ctl/dual_tramp.h"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REACH 0x7fff0000ll       /* a little under 2 GB: rel32 reach with a margin */
#define HINT_STEP (16ull << 20)  /* hints tried every 16 MB away from the module */
#define HINT_TRIES 64

int hp_tramp_rel32(uint64_t next, uint64_t to, int32_t *rel)
{
    int64_t d = (int64_t)(to - next);
    if (d < INT32_MIN || d > INT32_MAX) return 0;
    *rel = (int32_t)d;
    return 1;
}

static void put32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}

/* `OP $imm, %fs:fs_off; jle target; jmp resume`, OP's ModRM byte given (83 /5 sub, 83 /7 cmp). */
static size_t encode(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off, uint8_t modrm,
                     uint8_t imm)
{
    const uint8_t op[5] = {0x64, 0x48, 0x83, modrm, 0x25}; /* OPq $imm8, %fs:disp32 */
    int32_t to_target, to_resume;
    if (!hp_tramp_rel32(at + 16, target, &to_target) || !hp_tramp_rel32(at + 21, resume, &to_resume)) return 0;
    memset(out, 0xcc, HP_TRAMP_SLOT);
    memcpy(out, op, 5);
    put32(out + 5, fs_off);
    out[9] = imm;
    out[10] = 0x0f, out[11] = 0x8e; /* jle rel32 */
    put32(out + 12, to_target);
    out[16] = 0xe9; /* jmp rel32 */
    put32(out + 17, to_resume);
    return HP_TRAMP_LEN;
}

size_t hp_tramp_encode(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off)
{
    return encode(out, at, target, resume, fs_off, 0x2c, 0x01); /* subq $1 */
}

size_t hp_tramp_encode_test(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off)
{
    return encode(out, at, target, resume, fs_off, 0x3c, 0x00); /* cmpq $0 */
}

static int reaches(uint64_t at, size_t len, uint64_t lo, uint64_t hi)
{
    int64_t far_lo = (int64_t)(at + len - lo), far_hi = (int64_t)(hi - at);
    return far_lo < REACH && far_lo > -REACH && far_hi < REACH && far_hi > -REACH;
}

/* Hints above the module first (usually free after a program's image), then below it. */
void *hp_tramp_map_near(uint64_t lo, uint64_t hi, size_t len)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    len = (len + page - 1) & ~(page - 1);
    for (int i = 0; i < 2 * HINT_TRIES; i++) {
        uint64_t k = (uint64_t)(i / 2 + 1) * HINT_STEP;
        uint64_t hint = i % 2 == 0 ? ((hi + k) & ~(page - 1)) : lo > k + len ? ((lo - k - len) & ~(page - 1)) : 0;
        if (!hint || !reaches(hint, len, lo, hi)) continue;
        void *p = mmap((void *)(uintptr_t)hint, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) continue;
        if (reaches((uint64_t)(uintptr_t)p, len, lo, hi)) return p;
        munmap(p, len); /* the kernel placed it elsewhere: try the next hint */
    }
    return NULL;
}

int hp_tramp_fs_offset(const void *tls_var, int32_t *off)
{
    uint64_t fs_base;
    __asm__("mov %%fs:0, %0" : "=r"(fs_base));
    int64_t d = (int64_t)((uint64_t)(uintptr_t)tls_var - fs_base);
    if (d < INT32_MIN || d > INT32_MAX) return 0;
    *off = (int32_t)d;
    return 1;
}

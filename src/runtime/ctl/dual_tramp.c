/* dual_tramp.c — encoding and placing the per-site trampolines of `--bursts count` (dual_tramp.h,
 * docs/dual.md). Invariant: a trampoline is only ever written while no thread can run it (its page
 * is filled before any site jumps to it, then made read-execute). No state.
 */
#define _GNU_SOURCE
#include "runtime/ctl/dual_tramp.h"
#include <cpuid.h>
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

/* `OPq ..., %fs:fs_off` (64 48 opcode modrm 25 disp32): its 9 bytes, an imm8 operand follows. */
static size_t put_fs_op(uint8_t *out, uint8_t opcode, uint8_t modrm, int32_t fs_off)
{
    const uint8_t op[5] = {0x64, 0x48, opcode, modrm, 0x25};
    memcpy(out, op, 5);
    put32(out + 5, fs_off);
    return 9;
}

/* `jle rel32` (6 bytes). */
static void put_jle(uint8_t *out, int32_t rel)
{
    out[0] = 0x0f, out[1] = 0x8e;
    put32(out + 2, rel);
}

/* `OP $imm, %fs:fs_off; jle target; jmp resume`, OP's ModRM byte given (83 /5 sub, 83 /7 cmp). */
static size_t encode(uint8_t *out, uint64_t at, uint64_t target, uint64_t resume, int32_t fs_off, uint8_t modrm,
                     uint8_t imm)
{
    int32_t to_target, to_resume;
    if (!hp_tramp_rel32(at + 16, target, &to_target) || !hp_tramp_rel32(at + 21, resume, &to_resume)) return 0;
    memset(out, 0xcc, HP_TRAMP_SLOT);
    out[put_fs_op(out, 0x83, modrm, fs_off)] = imm;
    put_jle(out + 10, to_target);
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

/* What clang 14 emits for patchable-function-entry=16 on x86-64. Generic tuning: cs nopw
 * 0x200(%rax,%rax,1); nopw 0x8(%rax,%rax,1). CPUs with fast 15-byte nops: five data16 prefixes on
 * the same 10-byte nop, then nop. */
static const uint8_t PAD_10_6[HP_PAD_LEN] = {0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02,
                                             0x00, 0x00, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x08};
static const uint8_t PAD_15_1[HP_PAD_LEN] = {0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x66, 0x0f,
                                             0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00, 0x90};

const uint8_t *hp_tramp_pad_nops(int form) { return form == HP_PAD_15_1 ? PAD_15_1 : PAD_10_6; }

int hp_tramp_pad_form(const uint8_t *p)
{
    if (memcmp(p, PAD_10_6, HP_PAD_LEN) == 0) return HP_PAD_10_6;
    if (memcmp(p, PAD_15_1, HP_PAD_LEN) == 0) return HP_PAD_15_1;
    return HP_PAD_NONE;
}

void hp_tramp_pad_head(const uint8_t *p, uint8_t head[5])
{
    const uint8_t *forms[2] = {PAD_10_6, PAD_15_1};
    for (int i = 0; i < 2; i++)
        if (memcmp(p + 5, forms[i] + 5, HP_PAD_LEN - 5) == 0) {
            memcpy(head, forms[i], 5);
            return;
        }
    memcpy(head, p, 5);
    head[0] = 0xeb, head[1] = HP_PAD_LEN - 2; /* jmp rel8 past the pad */
}

size_t hp_tramp_encode_pad(uint8_t *out, uint64_t at, uint64_t target, int32_t fs_off, int form)
{
    size_t jle = form == HP_PAD_10_6 ? 10 : 9; /* where the jle begins */
    int32_t to_target;
    if (form == HP_PAD_NONE || !hp_tramp_rel32(at + jle + 6, target, &to_target)) return 0;
    if (form == HP_PAD_10_6) {
        out[put_fs_op(out, 0x83, 0x2c, fs_off)] = 0x01; /* subq $1 */
    } else {
        put_fs_op(out, 0xff, 0x0c, fs_off); /* decq */
        out[15] = 0x90;                     /* nop after the jle */
    }
    put_jle(out + jle, to_target);
    return HP_PAD_LEN;
}

/* nopw 0x0(%rax,%rax,1) with a 32-bit and an 8-bit displacement, then nop (latch_asm.h's bytes) */
static const uint8_t LATCH_PAD_NOPS[HP_PAD_LEN] = {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00,
                                                   0x00, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x90};

const uint8_t *hp_tramp_latch_pad_nops(void) { return LATCH_PAD_NOPS; }

/* cmpxchg16b, asked of the CPU once (0 unknown, 1 yes, 2 no; the answer is the same in every thread). */
static int has_cmpxchg16b(void)
{
    static int known;
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        unsigned a, b, c, d;
        k = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_CMPXCHG16B) ? 1 : 2;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 1;
}

int hp_tramp_store16(void *w, const uint8_t v[16])
{
    if (!has_cmpxchg16b()) return 0;
    uint64_t want_lo, want_hi, lo, hi;
    memcpy(&want_lo, v, 8);
    memcpy(&want_hi, v + 8, 8);
    memcpy(&lo, w, 8);
    memcpy(&hi, (uint8_t *)w + 8, 8);
    unsigned char done;
    do /* lo:hi is what is there (a failed compare loads it); retry until our store lands */
        __asm__ volatile("lock cmpxchg16b %1\n\tsete %0"
                         : "=q"(done), "+m"(*(volatile uint8_t(*)[16])w), "+a"(lo), "+d"(hi)
                         : "b"(want_lo), "c"(want_hi)
                         : "memory", "cc");
    while (!done);
    return 1;
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

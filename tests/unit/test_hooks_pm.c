/* test_hooks_pm.c — the back-edge hooks' preserve_most entry points (src/runtime/hooks_pm.c,
 * plugin/dual_hookcall.h), against stand-ins for the C hooks defined here (written in assembly:
 * they overwrite every register a C function may clobber):
 *   - __hotprof_dual_backedge_pm hands F's address on in RDI, returns the C hook's answer in EAX
 *     and gives back RCX, RDX, RSI, RDI, R8, R9, R10 as they were;
 *   - __hotprof_dual_clean_backedge_pm also gives back RAX;
 *   - both call the C hook with RSP 16-byte aligned (RSP = 8 mod 16 at its first instruction);
 *   - __hotprof_blkra_thunk, called with RSP at either alignment, hands its return address to
 *     __hotprof_blkra in RDI, calls it aligned, and gives back every scratch register (RAX and R11
 *     too);
 *   - an unwinder (glibc's backtrace, libgcc's CFI reader) walks from the C hook through each stub
 *     to the instruction after the stub's call site.
 * The stand-ins replace hooks.o's definitions: unit tests link the runtime's parts without it. */
#include <execinfo.h>
#include <stdint.h>
#include "test.h"

int __hotprof_dual_backedge_pm(void *fn);
void __hotprof_dual_clean_backedge_pm(void *fn);

uint64_t pm_seen_rsp, pm_seen_fn, pm_answer, pm_unwind; /* (read and written by the assembly) */
void *pm_frames[8];
int pm_nframes;
void pm_unwind_from_hook(void);
void pm_unwind_from_hook(void) { pm_nframes = backtrace(pm_frames, 8); }

/* pm_frames holds `at` (a sanitizer's interceptor may add a frame before it) */
static int unwound_to(const char *at)
{
    for (int i = 1; i < pm_nframes; i++)
        if (pm_frames[i] == (const void *)at) return 1;
    return 0;
}

/* The stand-in C hooks: note RSP and RDI, overwrite the scratch registers; with pm_unwind set,
 * go to pm_unwind_from_hook instead (a tail jump: its frame is the hook's). */
#define STANDIN(name, answer)                                                                      \
    ".text\n.globl " name "\n.type " name ",@function\n" name ":\n"                                \
    "mov %rsp, pm_seen_rsp(%rip)\nmov %rdi, pm_seen_fn(%rip)\n"                                    \
    "cmpq $0, pm_unwind(%rip)\njne pm_unwind_from_hook\n"                                          \
    "mov $-1, %rcx\nmov $-1, %rdx\nmov $-1, %rsi\nmov $-1, %rdi\nmov $-1, %r8\nmov $-1, %r9\n"     \
    "mov $-1, %r10\nmov $-1, %r11\n" answer "ret\n"
__asm__(STANDIN("__hotprof_dual_backedge", "mov pm_answer(%rip), %eax\n"));
__asm__(STANDIN("__hotprof_dual_clean_backedge", "mov $-1, %rax\n"));
__asm__(STANDIN("__hotprof_blkra", "mov $-1, %rax\n"));

/* CALLER_FRAME: a function CALL that keeps its out-array argument (in register OUT) in RBX,
 * aligns RSP to 16 and subtracts SUB, puts sentinels in the scratch registers (and MORE), calls
 * STUB, and stores RAX, RCX, RDX, RSI, RDI, R8, R9, R10 as the stub left them into out[0..7] (and
 * STORE_MORE); AFTER labels the instruction after the call. A frame with CFI, so unwinding walks
 * on through it. */
#define CALLER_FRAME(call, after, out, sub, more, stub, store_more)                                 \
    ".text\n.globl " call "\n.type " call ",@function\n" call ":\n"                                 \
    ".cfi_startproc\npush %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_rel_offset %rbp, 0\n"              \
    "mov %rsp, %rbp\n.cfi_def_cfa_register %rbp\npush %rbx\n.cfi_offset %rbx, -24\n"              \
    "mov " out ", %rbx\nand $-16, %rsp\n" sub                                                     \
    "mov $0x1010, %rax\nmov $0x2020, %rcx\nmov $0x3030, %rdx\nmov $0x4040, %rsi\n"                 \
    "mov $0x5050, %r8\nmov $0x6060, %r9\nmov $0x7070, %r10\n" more                                \
    "call " stub "\n.globl " after "\n" after ":\n"                                                \
    "mov %rax, 0(%rbx)\nmov %rcx, 8(%rbx)\nmov %rdx, 16(%rbx)\nmov %rsi, 24(%rbx)\n"               \
    "mov %rdi, 32(%rbx)\nmov %r8, 40(%rbx)\nmov %r9, 48(%rbx)\nmov %r10, 56(%rbx)\n" store_more   \
    "mov -8(%rbp), %rbx\nleave\n.cfi_def_cfa %rsp, 8\nret\n.cfi_endproc\n"                          \
    ".size " call ", .-" call "\n"
/* pm_call_NAME(fn, out): calls the stub with fn in RDI, RSP 16-byte aligned; pm_after_NAME is the
 * instruction after the call. */
#define CALLER(name, stub) CALLER_FRAME("pm_call_" name, "pm_after_" name, "%rsi", "", "", stub, "")
/* pm_call_ra_SKEW(out): calls __hotprof_blkra_thunk with RSP = SKEW mod 16 before the call and
 * sentinels in RDI and R11 too, stored into out[4] and out[8]. */
#define CALLER_RA(skew, sub)                                                                       \
    CALLER_FRAME("pm_call_ra_" skew, "pm_after_ra_" skew, "%rdi", sub,                              \
                 "mov $0x9090, %rdi\nmov $0x8080, %r11\n", "__hotprof_blkra_thunk", "mov %r11, 64(%rbx)\n")
__asm__(CALLER("backedge", "__hotprof_dual_backedge_pm"));
__asm__(CALLER("clean", "__hotprof_dual_clean_backedge_pm"));
__asm__(CALLER_RA("0", ""));
__asm__(CALLER_RA("8", "sub $8, %rsp\n"));
void pm_call_ra_0(uint64_t out[9]);
void pm_call_ra_8(uint64_t out[9]);
extern const char pm_after_ra_0[], pm_after_ra_8[];
void pm_call_backedge(void *fn, uint64_t out[8]);
void pm_call_clean(void *fn, uint64_t out[8]);
extern const char pm_after_backedge[], pm_after_clean[];

static void check_saved(const uint64_t out[8], void *fn)
{
    CHECK_EQ_U64(out[1], 0x2020);
    CHECK_EQ_U64(out[2], 0x3030);
    CHECK_EQ_U64(out[3], 0x4040);
    CHECK_EQ_U64(out[4], (uint64_t)(uintptr_t)fn);
    CHECK_EQ_U64(out[5], 0x5050);
    CHECK_EQ_U64(out[6], 0x6060);
    CHECK_EQ_U64(out[7], 0x7070);
    CHECK_EQ_U64(pm_seen_fn, (uint64_t)(uintptr_t)fn);
    CHECK_EQ_U64(pm_seen_rsp % 16, 8);
}

TEST(backedge_pm_keeps_registers_and_returns_the_answer)
{
    uint64_t out[8];
    void *fn = (void *)0x123456789aull;
    for (uint64_t answer = 0; answer < 2; answer++) {
        pm_answer = answer;
        pm_call_backedge(fn, out);
        CHECK_EQ_U64((uint32_t)out[0], answer);
        check_saved(out, fn);
    }
}

TEST(clean_backedge_pm_keeps_rax_too)
{
    uint64_t out[8];
    void *fn = (void *)0xabcdef01ull;
    pm_call_clean(fn, out);
    CHECK_EQ_U64(out[0], 0x1010);
    check_saved(out, fn);
}

TEST(unwinding_walks_through_both_stubs)
{
    uint64_t out[8];
    pm_unwind = 1;
    pm_nframes = 0;
    pm_call_backedge((void *)0x1, out);
    CHECK(unwound_to(pm_after_backedge));
    pm_nframes = 0;
    pm_call_clean((void *)0x1, out);
    CHECK(unwound_to(pm_after_clean));
    pm_unwind = 0;
}

static void check_ra_call(void (*call)(uint64_t *), const char *after)
{
    static const uint64_t want[9] = {0x1010, 0x2020, 0x3030, 0x4040, 0x9090, 0x5050, 0x6060, 0x7070, 0x8080};
    uint64_t out[9];
    call(out);
    for (int i = 0; i < 9; i++) CHECK_EQ_U64(out[i], want[i]);
    CHECK_EQ_U64(pm_seen_fn, (uint64_t)(uintptr_t)after);
    CHECK_EQ_U64(pm_seen_rsp % 16, 8);
    pm_unwind = 1;
    pm_nframes = 0;
    call(out);
    CHECK(unwound_to(after));
    pm_unwind = 0;
}

TEST(blkra_thunk_passes_its_return_address_and_keeps_every_register)
{
    check_ra_call(pm_call_ra_0, pm_after_ra_0);
    check_ra_call(pm_call_ra_8, pm_after_ra_8);
}

int main(void)
{
    RUN(backedge_pm_keeps_registers_and_returns_the_answer);
    RUN(clean_backedge_pm_keeps_rax_too);
    RUN(unwinding_walks_through_both_stubs);
    RUN(blkra_thunk_passes_its_return_address_and_keeps_every_register);
    return test_main_end();
}

/* test_dual_tramp.c — the trampolines of `--bursts count` (src/runtime/ctl/dual_tramp.c):
 *   - hp_tramp_encode writes the bytes the assembler writes for `subq $1, %fs:OFF; jle T; jmp R`
 *     at the same address (a copy assembled into this test), int3 after them;
 *   - hp_tramp_encode_test (a return site's) writes `cmpq $0, %fs:OFF; jle T; jmp R` likewise, and
 *     a mapped one goes to the target while the countdown is <= 0 and leaves the countdown alone;
 *   - rel32 range: a target just inside +-2 GB encodes, one byte beyond does not;
 *   - the countdown's %fs offset is the same in a second thread;
 *   - a trampoline mapped near this test's code runs: it decrements the thread's countdown and
 *     goes to the target exactly when the countdown reaches 0, else to the resume address.
 *   - an entry pad (a count build's, HP_DUAL_REC_PAD), in both forms: hp_tramp_encode_pad writes
 *     what the assembler writes for `subq $1, %fs:OFF; jle T` (10+6) and `decq %fs:OFF; jle T;
 *     nop` (15+1), whose boundaries include the old nops' (10 or 15); the forms are what clang
 *     emits for patchable_function_entry(16) with generic and skylake tuning (gcc emits one-byte
 *     nops: no form, a trampoline then); hp_tramp_pad_head restores a pad's head after a jmp over
 *     it, or jumps past a pad it does not know; a pad of each form, filled with hp_tramp_store16
 *     in front of a function body, runs the body while the countdown stays above 0 and goes to the
 *     target at 0, and entered at its old second nop (15+1) runs the body without counting.
 *   - a latch pad's nops are the assembly rewrite's bytes, run through as nops from each boundary
 *     (0, 9, 15), which are the count form's too.
 * It links thread.o (the countdown lives there), so it stands in for init as test_rt_thread.c does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "analysis/latch_asm.h"
#include "runtime/ctl/dual_tramp.h"
#include "runtime/thread.h"
#include "test.h"

int hp_rt_ensure_init(void);
int hp_rt_ensure_init(void) { return 0; }

/* The assembler's encoding of a trampoline at asm_tramp: target +0x400, resume +0x200, OFF -0x80. */
extern const uint8_t asm_tramp[];
__asm__(".pushsection .rodata\n"
        "asm_tramp:\n"
        "  subq $1, %fs:-0x80\n"
        "  jle asm_tramp + 0x400\n"
        "  jmp asm_tramp + 0x200\n"
        ".popsection\n");

extern const uint8_t asm_tramp_test[];
__asm__(".pushsection .rodata\n"
        "asm_tramp_test:\n"
        "  cmpq $0, %fs:-0x80\n"
        "  jle asm_tramp_test + 0x400\n"
        "  jmp asm_tramp_test + 0x200\n"
        ".popsection\n");

extern const uint8_t asm_pad[], asm_pad15[];
__asm__(".pushsection .rodata\n"
        "asm_pad:\n"
        "  subq $1, %fs:-0x80\n"
        "  jle asm_pad + 0x400\n"
        "asm_pad15:\n"
        "  decq %fs:-0x80\n"
        "  jle asm_pad15 + 0x400\n"
        "  nop\n"
        ".popsection\n");

TEST(encode_pad_matches_the_assembler)
{
    uint8_t out[HP_PAD_LEN];
    const uint8_t *want[2] = {asm_pad, asm_pad15};
    for (int form = HP_PAD_10_6; form <= HP_PAD_15_1; form++) {
        uint64_t at = (uint64_t)(uintptr_t)want[form - 1];
        REQUIRE(hp_tramp_encode_pad(out, at, at + 0x400, -0x80, form) == HP_PAD_LEN);
        CHECK(memcmp(out, want[form - 1], HP_PAD_LEN) == 0);
        unsigned jle = form == HP_PAD_10_6 ? 10 : 9;
        CHECK(hp_tramp_encode_pad(out, at, at + jle + 6 + 0x7fffffffull, 0, form) == HP_PAD_LEN);
        CHECK(hp_tramp_encode_pad(out, at, at + jle + 7 + 0x7fffffffull, 0, form) == 0);
    }
    CHECK(hp_tramp_encode_pad(out, 0x1000, 0x2000, 0, HP_PAD_NONE) == 0);
}

__attribute__((patchable_function_entry(16), noinline)) static int padded(int x) { return x + 1; }
__attribute__((patchable_function_entry(16), noinline, target("arch=skylake"))) static int padded15(int x)
{
    return x + 2;
}

static const uint8_t *code_of(int (*f)(int))
{
    const uint8_t *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

TEST(pad_forms_are_the_compilers)
{
    CHECK_EQ_U64(padded(1) + padded15(1), 5);
#ifdef __clang__ /* clang 14: what hotprof cc's plugin runs in */
    CHECK_EQ_U64(hp_tramp_pad_form(code_of(padded)), HP_PAD_10_6);
    CHECK_EQ_U64(hp_tramp_pad_form(code_of(padded15)), HP_PAD_15_1);
#else /* gcc: one-byte nops, not a pad the runtime fills */
    CHECK_EQ_U64(code_of(padded)[0], 0x90);
    CHECK_EQ_U64(hp_tramp_pad_form(code_of(padded)), HP_PAD_NONE);
#endif
    for (int form = HP_PAD_10_6; form <= HP_PAD_15_1; form++) {
        uint8_t p[HP_PAD_LEN];
        memcpy(p, hp_tramp_pad_nops(form), HP_PAD_LEN);
        CHECK_EQ_U64(hp_tramp_pad_form(p), form);
        p[15] ^= 1;
        CHECK_EQ_U64(hp_tramp_pad_form(p), HP_PAD_NONE);
    }
}

TEST(pad_head_restores_or_jumps_past)
{
    for (int form = HP_PAD_10_6; form <= HP_PAD_15_1; form++) {
        uint8_t p[HP_PAD_LEN], head[5];
        memcpy(p, hp_tramp_pad_nops(form), HP_PAD_LEN);
        p[0] = 0xe9, p[1] = p[2] = p[3] = p[4] = 0x11; /* a jmp written over it */
        hp_tramp_pad_head(p, head);
        CHECK(memcmp(head, hp_tramp_pad_nops(form), 5) == 0);
        p[9] ^= 0xff; /* the rest is no form: jump past the pad */
        hp_tramp_pad_head(p, head);
        CHECK_EQ_U64(head[0], 0xeb);
        CHECK_EQ_U64(head[1], HP_PAD_LEN - 2);
    }
}

TEST(encode_test_matches_the_assembler)
{
    uint8_t out[HP_TRAMP_SLOT];
    uint64_t at = (uint64_t)(uintptr_t)asm_tramp_test;
    REQUIRE(hp_tramp_encode_test(out, at, at + 0x400, at + 0x200, -0x80) == HP_TRAMP_LEN);
    CHECK(memcmp(out, asm_tramp_test, HP_TRAMP_LEN) == 0);
}

TEST(encode_matches_the_assembler)
{
    uint8_t out[HP_TRAMP_SLOT];
    uint64_t at = (uint64_t)(uintptr_t)asm_tramp;
    REQUIRE(hp_tramp_encode(out, at, at + 0x400, at + 0x200, -0x80) == HP_TRAMP_LEN);
    CHECK(memcmp(out, asm_tramp, HP_TRAMP_LEN) == 0);
    for (unsigned i = HP_TRAMP_LEN; i < HP_TRAMP_SLOT; i++) CHECK_EQ_U64(out[i], 0xcc);
}

TEST(rel32_range_is_checked)
{
    uint8_t out[HP_TRAMP_SLOT];
    uint64_t at = 0x100000000ull;
    int32_t rel;
    CHECK(hp_tramp_rel32(at, at + 0x7fffffffull, &rel) && rel == INT32_MAX);
    CHECK(!hp_tramp_rel32(at, at + 0x80000000ull, &rel));
    CHECK(hp_tramp_rel32(at, at - 0x80000000ull, &rel) && rel == INT32_MIN);
    CHECK(!hp_tramp_rel32(at, at - 0x80000001ull, &rel));
    /* the jle's next instruction is at +16, the jmp's at +21 */
    CHECK(hp_tramp_encode(out, at, at + 16 + 0x7fffffffull, at, 0) == HP_TRAMP_LEN);
    CHECK(hp_tramp_encode(out, at, at + 17 + 0x7fffffffull, at, 0) == 0);
    CHECK(hp_tramp_encode(out, at, at, at + 22 + 0x7fffffffull, 0) == 0);
}

static void *offset_in_thread(void *arg)
{
    int32_t *off = arg;
    if (!hp_tramp_fs_offset(&hp_dual_countdown, off)) *off = 1;
    return NULL;
}

TEST(fs_offset_is_the_same_in_another_thread)
{
    int32_t mine = 0, other = 1;
    REQUIRE(hp_tramp_fs_offset(&hp_dual_countdown, &mine));
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, offset_in_thread, &other) == 0);
    pthread_join(th, NULL);
    CHECK_EQ_U64((uint64_t)(int64_t)mine, (uint64_t)(int64_t)other);
    CHECK(mine < 0); /* x86-64 variant II: the static TLS block lies below the thread pointer */
}

static __attribute__((noinline)) int went_target(void) { return 1; }
static __attribute__((noinline)) int went_resume(void) { return 2; }

/* A trampoline page near went_target/went_resume that jumps to one or the other: the counting
 * trampoline (test 0) or the return site's compare (test 1); NULL if it could not be made. */
static uint8_t *tramp_page(int test)
{
    uint64_t lo = (uint64_t)(uintptr_t)&went_target, hi = (uint64_t)(uintptr_t)&went_resume;
    if (lo > hi) { uint64_t x = lo; lo = hi; hi = x; }
    uint8_t *page = hp_tramp_map_near(lo, hi, HP_TRAMP_SLOT);
    int32_t off;
    if (!page || !hp_tramp_fs_offset(&hp_dual_countdown, &off)) return NULL;
    uint64_t at = (uint64_t)(uintptr_t)page, t = (uint64_t)(uintptr_t)&went_target, r = (uint64_t)(uintptr_t)&went_resume;
    size_t len = test ? hp_tramp_encode_test(page, at, t, r, off) : hp_tramp_encode(page, at, t, r, off);
    if (len != HP_TRAMP_LEN || mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0) return munmap(page, 4096), NULL;
    return page;
}

TEST(trampoline_runs_and_counts_down)
{
    uint8_t *page = tramp_page(0);
    REQUIRE(page != NULL);
    int (*tramp)(void);
    memcpy(&tramp, &page, sizeof tramp);
    hp_dual_countdown = 3;
    CHECK_EQ_U64(tramp(), 2); /* 3 -> 2 */
    CHECK_EQ_U64(tramp(), 2); /* 2 -> 1 */
    CHECK_EQ_U64(tramp(), 1); /* 1 -> 0: the target */
    CHECK_EQ_U64((uint64_t)hp_dual_countdown, 0);
    CHECK_EQ_U64(tramp(), 1); /* 0 -> -1: still the target (a burst keeps it <= 0) */
    CHECK(hp_dual_countdown == -1);
    munmap(page, 4096);
}

TEST(test_trampoline_leaves_the_countdown)
{
    uint8_t *page = tramp_page(1);
    REQUIRE(page != NULL);
    int (*tramp)(void);
    memcpy(&tramp, &page, sizeof tramp);
    hp_dual_countdown = 2;
    CHECK_EQ_U64(tramp(), 2); /* > 0: back to the clean copy */
    CHECK_EQ_U64((uint64_t)hp_dual_countdown, 2);
    hp_dual_countdown = 0;
    CHECK_EQ_U64(tramp(), 1); /* a burst: the instrumented copy */
    CHECK_EQ_U64((uint64_t)hp_dual_countdown, 0);
    munmap(page, 4096);
}

/* A page near went_target: a pad of `form` in its nops, then `mov $2, %eax; ret`, the pad filled
 * in count form by hp_tramp_store16. NULL if it could not be made. */
static uint8_t *pad_page(int form)
{
    uint64_t t = (uint64_t)(uintptr_t)&went_target;
    uint8_t *page = hp_tramp_map_near(t, t, 4096), code[HP_PAD_LEN];
    int32_t off;
    if (!page || !hp_tramp_fs_offset(&hp_dual_countdown, &off)) return NULL;
    const uint8_t body[6] = {0xb8, 0x02, 0x00, 0x00, 0x00, 0xc3};
    memcpy(page, hp_tramp_pad_nops(form), HP_PAD_LEN);
    memcpy(page + HP_PAD_LEN, body, sizeof body);
    if (hp_tramp_encode_pad(code, (uint64_t)(uintptr_t)page, t, off, form) != HP_PAD_LEN ||
        !hp_tramp_store16(page, code) || memcmp(page, code, HP_PAD_LEN) != 0 ||
        mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
        return munmap(page, 4096), NULL;
    return page;
}

TEST(pad_runs_and_counts_down)
{
    for (int form = HP_PAD_10_6; form <= HP_PAD_15_1; form++) {
        uint8_t *page = pad_page(form);
        REQUIRE(page != NULL);
        int (*fn)(void);
        memcpy(&fn, &page, sizeof fn);
        hp_dual_countdown = 2;
        CHECK_EQ_U64(fn(), 2); /* 2 -> 1: the function's own body */
        CHECK_EQ_U64(fn(), 1); /* 1 -> 0: the target */
        CHECK_EQ_U64((uint64_t)hp_dual_countdown, 0);
        CHECK_EQ_U64(fn(), 1); /* a burst keeps it <= 0 */
        hp_dual_countdown = 5;
        CHECK_EQ_U64(fn(), 2);
        CHECK_EQ_U64((uint64_t)hp_dual_countdown, 4);
        if (form == HP_PAD_15_1) { /* a thread that ran the old 15-byte nop: the new nop, the body */
            uint8_t *second = page + 15;
            memcpy(&fn, &second, sizeof fn);
            CHECK_EQ_U64(fn(), 2);
            CHECK_EQ_U64((uint64_t)hp_dual_countdown, 4);
        }
        munmap(page, 4096);
    }
}

/* The latch pad's nops (dual_tramp.h) are the bytes the assembly rewrite writes
 * (analysis/latch_asm.h), and run as nops into the code after them; filled in count form over a
 * thread that ran the first nop, the second boundary (9) is the jle's, the third (15) the nop's. */
TEST(latch_pad_nops_are_the_rewrites_and_run_through)
{
    const char *text = HP_LATCH_ASM_PAD_BYTES;
    const uint8_t *nops = hp_tramp_latch_pad_nops();
    for (unsigned i = 0; i < HP_PAD_LEN; i++, text += 5)
        CHECK_EQ_U64(strtoul(text, NULL, 16), nops[i]);
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(page != MAP_FAILED);
    const uint8_t body[6] = {0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3}; /* mov $7, %eax; ret */
    memcpy(page, nops, HP_PAD_LEN);
    memcpy(page + HP_PAD_LEN, body, sizeof body);
    REQUIRE(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0);
    for (unsigned at = 0; at < HP_PAD_LEN; at += at == 0 ? 9 : 6) { /* boundaries 0, 9, 15 */
        uint8_t *entry = page + at;
        int (*fn)(void);
        memcpy(&fn, &entry, sizeof fn);
        CHECK_EQ_U64(fn(), 7);
    }
    uint8_t code[HP_PAD_LEN];
    REQUIRE(hp_tramp_encode_pad(code, 0x10000, 0x20000, -0x80, HP_PAD_15_1) == HP_PAD_LEN);
    CHECK(code[9] == 0x0f && code[10] == 0x8e && code[15] == 0x90);
    munmap(page, 4096);
}

int main(void)
{
    RUN(encode_pad_matches_the_assembler);
    RUN(pad_forms_are_the_compilers);
    RUN(pad_head_restores_or_jumps_past);
    RUN(pad_runs_and_counts_down);
    RUN(latch_pad_nops_are_the_rewrites_and_run_through);
    RUN(encode_matches_the_assembler);
    RUN(encode_test_matches_the_assembler);
    RUN(test_trampoline_leaves_the_countdown);
    RUN(rel32_range_is_checked);
    RUN(fs_offset_is_the_same_in_another_thread);
    RUN(trampoline_runs_and_counts_down);
    return test_main_end();
}

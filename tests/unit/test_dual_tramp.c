/* test_dual_tramp.c — the trampolines of `--bursts count` (src/runtime/ctl/dual_tramp.c):
 *   - hp_tramp_encode writes the bytes the assembler writes for `subq $1, %fs:OFF; jle T; jmp R`
 *     at the same address (a copy assembled into this test), int3 after them;
 *   - hp_tramp_encode_test (a return site's) writes `cmpq $0, %fs:OFF; jle T; jmp R` likewise, and
 *     a mapped one goes to the target while the countdown is <= 0 and leaves the countdown alone;
 *   - rel32 range: a target just inside +-2 GB encodes, one byte beyond does not;
 *   - the countdown's %fs offset is the same in a second thread;
 *   - a trampoline mapped near this test's code runs: it decrements the thread's countdown and
 *     goes to the target exactly when the countdown reaches 0, else to the resume address.
 * It links thread.o (the countdown lives there), so it stands in for init as test_rt_thread.c does.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
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

int main(void)
{
    RUN(encode_matches_the_assembler);
    RUN(encode_test_matches_the_assembler);
    RUN(test_trampoline_leaves_the_countdown);
    RUN(rel32_range_is_checked);
    RUN(fs_offset_is_the_same_in_another_thread);
    RUN(trampoline_runs_and_counts_down);
    return test_main_end();
}

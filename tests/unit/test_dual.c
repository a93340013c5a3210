/* test_dual.c — switching the sites of two-version code (src/runtime/ctl/dual.c):
 *   - hp_dual_word puts `jmp rel32` (e9, target - site - 5) or the 5-byte nop at byte offsets 0..3
 *     of an aligned word and leaves the other three bytes as they were; on then off gives back
 *     the original word;
 *   - registered sites in a page of our own switch on and off as whole 5-byte instructions, a
 *     site at an offset that crosses an 8-byte boundary is never written, a module registered
 *     after hp_dual_all_on is switched at once, and an unregistered module is not written again;
 *   - the backend's off_now (a window's last unit) switches the dual sites off in that thread, and
 *     a pass that would change nothing writes nothing.
 */
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/dual.h"
#include "runtime/ctl/dual_tramp.h"
#include "test.h"

/* dual.o reaches thread.o (count mode's countdown and INFO): stand in for init as test_rt_thread.c does. */
int hp_rt_ensure_init(void);
int hp_rt_ensure_init(void) { return 0; }

static const uint8_t NOP5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

TEST(word_round_trip_at_every_offset)
{
    for (unsigned off = 0; off < 4; off++) {
        uint8_t bytes[8] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7};
        memcpy(bytes + off, NOP5, 5);
        uint64_t w0;
        memcpy(&w0, bytes, 8);
        uint64_t site = 0x401000 + off, target = 0x400f00; /* backward: negative rel32 */
        uint64_t on = hp_dual_word(w0, off, site, target, 1);
        uint8_t b[8];
        memcpy(b, &on, 8);
        CHECK_EQ_U64(b[off], 0xe9);
        int32_t rel;
        memcpy(&rel, b + off + 1, 4);
        CHECK_EQ_U64((uint64_t)(site + 5 + (int64_t)rel), target);
        for (unsigned i = 0; i < 8; i++)
            if (i < off || i >= off + 5) CHECK_EQ_U64(b[i], bytes[i]);
        CHECK_EQ_U64(hp_dual_word(on, off, site, target, 0), w0);
    }
}

/* A page with sites at byte 8 (offset 0), 19 (offset 3) and 45 (offset 5: crosses a word), and
 * their records after them (pc-relative, as the plugin writes them). */
typedef struct fake { uint8_t *code; hp_dual_rec *rec; } fake;

static fake make_page(void)
{
    fake f;
    f.code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(f.code, 0xcc, 4096);
    f.rec = (hp_dual_rec *)(f.code + 2048);
    const unsigned sites[3] = {8, 19, 45};
    for (int i = 0; i < 3; i++) {
        memcpy(f.code + sites[i], NOP5, 5);
        f.rec[i].site = (int32_t)((f.code + sites[i]) - (uint8_t *)&f.rec[i].site);
        f.rec[i].target = (int32_t)((f.code + 1024 + 16 * i) - (uint8_t *)&f.rec[i].target);
        f.rec[i].kind = (uint32_t)i % 2;
    }
    mprotect(f.code, 4096, PROT_READ | PROT_EXEC); /* code pages are not writable */
    return f;
}

static int is_jmp_to(const uint8_t *site, const uint8_t *target)
{
    int32_t rel;
    memcpy(&rel, site + 1, 4);
    return site[0] == 0xe9 && site + 5 + rel == target;
}

TEST(sites_switch_whole_and_never_across_a_word)
{
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 0); /* the same module twice */
    CHECK(hp_dual_present());
    hp_dual_switch(1);
    CHECK(is_jmp_to(f.code + 8, f.code + 1024));
    CHECK(is_jmp_to(f.code + 19, f.code + 1040));
    CHECK(memcmp(f.code + 45, NOP5, 5) == 0); /* offset 5: left alone */
    CHECK_EQ_U64(f.code[7], 0xcc);
    CHECK_EQ_U64(f.code[13], 0xcc);
    hp_dual_switch(0);
    CHECK(memcmp(f.code + 8, NOP5, 5) == 0);
    CHECK(memcmp(f.code + 19, NOP5, 5) == 0);
    hp_dual_unregister(f.rec, f.rec + 3);
    hp_dual_switch(1);
    CHECK(memcmp(f.code + 8, NOP5, 5) == 0); /* gone: never written again */
}

static uint64_t info_switches(void)
{
    char info[512];
    hp_dual_info(info, sizeof info);
    const char *at = strstr(info, "dual.switches=");
    return at ? strtoull(at + strlen("dual.switches="), NULL, 10) : UINT64_MAX;
}

/* The hook that takes a patched window's last unit (backend off_now) switches the dual sites off
 * at once, not only sites.c's call sites (it did only those: every entry kept jumping into the
 * instrumented copies until the control thread woke); the control thread's off after it then
 * writes nothing (a store to running code flushes that core's pipeline). */
TEST(off_now_switches_dual_sites_off_and_off_then_writes_nothing)
{
    hp_dual_switch(0); /* the test above ended with a pass on: a window closes before the next */
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1);
    hp_dual_switch(1);
    CHECK(is_jmp_to(f.code + 8, f.code + 1024));
    uint64_t passes = info_switches();
    hp_dual_backend()->off_now();
    CHECK(memcmp(f.code + 8, NOP5, 5) == 0);
    CHECK(memcmp(f.code + 19, NOP5, 5) == 0);
    CHECK_EQ_U64(info_switches(), passes + 1);
    hp_dual_switch(0);
    CHECK_EQ_U64(info_switches(), passes + 1);
    CHECK(hp_dual_try_switch_off() == 1); /* off already: nothing written, still off */
    hp_dual_switch(1);
    CHECK(is_jmp_to(f.code + 19, f.code + 1040));
    CHECK_EQ_U64(info_switches(), passes + 2);
    hp_dual_switch(0);
    hp_dual_unregister(f.rec, f.rec + 3);
}

TEST(branch_word_round_trip_at_every_offset)
{
    for (unsigned off = 0; off <= 4; off++) {
        uint8_t bytes[8] = {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7}, b[8];
        uint64_t w0;
        memcpy(&w0, bytes, 8);
        uint64_t w = hp_dual_branch_word(w0, off, 0x12345678u);
        memcpy(b, &w, 8);
        uint32_t rel;
        memcpy(&rel, b + off, 4);
        CHECK_EQ_U64(rel, 0x12345678u);
        for (unsigned i = 0; i < 8; i++)
            if (i < off || i >= off + 4) CHECK_EQ_U64(b[i], bytes[i]);
        uint32_t back;
        memcpy(&back, bytes + off, 4);
        CHECK_EQ_U64(hp_dual_branch_word(w, off, back), w0);
    }
}

static int32_t rel32_at(const uint8_t *field)
{
    int32_t rel;
    memcpy(&rel, field, 4);
    return rel;
}

/* Latch branches (--dual-latch=branch): a rel32 at byte 66 (offset 2 of its word) goes to the site's
 * block (byte 8) while sites are on and past its nop (byte 13) while they are off; one at byte 77
 * (offset 5: across a word) is never written; an unregistered module's branch is not written again. */
TEST(latch_branches_follow_the_sites_and_never_across_a_word)
{
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    REQUIRE(mprotect(f.code, 4096, PROT_READ | PROT_WRITE) == 0);
    hp_dual_branch_rec *br = (hp_dual_branch_rec *)(f.code + 3072);
    const unsigned fields[2] = {66, 77};
    for (int i = 0; i < 2; i++) {
        uint8_t *field = f.code + fields[i];
        int32_t off_rel = (int32_t)((f.code + 13) - (field + 4));
        memcpy(field, &off_rel, 4);
        br[i].field = (int32_t)(field - (uint8_t *)&br[i].field);
        br[i].on = (int32_t)((f.code + 8) - (uint8_t *)&br[i].on);
        br[i].off = (int32_t)((f.code + 13) - (uint8_t *)&br[i].off);
        br[i].pad = 0;
    }
    mprotect(f.code, 4096, PROT_READ | PROT_EXEC);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1);
    hp_dual_register_branches(br, br + 2);
    hp_dual_switch(1);
    CHECK(is_jmp_to(f.code + 8, f.code + 1024));
    CHECK(f.code + 66 + 4 + rel32_at(f.code + 66) == f.code + 8);
    CHECK(f.code + 77 + 4 + rel32_at(f.code + 77) == f.code + 13); /* across a word: left alone */
    CHECK_EQ_U64(f.code[65], 0xcc);
    CHECK_EQ_U64(f.code[70], 0xcc);
    char info[512];
    hp_dual_info(info, sizeof info);
    CHECK(strstr(info, "dual.latch_branches=2\n") != NULL);
    CHECK(strstr(info, "dual.latch_branches_unwritable=1\n") != NULL);
    hp_dual_switch(0);
    CHECK(memcmp(f.code + 8, NOP5, 5) == 0);
    CHECK(f.code + 66 + 4 + rel32_at(f.code + 66) == f.code + 13);
    hp_dual_unregister_branches(br);
    hp_dual_switch(1);
    CHECK(f.code + 66 + 4 + rel32_at(f.code + 66) == f.code + 13); /* gone: never written again */
    hp_dual_switch(0);
    hp_dual_unregister(f.rec, f.rec + 3);
}

TEST(module_registered_after_all_on_is_switched_at_once)
{
    CHECK_EQ_U64(hp_dual_all_on(), 0); /* the one registered module above is gone */
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1);
    CHECK(is_jmp_to(f.code + 8, f.code + 1024));
    CHECK(is_jmp_to(f.code + 19, f.code + 1040));
    char info[512];
    hp_dual_info(info, sizeof info);
    CHECK(strstr(info, "dual.unpatchable=1\n") != NULL);
}

/* An inline count site (flags HP_DUAL_REC_COUNT) is counted and never written, in every mode. */
TEST(count_sites_are_counted_and_never_written)
{
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    static const uint8_t SUBQ[5] = {0x64, 0x48, 0x83, 0x2c, 0x25};
    mprotect(f.code, 4096, PROT_READ | PROT_WRITE);
    memcpy(f.code + 8, SUBQ, 5); /* site 0 becomes a count site: its bytes are not a nop */
    f.rec[0].flags = HP_DUAL_REC_COUNT;
    mprotect(f.code, 4096, PROT_READ | PROT_EXEC);
    uint64_t before = hp_dual_count_sites();
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1); /* all on since the test above: switched now */
    CHECK_EQ_U64(hp_dual_count_sites(), before + 1);
    CHECK(memcmp(f.code + 8, SUBQ, 5) == 0);
    CHECK(is_jmp_to(f.code + 19, f.code + 1040));
    hp_dual_switch(0);
    CHECK(memcmp(f.code + 8, SUBQ, 5) == 0);
    CHECK(memcmp(f.code + 19, NOP5, 5) == 0);
    char info[512];
    hp_dual_info(info, sizeof info);
    CHECK(strstr(info, "dual.count_sites=1\n") != NULL);
    hp_dual_unregister(f.rec, f.rec + 3);
    CHECK_EQ_U64(hp_dual_count_sites(), before);
}

/* Probing count mode is idempotent (modules that already have trampolines are ready), and a module
 * of inline count sites only is ready without any. */
TEST(count_probe_twice_and_count_sites_only)
{
    const char *why = NULL;
    CHECK(hp_dual_count_probe(&why) == 0);
    CHECK(hp_dual_count_probe(&why) == 0); /* every module has its trampolines already */
    fake f = make_page();
    REQUIRE(f.code != MAP_FAILED);
    mprotect(f.code, 4096, PROT_READ | PROT_WRITE);
    for (int i = 0; i < 3; i++) f.rec[i].flags = HP_DUAL_REC_COUNT;
    mprotect(f.code, 4096, PROT_READ | PROT_EXEC);
    CHECK(hp_dual_register(f.rec, f.rec + 3) == 1);
    CHECK(hp_dual_count_probe(&why) == 0);
    hp_dual_unregister(f.rec, f.rec + 3);
}

/* r as the record of a site at `site` going to `target`, of `kind` (pc-relative). */
static void set_rec(hp_dual_rec *r, const uint8_t *site, const uint8_t *target, uint32_t kind)
{
    r->site = (int32_t)(site - (const uint8_t *)&r->site);
    r->target = (int32_t)(target - (const uint8_t *)&r->target);
    r->kind = kind, r->flags = 0;
}

/* Where the jump whose rel32 is at `field` lands. */
static const uint8_t *lands(const uint8_t *field) { return field + 4 + rel32_at(field); }

/* Count mode with latch branches: a branch whose L is a latch site jumps to a trampoline of its own
 * that decrements the countdown (%fs), goes to that site's instrumented target when it runs out and
 * else to C; the records are not in address order (the index sorts them); a block's label may lie
 * a few prefix bytes before its site; a branch whose L is an entry site, not a latch site, goes to L. (Before: every branch went to L in count mode.) */
TEST(count_mode_gives_latch_branches_trampolines_to_their_sites_targets)
{
    uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(code != MAP_FAILED);
    memset(code, 0xcc, 4096);
    hp_dual_rec *rec = (hp_dual_rec *)(code + 2048);
    const unsigned sites[3] = {40, 8, 24}; /* latch, latch, entry: out of address order */
    for (int i = 0; i < 3; i++) {
        memcpy(code + sites[i], NOP5, 5);
        set_rec(&rec[i], code + sites[i], code + 1024 + 16 * i, i == 2 ? HP_DUAL_KIND_ENTRY : HP_DUAL_KIND_BACKEDGE);
    }
    hp_dual_branch_rec *br = (hp_dual_branch_rec *)(code + 3072);
    /* L: the block's label, up to HP_DUAL_SITE_PAD bytes (CS prefixes) before its site */
    const unsigned fields[3] = {66, 74, 82}, ls[3] = {8, 37, 24}, at_site[3] = {8, 40, 24};
    for (int i = 0; i < 3; i++) {
        uint8_t *field = code + fields[i];
        int32_t off_rel = (int32_t)((code + at_site[i] + 5) - (field + 4));
        memcpy(field, &off_rel, 4);
        br[i].field = (int32_t)(field - (uint8_t *)&br[i].field);
        br[i].on = (int32_t)((code + ls[i]) - (uint8_t *)&br[i].on);
        br[i].off = (int32_t)((code + at_site[i] + 5) - (uint8_t *)&br[i].off);
        br[i].pad = 0;
    }
    mprotect(code, 4096, PROT_READ | PROT_EXEC);
    CHECK(hp_dual_register(rec, rec + 3) == 1);
    hp_dual_register_branches(br, br + 3);
    const char *why = NULL;
    REQUIRE(hp_dual_count_probe(&why) == 0);
    hp_dual_count_start(0);
    for (int i = 0; i < 2; i++) {
        const uint8_t *tr = lands(code + fields[i]);
        CHECK(tr < code || tr >= code + 4096); /* a trampoline, not the site */
        CHECK(tr[0] == 0x64 && tr[1] == 0x48 && tr[2] == 0x83 && tr[3] == 0x2c && tr[9] == 0x01);
        CHECK(tr[10] == 0x0f && tr[11] == 0x8e && tr[16] == 0xe9);
        int site_rec = ls[i] == 8 ? 1 : 0; /* the record of the site at L */
        CHECK(lands(tr + 12) == code + 1024 + 16 * site_rec); /* jle: the site's target */
        CHECK(lands(tr + 17) == code + at_site[i] + 5);       /* jmp: C */
    }
    CHECK(lands(code + fields[2]) == code + 24); /* an entry site at L: the site itself */
    char info[1024];
    hp_dual_count_info(info, sizeof info);
    CHECK(strstr(info, "dual.count.branch_trampolines=2\n") != NULL);
    hp_dual_unregister_branches(br);
    hp_dual_unregister(rec, rec + 3);
}

/* Count mode with latch pads (analysis/latch_asm.h, dual_branch.c): a branch whose record names a
 * guard X (`jmp C`) before its pad P = C - 16 goes to P, which holds `decq %fs:OFF; jle <its site's
 * target>; nop`; another branch of the same pad and target goes there too; a branch
 * whose site has another target keeps its trampoline; a record naming P itself (no guard) gets
 * the pad without one; a detached pad (another target's, ending in `jmp C`) serves its branch; a pad
 * whose bytes are not the rewrite's nops is left alone. (Before: every
 * branch went to a trampoline.) Registered after count mode began (the test before this one). */
TEST(count_mode_sends_latch_branches_to_their_pads)
{
    uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(code != MAP_FAILED);
    memset(code, 0xcc, 4096);
    hp_dual_rec *rec = (hp_dual_rec *)(code + 2048);
    const unsigned sites[2] = {8, 40}; /* two latch sites with different targets */
    for (int i = 0; i < 2; i++) {
        memcpy(code + sites[i], NOP5, 5);
        set_rec(&rec[i], code + sites[i], code + 1024 + 16 * i, HP_DUAL_KIND_BACKEDGE);
    }
    const unsigned guard = 126, pad = 128, bare = 192, bad = 256; /* pads: C = pad + 16 */
    code[guard] = 0xeb, code[guard + 1] = pad + 16 - (guard + 2); /* jmp C */
    memcpy(code + pad, hp_tramp_latch_pad_nops(), HP_PAD_LEN);
    memcpy(code + bare, hp_tramp_latch_pad_nops(), HP_PAD_LEN);
    memset(code + bad, 0x90, HP_PAD_LEN);
    code[bad - 2] = 0xeb, code[bad - 1] = 16;
    const unsigned detached = 96; /* another target's pad, then `jmp C` (C = pad + 16) */
    memcpy(code + detached, hp_tramp_latch_pad_nops(), HP_PAD_LEN);
    code[detached + 16] = 0xeb, code[detached + 17] = pad + 16 - (detached + 18);
    struct { unsigned l, c, x; } want[6] = {{8, pad + 16, guard},  {8, pad + 16, guard},   {40, pad + 16, guard},
                                            {40, bare + 16, bare}, {8, bad + 16, bad - 2}, {40, pad + 16, detached}};
    hp_dual_branch_rec *br = (hp_dual_branch_rec *)(code + 3072);
    for (int i = 0; i < 6; i++) {
        uint8_t *field = code + 320 + 8 * i;
        int32_t off_rel = (int32_t)((code + want[i].c) - (field + 4));
        memcpy(field, &off_rel, 4);
        br[i].field = (int32_t)(field - (uint8_t *)&br[i].field);
        br[i].on = (int32_t)((code + want[i].l) - (uint8_t *)&br[i].on);
        br[i].off = (int32_t)((code + want[i].c) - (uint8_t *)&br[i].off);
        br[i].pad = (int32_t)((code + want[i].x) - (uint8_t *)&br[i].pad);
    }
    mprotect(code, 4096, PROT_READ | PROT_EXEC);
    CHECK(hp_dual_register(rec, rec + 2) == 1);
    hp_dual_register_branches(br, br + 6);
    CHECK(lands(code + 320) == code + pad);
    CHECK(lands(code + 328) == code + pad);
    const uint8_t *tr = lands(code + 336);
    CHECK(tr < code || tr >= code + 4096); /* another target: its trampoline */
    CHECK(lands(code + 344) == code + bare);
    tr = lands(code + 352);
    CHECK(tr < code || tr >= code + 4096); /* not the rewrite's nops: its trampoline */
    CHECK(lands(code + 360) == code + detached);
    const unsigned written[3] = {pad, bare, detached}, targets[3] = {1024, 1040, 1040};
    for (int k = 0; k < 3; k++) {
        unsigned p = written[k];
        static const uint8_t decq_fs[5] = {0x64, 0x48, 0xff, 0x0c, 0x25};
        CHECK(memcmp(code + p, decq_fs, 5) == 0);
        CHECK(code[p + 9] == 0x0f && code[p + 10] == 0x8e && code[p + 15] == 0x90);
        CHECK(lands(code + p + 11) == code + targets[k]); /* jle: the site's target */
    }
    CHECK(code[bad] == 0x90); /* left alone */
    char info[1024];
    hp_dual_count_info(info, sizeof info);
    CHECK(strstr(info, "dual.count.latch_pads=3\n") != NULL);
    CHECK(strstr(info, "dual.count.padded_branches=4\n") != NULL);
    hp_dual_unregister_branches(br);
    hp_dual_unregister(rec, rec + 2);
}

int main(void)
{
    RUN(word_round_trip_at_every_offset);
    RUN(sites_switch_whole_and_never_across_a_word);
    RUN(off_now_switches_dual_sites_off_and_off_then_writes_nothing);
    RUN(branch_word_round_trip_at_every_offset);
    RUN(latch_branches_follow_the_sites_and_never_across_a_word);
    RUN(module_registered_after_all_on_is_switched_at_once);
    RUN(count_sites_are_counted_and_never_written);
    RUN(count_probe_twice_and_count_sites_only);
    RUN(count_mode_gives_latch_branches_trampolines_to_their_sites_targets); /* (count mode: for good, last) */
    RUN(count_mode_sends_latch_branches_to_their_pads);
    return test_main_end();
}

/* test_latch_asm.c — the latch-branch rewrite of `hotprof cc --dual-latch=branch`
 * (analysis/latch_asm.h):
 *   - every jcc's condition nibble is its negation's with bit 0 flipped; jmp and others are -1;
 *   - a branch to a back-edge site's block goes to the site's continuation (the jmp after the nop)
 *     with a record naming the block while on; a jcc that falls through into a label-less site is
 *     inverted to the continuation, followed by a jmp to its old target, and the site gets a label;
 *   - entry sites, count sites and other assembly blocks are left byte for byte;
 *   - latch pads: before the continuation's labels, after the code generator's alignment, guarded
 *     by a jmp to the continuation where code falls in (not after a jmp); one per continuation and
 *     target, a site with another target getting a detached pad at its function's end; none when
 *     left out;
 *   - property, random functions: the branches rewritten are exactly those the generator aimed at a
 *     site's labels or let fall into a site, and every other line comes out unchanged, in order;
 *     every pad a record names is defined once, as the pad's bytes after `.p2align 4`.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/latch_asm.h"
#include "core/base/rng.h"
#include "test.h"

static const char SITE_HEAD[] = "\t#APP\n\t.p2align 3,0x2e,4\n1: .byte 0x0f,0x1f,0x44,0x00,0x00\n"
                                ".pushsection __hotprof_dual,\"a\",@progbits\n.balign 4\n.long 1b - .\n"
                                ".long .Ltmp9 - .\n";
static const char SITE_TAIL[] = ".popsection\n\t#NO_APP\n";

/* The plugin's site text with the given kind and flags. */
static void site(char *out, size_t cap, int kind, int flags)
{
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "%s.long %d\n.long %d\n%s", SITE_HEAD, kind, flags, SITE_TAIL);
}

/* The rewrite of in (latch pads unless pads == 0), or NULL if it failed. */
static char *rewrite_pads(const char *in, int pads, hp_latch_asm_stats *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) return NULL;
    int rc = hp_latch_asm_rewrite(in, strlen(in), out, pads, st);
    fclose(out);
    if (rc != 0) free(buf), buf = NULL;
    return buf;
}

static char *rewrite(const char *in, hp_latch_asm_stats *st) { return rewrite_pads(in, 1, st); }

TEST(condition_codes_negate_in_bit_zero)
{
    static const char *const pairs[][2] = {{"je", "jne"}, {"jb", "jae"}, {"jbe", "ja"}, {"jl", "jge"},
                                           {"jle", "jg"}, {"js", "jns"}, {"jp", "jnp"}, {"jo", "jno"},
                                           {"jz", "jnz"}, {"jc", "jnc"}, {"jnae", "jnb"}, {"jng", "jnle"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        int a = hp_latch_asm_cc(pairs[i][0], strlen(pairs[i][0]));
        int b = hp_latch_asm_cc(pairs[i][1], strlen(pairs[i][1]));
        CHECK(a >= 0 && a < 16 && b >= 0 && b < 16);
        CHECK_EQ_U64((unsigned)(a ^ 1), (unsigned)b);
    }
    CHECK_EQ_U64(hp_latch_asm_cc("je", 2), 4);
    CHECK(hp_latch_asm_cc("jmp", 3) < 0);
    CHECK(hp_latch_asm_cc("jecxz", 5) < 0);
    CHECK(hp_latch_asm_cc("jmpq", 4) < 0);
}

TEST(branch_to_a_site_block_goes_to_its_continuation)
{
    char in[2048] = "f:\n.LBB0_1:\n\taddq\t$1, %rax\n\tcmpq\t%rdi, %rax\n\tjne\t.LBB0_3\n\tretq\n.LBB0_3:\t# in loop\n";
    site(in, sizeof in, 1, 0);
    strcat(in, "\tjmp\t.LBB0_1\n");
    hp_latch_asm_stats st;
    char *out = rewrite(in, &st);
    REQUIRE(out != NULL);
    CHECK_EQ_U64(st.sites, 1);
    CHECK_EQ_U64(st.branches, 1);
    CHECK_EQ_U64(st.targeted, 1);
    CHECK(strstr(out, "\tjne\t.LBB0_3") == NULL);
    CHECK(strstr(out, "\t.p2align 3,0x3e,5\n\t.byte 0x0f,0x85\n.Lhp_br_0:\n\t.long .LBB0_1-.Lhp_br_0-4\n") != NULL);
    CHECK(strstr(out, "\t.pushsection __hotprof_dualbr,\"a\",@progbits\n\t.balign 4\n\t.long .Lhp_br_0-.\n"
                      "\t.long .LBB0_3-.\n\t.long .LBB0_1-.\n\t.long .Lhp_padx_0-.\n\t.popsection\n") != NULL);
    CHECK(strstr(out, "\tjmp\t.LBB0_1\n") != NULL); /* the site's own jmp stays */
    /* the continuation's pad between the function's symbol and its label, guarded (f falls in) */
    CHECK(strstr(out, "f:\n.Lhp_padx_0:\n\tjmp\t.LBB0_1\n\t.p2align 4\n.Lhp_pad_0:\n\t.byte " HP_LATCH_ASM_PAD_BYTES
                      "\n.LBB0_1:\n") == out);
    CHECK_EQ_U64(st.pads, 1);
    free(out);
}

/* The pad goes after the code generator's alignment, right before the continuation's labels; its
 * guard before that alignment where the code above falls in, none after a jmp or ret. */
TEST(pad_follows_the_alignment_and_is_guarded_only_where_code_falls_in)
{
    for (int falls = 0; falls <= 1; falls++) {
        char in[2048];
        snprintf(in, sizeof in, "k:\n\t%s\n\t.p2align\t4, 0x90\n.LBB3_2:\t# loop\n# %%bb.3:\n\t.loc\t1 2 3\n"
                 "\tsubq\t$1, %%rdi\n\tjne\t.LBB3_4\n\tretq\n.LBB3_4:\n", falls ? "movl\t$1, %eax" : "jmp\t.LBB3_9");
        site(in, sizeof in, 1, 0);
        strcat(in, "\tjmp\t.LBB3_2\n.LBB3_9:\n\tretq\n");
        hp_latch_asm_stats st;
        char *out = rewrite(in, &st);
        REQUIRE(out != NULL);
        CHECK_EQ_U64(st.pads, 1);
        const char *pad =
            "\t.p2align\t4, 0x90\n\t.p2align 4\n.Lhp_pad_0:\n\t.byte " HP_LATCH_ASM_PAD_BYTES "\n.LBB3_2:";
        CHECK(strstr(out, pad) != NULL);
        CHECK((strstr(out, ".Lhp_padx_0:\n\tjmp\t.LBB3_2\n\t.p2align\t4, 0x90\n") != NULL) == falls);
        CHECK(strstr(out, falls ? "\t.long .Lhp_padx_0-.\n" : "\t.long .Lhp_pad_0-.\n") != NULL);
        free(out);
    }
}

/* Sites whose continuation is one label share its pad; pads == 0 writes none (records: 0). */
TEST(sites_of_one_continuation_share_a_pad_and_pads_can_be_left_out)
{
    char in[4096] = "m:\n\tjmp\t.LBB4_1\n.LBB4_1:\n\tjne\t.LBB4_2\n\tjmp\t.LBB4_3\n.LBB4_2:\n";
    site(in, sizeof in, 1, 0);
    strcat(in, "\tjmp\t.LBB4_1\n.LBB4_3:\n");
    site(in, sizeof in, 1, 0);
    strcat(in, "\tjmp\t.LBB4_1\n");
    for (int pads = 0; pads <= 1; pads++) {
        hp_latch_asm_stats st;
        char *buf = rewrite_pads(in, pads, &st);
        REQUIRE(buf != NULL);
        CHECK_EQ_U64(st.branches, 2);
        CHECK_EQ_U64(st.pads, (unsigned)pads);
        int named = 0;
        for (const char *at = buf; (at = strstr(at, "\t.long .Lhp_pad_0-.\n")); at++) named++;
        CHECK_EQ_U64(named, pads ? 2 : 0); /* (after a jmp: no guard) */
        CHECK((strstr(buf, "Lhp_pad") != NULL) == pads);
        if (!pads) CHECK(strstr(buf, "\t.long .LBB4_1-.\n\t.long 0\n") != NULL);
        free(buf);
    }
}

TEST(a_jcc_falling_into_a_site_is_inverted)
{
    char in[2048] = "g:\n.LBB1_1:\n\tandq\t%rax, %rdx\n\tje\t.LBB1_5\n# %bb.2:\n\t.loc\t1 2 3\n";
    site(in, sizeof in, 1, 0);
    strcat(in, "\tjmp\t.LBB1_1\n.LBB1_5:\n\tretq\n");
    hp_latch_asm_stats st;
    char *out = rewrite(in, &st);
    REQUIRE(out != NULL);
    CHECK_EQ_U64(st.branches, 1);
    CHECK(strstr(out, "\tje\t.LBB1_5") == NULL);
    CHECK(strstr(out, "\t.byte 0x0f,0x85\n.Lhp_br_0:\n\t.long .LBB1_1-.Lhp_br_0-4\n") != NULL);
    CHECK(strstr(out, "\t.popsection\n\tjmp\t.LBB1_5\n") != NULL);
    CHECK(strstr(out, ".Lhp_site_0:\n\t#APP\n") != NULL);
    CHECK(strstr(out, "\t.long .Lhp_site_0-.\n") != NULL);
    free(out);
}

TEST(entry_sites_count_sites_and_other_blocks_are_left_alone)
{
    char in[4096] = "h:\n.LBB2_1:\n";
    site(in, sizeof in, 0, 0); /* an entry site */
    strcat(in, "\tjne\t.LBB2_1\n.LBB2_2:\n");
    site(in, sizeof in, 1, 1); /* a count site */
    strcat(in, "\tjne\t.LBB2_2\n.LBB2_3:\n\t#APP\n\tleaq h(%rip), %rdi\n\t#NO_APP\n\tjmp\t.LBB2_3\n");
    hp_latch_asm_stats st;
    char *out = rewrite(in, &st);
    REQUIRE(out != NULL);
    CHECK_EQ_U64(st.sites, 0);
    CHECK_EQ_U64(st.branches, 0);
    CHECK(strcmp(out, in) == 0);
    free(out);
}

/* GNU as wants a link-order section's linked-to symbol before its group (LLVM prints it after):
 * a comdat function's __patchable_function_entries did not assemble. */
TEST(link_order_section_in_a_group_is_written_in_gas_order)
{
    const char *in = "\t.section\t__patchable_function_entries,\"aGwo\",@progbits,_Z1fv,comdat,_Z1fv\n"
                     "\t.section\t__patchable_function_entries,\"awo\",@progbits,main\n"
                     "\t.section\t.text._Z1fv,\"axG\",@progbits,_Z1fv,comdat\n";
    hp_latch_asm_stats st;
    char *out = rewrite(in, &st);
    REQUIRE(out != NULL);
    CHECK(strstr(out, "\t.section\t__patchable_function_entries,\"aGwo\",@progbits,_Z1fv,_Z1fv,comdat\n") == out);
    CHECK(strstr(out, "\t.section\t__patchable_function_entries,\"awo\",@progbits,main\n") != NULL);
    CHECK(strstr(out, "\t.section\t.text._Z1fv,\"axG\",@progbits,_Z1fv,comdat\n") != NULL);
    free(out);
}

/* A random function: blocks .LBB<f>_<b>, some back-edge sites (some labelled, some reached by a jcc
 * falling into them), and branches to random blocks. *want: branches that must be rewritten. */
static void random_function(char *in, size_t cap, hp_rng *r, int fn, size_t *want)
{
    int nblocks = 2 + (int)(hp_rng_next(r) % 8);
    int is_site[10] = {0}, labelled[10] = {0};
    for (int b = 0; b < nblocks; b++) is_site[b] = hp_rng_next(r) % 3 == 0, labelled[b] = !is_site[b] || hp_rng_next(r) % 2;
    size_t n = strlen(in);
    n += (size_t)snprintf(in + n, cap - n, "fn%d:\n", fn);
    for (int b = 0; b < nblocks; b++) {
        /* the block before falls into this one through a jcc or a plain instruction */
        if (b > 0 && hp_rng_next(r) % 2) {
            int to = (int)(hp_rng_next(r) % (uint64_t)nblocks);
            n += (size_t)snprintf(in + n, cap - n, "\tjg\t.LBB%d_%d\n", fn, to);
            *want += is_site[b] || (is_site[to] && labelled[to]);
        } else if (b > 0) {
            n += (size_t)snprintf(in + n, cap - n, "\tmovl\t$%d, %%eax\n", b);
            *want += is_site[b];
        }
        n += (size_t)snprintf(in + n, cap - n, labelled[b] ? ".LBB%d_%d:\n" : "# %%bb.%d_%d:\n", fn, b);
        if (is_site[b]) site(in, cap, 1, 0), n = strlen(in);
        for (int k = (int)(hp_rng_next(r) % 3); k-- > 0;) {
            int to = (int)(hp_rng_next(r) % (uint64_t)nblocks);
            n += (size_t)snprintf(in + n, cap - n, "\taddq\t$%d, %%rcx\n\tjne\t.LBB%d_%d\n", k, fn, to);
            *want += is_site[to] && labelled[to];
        }
        if (is_site[b]) n += (size_t)snprintf(in + n, cap - n, "\tjmp\t.LBB%d_0\n", fn), *want += is_site[0] && labelled[0];
    }
    snprintf(in + n, cap - n, "\tretq\n");
}

/* Input lines that are not branches to sites come out unchanged and in order. */
static int lines_kept_in_order(const char *in, const char *out)
{
    const char *at = out;
    for (const char *l = in; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        int branch = l[0] == '\t' && l[1] == 'j';
        if (!branch) {
            char *line = strndup(l, n);
            const char *hit = line ? strstr(at, line) : NULL;
            free(line);
            if (!hit) return 0;
            at = hit + n;
        }
        l += n;
    }
    return 1;
}

/* Occurrences of needle in hay. */
static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *at = hay; (at = strstr(at, needle)); at++) n++;
    return n;
}

/* Every pad or guard a record names is defined once, every pad defined is 16 bytes of the pad's
 * nops after `.p2align 4`, and there are st->pads of them. */
static int pads_well_formed(const char *out, const hp_latch_asm_stats *st)
{
    if (count_of(out, ".Lhp_pad_") - count_of(out, "\t.long .Lhp_pad_") != st->pads) return 0;
    if (count_of(out, "\t.p2align 4\n.Lhp_pad_") != st->pads || count_of(out, HP_LATCH_ASM_PAD_BYTES) != st->pads)
        return 0;
    for (const char *at = out; (at = strstr(at, "\t.long .Lhp_pad")); at++) {
        char def[64];
        size_t n = strcspn(at + 7, "-");
        if (n + 2 > sizeof def) return 0;
        memcpy(def, at + 7, n), def[n] = ':', def[n + 1] = 0;
        if (count_of(out, def) != 1) return 0;
    }
    return 1;
}

/* Two sites of one continuation with different targets (a split switch latch): the first has the
 * pad before C, the second a detached pad of its own at the function's end, which goes on to C;
 * each record names its own. */
TEST(a_site_with_another_target_gets_a_detached_pad_at_its_functions_end)
{
    char in[4096] = "s:\n\tjmp\t.LBB5_1\n.LBB5_1:\n\tjne\t.LBB5_2\n\tjmp\t.LBB5_3\n.LBB5_2:\n";
    site(in, sizeof in, 1, 0);
    strcat(in, "\tjmp\t.LBB5_1\n.LBB5_3:\n");
    char other[512];
    snprintf(other, sizeof other, "%s", SITE_HEAD);
    char *t = strstr(other, ".Ltmp9");
    REQUIRE(t != NULL);
    t[5] = '8'; /* .Ltmp8: another target */
    size_t n = strlen(in);
    snprintf(in + n, sizeof in - n, "%s.long 1\n.long 0\n%s\tjmp\t.LBB5_1\n\tretq\n.Lfunc_end5:\n", other, SITE_TAIL);
    hp_latch_asm_stats st;
    char *out = rewrite(in, &st);
    REQUIRE(out != NULL);
    CHECK_EQ_U64(st.branches, 2);
    CHECK_EQ_U64(st.pads, 2);
    CHECK(strstr(out, "\t.p2align 4\n.Lhp_pad_0:\n\t.byte " HP_LATCH_ASM_PAD_BYTES "\n.LBB5_1:\n") != NULL);
    CHECK(strstr(out, "\tretq\n\t.p2align 4\n.Lhp_pad_1:\n\t.byte " HP_LATCH_ASM_PAD_BYTES
                      "\n\tjmp\t.LBB5_1\n.Lfunc_end5:\n") != NULL);
    CHECK_EQ_U64(count_of(out, "\t.long .Lhp_pad_0-.\n"), 1);
    CHECK_EQ_U64(count_of(out, "\t.long .Lhp_pad_1-.\n"), 1);
    CHECK(pads_well_formed(out, &st));
    free(out);
}

TEST(random_functions_rewrite_exactly_the_branches_into_sites)
{
    hp_rng r;
    hp_rng_seed(&r, 0x1a7c4);
    static char in[1 << 16];
    for (int trial = 0; trial < 200; trial++) {
        in[0] = 0;
        size_t want = 0;
        for (int fn = 0; fn < 3; fn++) random_function(in, sizeof in, &r, fn, &want);
        hp_latch_asm_stats st;
        char *out = rewrite(in, &st);
        REQUIRE(out != NULL);
        CHECK_EQ_U64(st.branches, want);
        CHECK(lines_kept_in_order(in, out));
        CHECK(pads_well_formed(out, &st));
        CHECK(st.sites == 0 || st.pads > 0);
        free(out);
    }
}

int main(void)
{
    RUN(condition_codes_negate_in_bit_zero);
    RUN(branch_to_a_site_block_goes_to_its_continuation);
    RUN(pad_follows_the_alignment_and_is_guarded_only_where_code_falls_in);
    RUN(sites_of_one_continuation_share_a_pad_and_pads_can_be_left_out);
    RUN(a_jcc_falling_into_a_site_is_inverted);
    RUN(entry_sites_count_sites_and_other_blocks_are_left_alone);
    RUN(link_order_section_in_a_group_is_written_in_gas_order);
    RUN(a_site_with_another_target_gets_a_detached_pad_at_its_functions_end);
    RUN(random_functions_rewrite_exactly_the_branches_into_sites);
    return test_main_end();
}

/* test_annotate.c — `hotprof annotate`'s pure pieces (analysis/annotate/annotate.h): per-line sums
 * of random block -> (file, line) mappings against an exhaustive model (a table of every cell),
 * instructions -> blocks against a linear scan, finding a function by name (exact, without the
 * parameter list, ambiguous, unknown with close matches), and source files split into lines.
 */
#include "analysis/annotate/annotate.h"
#include "core/base/rng.h"
#include "test.h"
#include <string.h>
#include <unistd.h>

#define NFILES 4 /* files -1..2 */
#define NLINES 24

TEST(line_sums_match_an_exhaustive_model)
{
    hp_rng rng;
    hp_rng_seed(&rng, 42);
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)hp_rng_below(&rng, 60);
        hp_annot_block b[60];
        uint64_t sum[NFILES][NLINES] = {{0}}, total = 0;
        size_t blocks[NFILES][NLINES] = {{0}}, cells = 0;
        for (size_t i = 0; i < n; i++) {
            b[i] = (hp_annot_block){0x1000 + i, hp_rng_below(&rng, 1000), (int)hp_rng_below(&rng, NFILES) - 1,
                                    (int)hp_rng_below(&rng, NLINES)};
            cells += blocks[b[i].file + 1][b[i].line]++ == 0;
            sum[b[i].file + 1][b[i].line] += b[i].count;
            total += b[i].count;
        }
        hp_annot_line *l;
        size_t nl;
        int rc = hp_annot_sum_lines(b, n, &l, &nl); /* not inside REQUIRE: it evaluates twice */
        REQUIRE(rc == 0);
        CHECK_EQ_U64(nl, cells);
        uint64_t got_total = 0;
        for (size_t i = 0; i < nl; i++) {
            CHECK_EQ_U64(l[i].count, sum[l[i].file + 1][l[i].line]);
            CHECK_EQ_U64(l[i].nblocks, blocks[l[i].file + 1][l[i].line]);
            if (i) CHECK(l[i - 1].file < l[i].file || (l[i - 1].file == l[i].file && l[i - 1].line < l[i].line));
            got_total += l[i].count;
        }
        CHECK_EQ_U64(got_total, total);
        free(l);
    }
}

TEST(instructions_take_the_count_of_the_block_they_are_in)
{
    hp_rng rng;
    hp_rng_seed(&rng, 7);
    for (int round = 0; round < 100; round++) {
        hp_annot_block blocks[16];
        hp_annot_insn insns[64];
        hp_annot_func f = {.blocks = blocks, .nblocks = (size_t)hp_rng_below(&rng, 16)};
        uint64_t pc = 0x2000 + hp_rng_below(&rng, 8);
        for (size_t i = 0; i < f.nblocks; i++, pc += 1 + hp_rng_below(&rng, 12))
            blocks[i] = (hp_annot_block){pc, hp_rng_below(&rng, 50), 0, 1};
        uint64_t a = 0x2000;
        for (size_t i = 0; i < 64; i++, a += 1 + hp_rng_below(&rng, 4)) insns[i] = (hp_annot_insn){.addr = a};
        hp_annot_assign_blocks(&f, insns, 64);
        for (size_t i = 0; i < 64; i++) {
            long holder = -1; /* model: the last block starting at or before the instruction */
            for (size_t k = 0; k < f.nblocks; k++)
                if (blocks[k].pc <= insns[i].addr) holder = (long)k;
            CHECK(insns[i].in_block == (holder >= 0));
            CHECK_EQ_U64(insns[i].count, holder >= 0 ? blocks[holder].count : 0);
            CHECK(insns[i].block_start == (holder >= 0 && blocks[holder].pc == insns[i].addr));
        }
    }
}

TEST(functions_are_found_by_name_with_clear_messages)
{
    hp_annot_fn fns[] = {{"evaluate", 0x100, 50}, {"ns::step(int)", 0x200, 40}, {"ns::step(double)", 0x300, 30},
                         {"helper", 0x400, 20}, {"helper", 0x500, 10}, {"run(char const*)", 0x600, 5}};
    hp_annot_index ix = {fns, 6, 0};
    hp_symbolizer *s = hp_sym_open(NULL, 0);
    char msg[512];
    REQUIRE(s != NULL);
    CHECK(hp_annot_find(&ix, s, "evaluate", msg, sizeof msg) == 0);
    CHECK(hp_annot_find(&ix, s, "ns::step(double)", msg, sizeof msg) == 2);
    CHECK(hp_annot_find(&ix, s, "run", msg, sizeof msg) == 5);
    CHECK(hp_annot_find(&ix, s, "ns::step", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "ambiguous") && strstr(msg, "ns::step(int)") && strstr(msg, "ns::step(double)"));
    CHECK(hp_annot_find(&ix, s, "helper", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "0x400") && strstr(msg, "0x500"));
    CHECK(hp_annot_find(&ix, s, "eval", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "no profiled function") && strstr(msg, "close matches: evaluate"));
    CHECK(hp_annot_find(&ix, s, "zzz", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "the hottest are: evaluate"));
    hp_sym_close(s);
}

TEST(source_files_split_into_clean_lines)
{
    char path[] = "/tmp/hotprof-annot-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const char text[] = "int main(void)\r\n{\n\treturn 0;\x1b[31m\n}";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    hp_annot_source src;
    int rc = hp_annot_source_read(path, &src);
    REQUIRE(rc == 0);
    CHECK_EQ_U64(src.nlines, 4);
    CHECK(strcmp(hp_annot_source_line(&src, 1), "int main(void)") == 0);
    CHECK(strcmp(hp_annot_source_line(&src, 3), "\treturn 0;?[31m") == 0);
    CHECK(strcmp(hp_annot_source_line(&src, 4), "}") == 0);
    CHECK(hp_annot_source_line(&src, 0) == NULL && hp_annot_source_line(&src, 5) == NULL);
    hp_annot_source_free(&src);
    unlink(path);
    CHECK(hp_annot_source_read(path, &src) == -1);
}

int main(void)
{
    RUN(line_sums_match_an_exhaustive_model);
    RUN(instructions_take_the_count_of_the_block_they_are_in);
    RUN(functions_are_found_by_name_with_clear_messages);
    RUN(source_files_split_into_clean_lines);
    return test_main_end();
}

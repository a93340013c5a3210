/* vreport_gen.c — writes a synthetic timer-mode profile for test_vreport.sh (built by the test
 * against build/lib): INFO of a `--mode timer --values 4/2` run, a MODULES record of a real binary
 * (its addresses from nm), and two threads' STACKS and VALUES sections with known counts:
 *   stacks  600 + 200 x [leaf, hot, main]; 300 x [hot, main]; 100 x [main]; 50 x [leaf, leaf, hot, main]
 *           (self leaf 850, hot 300, main 100; total leaf 850, hot 1150, main 1250 of 1250)
 *   values  leaf rax: 7 at 90%, 3 at 8.33%, 9 at 1.67% (threads merged, tau 1 and 2);
 *           hot xmm0: 1.0 always; hot mem0 address: 4 values striding by 64, 25% each;
 *           leaf retaddr: 2/3 from hot+1, 1/3 from main+1.
 * Usage: vreport_gen OUT BINARY LO HI LEAF HOT MAIN [SCALE [novalues]]  (addresses in hex; SCALE
 * multiplies every stack count, to make a "20 kHz" twin for compare; novalues: PC samples only).
 * Exit 1 with a message on bad usage. */
#include "analysis/profbuild.h"
#include "test_vreport_gen.h"
#include <stdio.h>
#include <string.h>

static uint64_t hex(const char *s) { return strtoull(s, NULL, 16); }

static int with_values = 1;

static void thread_one(hp_pbuild *b, uint64_t leaf, uint64_t hot, uint64_t mainf, uint64_t k)
{
    vg_stack s[3] = {{600 * k, 0, 3, 0, {leaf, hot + 1, mainf + 1}}, {300 * k, 0, 2, 0, {hot, mainf + 1}},
                     {100 * k, 0, 1, 0, {mainf}}};
    vg_value v[3] = {{leaf, 500, 1, HP_VK_REG, HP_VREG_RAX, 2, {{7, 450}, {3, 50}}},
                     {hot, 300, 1, HP_VK_XMM, 0, 1, {{0x3ff0000000000000ull, 300}}},
                     {hot, 300, 1, HP_VK_ADDR, 0, 4, {{0x1000, 75}, {0x1040, 75}, {0x1080, 75}, {0x10c0, 75}}}};
    hp_pbuild_thread(b, 1, 0);
    vg_stacks(b, s, 3);
    if (with_values) vg_values(b, v, 3);
}

static void thread_two(hp_pbuild *b, uint64_t leaf, uint64_t hot, uint64_t mainf, uint64_t k)
{
    vg_stack s[2] = {{200 * k, 0, 3, 0, {leaf, hot + 1, mainf + 1}}, {50 * k, 0, 4, 0, {leaf, leaf + 1, hot + 1, mainf + 1}}};
    vg_value v[2] = {{leaf, 100, 2, HP_VK_REG, HP_VREG_RAX, 2, {{7, 45}, {9, 5}}},
                     {leaf, 600, 1, HP_VK_RETADDR, 0, 2, {{hot + 1, 400}, {mainf + 1, 200}}}};
    hp_pbuild_thread(b, 2, 0);
    vg_stacks(b, s, 2);
    if (with_values) vg_values(b, v, 2);
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: vreport_gen OUT BINARY LO HI LEAF HOT MAIN [SCALE]\n");
        return 1;
    }
    uint64_t k = argc > 8 ? strtoull(argv[8], NULL, 10) : 1, leaf = hex(argv[5]), hot = hex(argv[6]), mainf = hex(argv[7]);
    with_values = !(argc > 9 && !strcmp(argv[9], "novalues"));
    char info[512];
    hp_pbuild b;
    hp_pbuild_init(&b, 5);
    snprintf(info, sizeof info, "program=%s\nmode=timer\ntimer.freq=%llu\ntimer.signal=34\ntimer.signal_moves=1\n"
             "timer.unwinder=libunwind\ntimer.clock=perf\ntimer.depth=64\ntimer.samples=%llu\ntimer.dropped=2\ntimer.handler_ns=3000000\n"
             "timer.cpu_ns=1000000000\nvalues=4/2\nvalues.engine=ool\nvalues.runs=600\nvalues.insns=2300\n"
             "values.ns=2000000\nvalues.stop.syscall=3\nvalues.stop.fault=1\nvalues.debias=0\n",
             argv[2], 1000ull * (unsigned long long)k, 1252ull * (unsigned long long)k);
    hp_pbuild_info(&b, info);
    hp_pbuild_module(&b, 0, hex(argv[3]), hex(argv[4]), argv[2], NULL, 0);
    thread_one(&b, leaf, hot, mainf, k);
    thread_two(&b, leaf, hot, mainf, k);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    FILE *f = fopen(argv[1], "wb");
    int ok = b.ok && f && fwrite(b.buf, 1, b.len, f) == b.len;
    if (f && fclose(f)) ok = 0;
    hp_pbuild_free(&b);
    if (!ok) fprintf(stderr, "vreport_gen: cannot write %s\n", argv[1]);
    return ok ? 0 : 1;
}

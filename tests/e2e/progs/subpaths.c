/* subpaths.c — a program whose hot subpaths (issue 9, OSP) are known in advance.
 *
 * Build: hotprof cc --hooks=blocks -O1 -o subpaths subpaths.c. Usage: subpaths [scale] [--expect].
 * Every loop bound and branch condition comes from a volatile, so clang can neither fold, unroll,
 * vectorize nor if-convert the code: each branch arm below stays a block of its own, and each arm
 * does a volatile store so it cannot become a select or a lookup table. Four phases, one thread:
 *
 *  1. spin(): a do-while on a volatile counter, SPIN = 24 x scale x 100000 iterations; clang 14
 *     -O1 makes it 2 blocks A B (the body, the volatile decrement and test), so its stream is
 *     A B A B ... and every even-length window is a rotation of (A B)^(L/2): with enc=exact each
 *     of the 5 lengths 2, 4, ..., 32 is one subpath of count 2 SPIN - L + 1 (enc=xor: also one key
 *     per length, (A B)^(L/2) having the same blocks). These 5 are the hottest subpaths of the
 *     program, each 6x hotter than any subpath of the phases below (so that even ~1000 samples,
 *     ~30 of them of length 32, rank them first).
 *  2. pattern(): a loop of PATTERN = 3 x scale x 100000 iterations whose branch is taken every 3rd
 *     iteration (i % 3 == 0): arm a runs PATTERN / 3 times, arm b 2 PATTERN / 3 times. Its block
 *     stream has period 3 iterations (12 blocks at -O1: test, arm, two latch blocks); a subpath
 *     of it, rotations merged, covers at most 8 of the 12 windows of a period (the rotations of
 *     test-b-latch-latch): count <= 8 PATTERN / 3 = SPIN / 3, a sixth of spin's.
 *     With enc=xor, windows whose blocks of odd multiplicity are the same share one key: e.g.
 *     every window of length 8 made of whole loop periods of 1, 2 or 4 blocks (spin, rotor) is
 *     the key 8 << 40; the hottest keys are then those merged ones (>= 2 SPIN), still one
 *     per length, and the top 5 stays 6x above the 6th (checked against the exact run, not assumed).
 *  3. rotor(): a loop of ROTOR = scale x 100000 iterations whose body is straight-line blocks
 *     (one "if (volatile one)": a test and an arm that is always taken, and the volatile loop
 *     counter's latch), so its stream is periodic with period = the body's block count B (4 with
 *     clang 14 -O1: test, arm, and two latch blocks; the test finds B from the block counts). With
 *     enc=exact, the B windows of length B (one starting at each block of the body) are rotations
 *     of one sequence: one key, count ~ B x ROTOR. With enc=xor they are one key too (same blocks).
 *  4. fig11(i), called FIG = 12 x scale x 10000 times (the paper's Figure 1.1): a prefix chosen
 *     by i % 4 (4 arms, FIG / 4 each), a hot middle of straight-line blocks run on every call (4
 *     "if (volatile one)" tests and arms), a suffix chosen by i % 3 (3 arms, FIG / 3 each). Each of
 *     the 12 whole paths prefix-middle-suffix runs FIG / 12 times (i % 4 and i % 3 take every pair
 *     equally often over 12 consecutive i): every path is cold, while the middle subpath runs FIG
 *     times, 12x any path through it. Path profiling reports 12 cold paths; OSP the hot middle.
 *
 * --expect prints the facts the program knows, one per line, for tests/e2e/test_osp.sh, which
 * checks the exhaustive subpath counter against them (block counts of each arm, the Figure 1.1
 * property):  expect NAME FUNCTION COUNT  (a block of FUNCTION runs COUNT times)  and
 *             fact NAME VALUE.
 * The program prints "ok <checksum>" on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long v_a, v_b, v_m1, v_m2, v_m3, v_m4, v_p[4], v_s[3];
static volatile unsigned v_one = 1;

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
    volatile unsigned long k = n;
    unsigned long acc = 0;
    do acc = acc * 31 + k; while (--k != 0);
    return acc;
}

__attribute__((noinline)) static void pattern(unsigned long n)
{
    for (volatile unsigned long i = 0; i < n; i++) {
        if (i % 3 == 0) v_a += i; /* arm a: every 3rd iteration */
        else v_b ^= i;            /* arm b: the other two */
    }
}

__attribute__((noinline)) static void rotor(unsigned long n)
{
    for (volatile unsigned long i = 0; i < n; i++) {
        if (v_one) v_m1 += i;
    }
}

__attribute__((noinline)) static void fig11(unsigned long i)
{
    switch (i % 4) { /* prefix: 4 cold arms */
    case 0: v_p[0] += i; break;
    case 1: v_p[1] ^= i; break;
    case 2: v_p[2] -= i; break;
    default: v_p[3] += 3; break;
    }
    if (v_one) v_m1 += 1; /* the hot middle: every call */
    if (v_one) v_m2 += 2;
    if (v_one) v_m3 += 3;
    if (v_one) v_m4 += 4;
    switch (i % 3) { /* suffix: 3 cold arms */
    case 0: v_s[0] += i; break;
    case 1: v_s[1] ^= i; break;
    default: v_s[2] -= 1; break;
    }
}

static void print_expect(unsigned long spin_n, unsigned long pat, unsigned long rot, unsigned long fig)
{
    printf("fact spin_iterations %lu\n", spin_n);
    printf("fact pattern_iterations %lu\n", pat);
    printf("fact rotor_iterations %lu\n", rot);
    printf("fact fig11_calls %lu\n", fig);
    printf("fact fig11_path %lu\n", fig / 12);
    printf("expect spin_body spin %lu\n", spin_n);
    printf("expect pattern_arm_a pattern %lu\n", pat / 3);
    printf("expect pattern_arm_b pattern %lu\n", pat - pat / 3);
    printf("expect rotor_body rotor %lu\n", rot);
    printf("expect fig11_middle fig11 %lu\n", fig);
    printf("expect fig11_prefix_arm fig11 %lu\n", fig / 4);
    printf("expect fig11_suffix_arm fig11 %lu\n", fig / 3);
}

int main(int argc, char **argv)
{
    unsigned long scale = 1;
    int expect = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--expect") == 0) expect = 1;
        else if ((scale = strtoul(argv[a], NULL, 10)) == 0 || scale > 1000) {
            fprintf(stderr, "usage: subpaths [scale 1..1000] [--expect]\n");
            return 2;
        }
    }
    unsigned long spin_n = 24 * scale * 100000, pat = 3 * scale * 100000, rot = scale * 100000,
                  fig = 12 * scale * 10000;
    if (expect) {
        print_expect(spin_n, pat, rot, fig);
        return 0;
    }
    unsigned long sum = spin(spin_n);
    pattern(pat);
    rotor(rot);
    for (volatile unsigned long i = 0; i < fig; i++) fig11(i);
    sum += v_a + v_b + v_m1 + v_m2 + v_m3 + v_m4 + v_p[0] + v_p[3] + v_s[0] + v_s[2];
    printf("ok %lu\n", sum);
    return 0;
}

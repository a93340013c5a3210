/* loops.c — functions with known loop trip counts, to check back-edge counts.
 *
 * Trip counts come from volatile variables so the compiler cannot unroll or fold the loops.
 * A taken back-edge is a jump to a block at or below the last one executed in the same
 * activation. At -O0 clang emits `for` as header / body / latch, so a loop of n iterations takes
 * n back-edges (the latch jumps to the header n times). From -O1 it rotates the loop (a guard,
 * then body+latch ending in a backward branch), which is taken n - 1 times. The program prints
 * the expectation for the level it was built at (__OPTIMIZE__):
 *   expect <function> <calls>
 *   expect_backedges <function> <n>
 * The back-edge lines are exact only when built with -fsanitize-coverage=...,no-prune: clang's
 * default pruning leaves some loop headers and latches without a guard, and a jump to a block
 * without a guard cannot be seen (it then counts n - 1 at -O0 and n - 2 at -O1, per loop).
 * Checked with clang 14 at -O0 and -O1; above -O1 loops may be unrolled or vectorized.
 */
#include <stdio.h>

static volatile unsigned trip_a = 100, trip_outer = 20, trip_inner = 30, trip_w = 57, zero_trip = 0;
static volatile unsigned long sink;

#ifdef __OPTIMIZE__
#define TAKEN(n) ((n) ? (n) - 1 : 0) /* rotated loop */
#else
#define TAKEN(n) (n)
#endif

__attribute__((noinline)) static void simple_loop(unsigned n)
{
    for (unsigned i = 0; i < n; i++) sink += i;
}

__attribute__((noinline)) static void nested_loop(unsigned outer, unsigned inner)
{
    for (unsigned i = 0; i < outer; i++)
        for (unsigned j = 0; j < inner; j++) sink += i * j;
}

__attribute__((noinline)) static void while_loop(unsigned n)
{
    unsigned i = 0;
    while (i < n) sink ^= i++;
}

__attribute__((noinline)) static void leaf(unsigned i) { sink += i; }

/* Calls inside the loop: the callee's blocks must not disturb the caller's frame. */
__attribute__((noinline)) static void calling_loop(unsigned n)
{
    for (unsigned i = 0; i < n; i++) leaf(i);
}

__attribute__((noinline)) static void no_loop(unsigned n)
{
    if (n > 3) sink += 1;
    else sink += 2;
}

int main(void)
{
    unsigned a = trip_a, o = trip_outer, in = trip_inner, w = trip_w, z = zero_trip;
    simple_loop(a);
    simple_loop(a);
    simple_loop(z);
    nested_loop(o, in);
    while_loop(w);
    calling_loop(a);
    no_loop(a);
    no_loop(z);
    printf("expect simple_loop 3\nexpect nested_loop 1\nexpect while_loop 1\nexpect calling_loop 1\n");
    printf("expect leaf %u\nexpect no_loop 2\n", a);
    printf("expect_backedges simple_loop %u\n", 2 * TAKEN(a) + TAKEN(z));
    printf("expect_backedges nested_loop %u\n", TAKEN(o) + o * TAKEN(in));
    printf("expect_backedges while_loop %u\n", TAKEN(w));
    printf("expect_backedges calling_loop %u\n", TAKEN(a));
    printf("expect_backedges leaf 0\nexpect_backedges no_loop 0\n");
    return 0;
}

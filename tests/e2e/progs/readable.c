/* readable.c — the program of test_readable.sh (readable reports). The test copies it under a long
 * directory path and builds it with hotprof cc -O2, so that its report has:
 *   - a long function name in a long file path (nothing may be cut);
 *   - one source call site duplicated by unrolling (`#pragma GCC unroll`): several call
 *     instructions of one line, which the call-pairs table must merge into one row;
 *   - two call sites of one caller and callee on two lines (two rows, never merged);
 *   - a static always_inline function inlined into its caller (`caller → [inlined f] line N`);
 *   - two calls of one callee on two branches, which clang -O2 merges into one call instruction
 *     whose line-table line is 0: the report falls back to the function's declaration line.
 * Lines the test looks up carry a marker comment (LINE:name). Every count is a function of N.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int core_state_transition_handler_for_the_long_named_state_machine(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) int leaf(int x) { return x + 1; }

__attribute__((noinline)) int unrolled_loop(int n)
{
    int s = 0;
#pragma GCC unroll 4
    for (int i = 0; i < n; i++) s += leaf(i); /* LINE:unrolled */
    return s;
}

__attribute__((noinline)) int two_lines(int n)
{
    int s = leaf(n); /* LINE:first */
    s += leaf(s);    /* LINE:second */
    return s;
}

static inline __attribute__((always_inline)) int inlined_helper(int x)
{
    return leaf(x) * 2; /* LINE:in_helper */
}

__attribute__((noinline)) int uses_inline(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) s += inlined_helper(i); /* LINE:inlined_at */
    return s;
}

__attribute__((noinline)) int branchy(int c, int x) /* LINE:branchy_decl */
{
    int r;
    if (c) r = leaf(x * 3);
    else r = leaf(x + 7);
    return r + 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, s = 0;
    for (int i = 0; i < n; i++) s += core_state_transition_handler_for_the_long_named_state_machine(i);
    s += unrolled_loop(n) + two_lines(n) + uses_inline(n);
    for (int i = 0; i < n; i++) s += branchy(i & 1, i);
    printf("%d\n", s);
    return 0;
}

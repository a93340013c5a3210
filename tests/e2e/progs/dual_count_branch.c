/* dual_count_branch.c — loops with calls, whose inline count sites stay in memory (the countdown
 * in %fs), laid out so that the latch cannot fall through to the header unless the compiler owns
 * the site's branch (test_dual_count_sites.sh; plugin/dual_countreg.h branchMemorySites): visit's
 * loop over the set bits of each word (`bits &= bits - 1`, its test before the site) calls a
 * function for some of them; walk follows a chain and recurses, as a closure over epsilon edges
 * does. Prints a checksum.
 * Usage: dual_count_branch WORDS ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned long long next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned long sink;
__attribute__((noinline)) void touch(int bit) { sink = sink * 31 + (unsigned)bit; }

__attribute__((noinline)) void visit(const unsigned long long *w, int n)
{
    for (int i = 0; i < n; i++)
        for (unsigned long long bits = w[i]; bits; bits &= bits - 1) {
            int b = __builtin_ctzll(bits);
            if (b % 3 == 0) touch(b + 64 * i);
        }
}

static int chain[256];
__attribute__((noinline)) void walk(int i, int depth)
{
    while (i >= 0 && depth < 40) {
        sink += (unsigned)i;
        if ((i & 7) == 0) walk(chain[(i + 1) & 255], depth + 1);
        i = chain[i];
        depth++;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, rounds = argc > 2 ? atoi(argv[2]) : 1000;
    if (n < 1 || rounds < 0) {
        fprintf(stderr, "usage: dual_count_branch WORDS ROUNDS\n");
        return 2;
    }
    unsigned long long *w = malloc(sizeof *w * (size_t)n);
    if (!w) return 1;
    for (int i = 0; i < 256; i++) chain[i] = (int)(next_rand() % 300) - 44;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) w[i] = next_rand() & next_rand();
        visit(w, n);
        walk(r & 255, 0);
    }
    printf("%lu\n", sink);
    free(w);
    return 0;
}

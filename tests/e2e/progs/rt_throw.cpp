/* rt_throw.cpp — back-edges of a loop whose iterations catch an exception thrown by a callee.
 *   rt_throw N   loop() runs N iterations; each calls thrower(), which throws; loop() catches.
 * Prints "expect_backedges loop B" (B as in loops.c: N at -O0, N-1 when rotated) and
 * "expect thrower N". */
#include <cstdio>
#include <cstdlib>

#ifdef __OPTIMIZE__
#define TAKEN(n) ((n) ? (n) - 1 : 0)
#else
#define TAKEN(n) (n)
#endif

static volatile unsigned long sink;

extern "C" __attribute__((noinline)) void thrower(unsigned long i)
{
    sink += i;
    throw (int)i;
}

extern "C" __attribute__((noinline)) void loop(unsigned long n)
{
    for (volatile unsigned long i = 0; i < n; i++) {
        try {
            thrower(i);
        } catch (int v) {
            sink ^= (unsigned long)v;
        }
    }
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    loop(n);
    std::printf("expect thrower %lu\nexpect loop 1\nexpect_backedges loop %lu\n", n, (unsigned long)TAKEN(n));
    return 0;
}

/* rt_longjmp.c — back-edges of a loop whose iterations leave a callee by longjmp.
 *   rt_longjmp N   loop() runs N iterations; each calls thrower(), which longjmps back into
 *                  loop() every time (no exit hook runs for thrower).
 * Prints "expect_backedges loop B" with B the back-edges a plain loop of N iterations takes at
 * the build's level (N at -O0, N-1 when rotated; see loops.c), and "expect thrower N". */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __OPTIMIZE__
#define TAKEN(n) ((n) ? (n) - 1 : 0)
#else
#define TAKEN(n) (n)
#endif

static jmp_buf jb;
static volatile unsigned long sink;

__attribute__((noinline)) void thrower(unsigned long i)
{
    sink += i;
    longjmp(jb, 1);
}

__attribute__((noinline)) void loop(unsigned long n)
{
    for (volatile unsigned long i = 0; i < n; i++) {
        if (setjmp(jb) == 0) thrower(i);
        else sink ^= i;
    }
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    loop(n);
    printf("expect thrower %lu\nexpect loop 1\nexpect_backedges loop %lu\n", n, (unsigned long)TAKEN(n));
    return 0;
}

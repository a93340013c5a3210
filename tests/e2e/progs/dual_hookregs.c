/* dual_hookregs.c — a loop whose body calls its own function (lexgen's closure_add: an NFA's
 * epsilon closure), for test_dual_hookregs.sh: in a dual build the clean copy must keep the native
 * frame, though each latch site's label calls the back-edge hook (plugin/dual_hookcall.h).
 * Usage: dual_hookregs [rounds]; prints how many states the closures reached in all. */
#include <stdio.h>
#include <stdlib.h>
#define NSTATES 4096
typedef struct { int eps, out1, out2; } state;
static state states[NSTATES];
static unsigned char marks[NSTATES];

__attribute__((noinline)) void closure(const state *st, unsigned char *seen, int i)
{
    while (i >= 0 && !seen[i]) {
        seen[i] = 1;
        if (!st[i].eps) return;
        closure(st, seen, st[i].out2);
        i = st[i].out1;
    }
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200, added = 0;
    unsigned x = 12345;
    for (int i = 0; i < NSTATES; i++) {
        x = x * 1103515245u + 12345u;
        states[i] = (state){ (x >> 16) % 4 != 0, (int)((x >> 8) % NSTATES), (int)((x >> 3) % (NSTATES + 64)) - 64 };
    }
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < NSTATES; i++) marks[i] = 0;
        closure(states, marks, (int)(r % NSTATES));
        for (int i = 0; i < NSTATES; i++) added += marks[i];
    }
    printf("%ld\n", added);
    return 0;
}

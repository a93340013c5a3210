/* osp_loop.c — a program with known hot subpaths for the OSP tests (test_osp_run.sh): one loop of
 * N iterations whose body takes one of two branches (i % 3), in a function of its own. Prints a
 * checksum (the output must be the same profiled or not). Usage: osp_loop [N] (default 200000). */
#include <stdio.h>
#include <stdlib.h>

static long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (i % 3 == 0) s += i;
        else s -= 1;
    }
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    printf("%ld\n", work(n));
    return 0;
}

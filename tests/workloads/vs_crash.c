/* vs_crash.c — timer-mode test workload: burns CPU in spin() for about 0.2 s, then dereferences
 * NULL (SIGSEGV). The profile up to the crash must survive. */
#include <stdio.h>

static volatile double sink;
int *volatile null_ptr;

__attribute__((noinline)) static void spin(void)
{
    double s = 0;
    for (long i = 0; i < 80000000; i++) s += (double)i, sink = s;
}

int main(void)
{
    spin();
    return *null_ptr;
}

/* crash.c — known work, then a fatal signal: the profile must still hold a complete group.
 *
 * Calls step() a known number of times (through a helper), prints the expected totals, then:
 *   crash            writes through a null pointer (SIGSEGV)
 *   crash overflow   recurses without bound (SIGSEGV on stack overflow; needs the sigaltstack)
 *   crash fpe        integer division by zero (SIGFPE)
 * The group is written with flags CRASH and status -signo; the process still dies by the signal.
 * stdout lines: "expect <function> <calls>" and "expect_signal <signo>".
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile unsigned long sink;
static volatile int zero;

__attribute__((noinline)) static void step(unsigned long i) { sink += i; }
__attribute__((noinline)) static void helper(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) step(i);
}
__attribute__((noinline)) static unsigned long deep(unsigned long d)
{
    volatile char pad[64];
    pad[d % 64] = (char)d;
    return deep(d + 1) + pad[0];
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "segv";
    helper(1000);
    helper(234);
    printf("expect step 1234\nexpect helper 2\nexpect main 1\n");
    if (strcmp(how, "overflow") == 0) {
        printf("expect_signal %d\n", SIGSEGV);
        fflush(stdout);
        return (int)deep(0);
    }
    if (strcmp(how, "fpe") == 0) {
        printf("expect_signal %d\n", SIGFPE);
        fflush(stdout);
        return 10 / zero;
    }
    printf("expect_signal %d\n", SIGSEGV);
    fflush(stdout);
    *(volatile int *)0 = 1;
    return 0;
}

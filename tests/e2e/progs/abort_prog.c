/* abort_prog.c — known work, then abort(): the profile holds a CRASH group with status -SIGABRT
 * and the process still dies by SIGABRT. stdout: "expect <function> <calls>", "expect_signal 6".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void tick(unsigned long i) { sink += i; }
__attribute__((noinline)) static void run(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) tick(i);
}

int main(void)
{
    run(500);
    run(77);
    printf("expect tick 577\nexpect run 2\nexpect main 1\nexpect_signal %d\n", SIGABRT);
    fflush(stdout);
    abort();
}

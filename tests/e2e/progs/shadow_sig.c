/* shadow_sig.c — for tests/e2e/test_shadow.sh: computes for a while, then takes signal argv[1]
 * (a number) over with its own handler, and computes again. The monitor must notice, stop its
 * timer and warn once (INFO shadow.signal_lost=1); the program exits 0 with "sig ok".
 * With SIGNO 0 it takes nothing over (shadows then run to the program's exit).
 * Usage: shadow_sig SIGNO [ITERATIONS] (default 150000000 per half) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t g_got;
static void on_sig(int s) { (void)s; g_got++; }

static long g_iters = 150000000;

__attribute__((noinline)) static unsigned long work(unsigned long x)
{
    for (long i = 0; i < g_iters; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

int main(int argc, char **argv)
{
    int sig = argc > 1 ? atoi(argv[1]) : 40;
    if (argc > 2) g_iters = atol(argv[2]);
    unsigned long acc = work(1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigemptyset(&sa.sa_mask);
    if (sig) sigaction(sig, &sa, NULL);
    acc = work(acc);
    printf("sig ok %lu\n", acc % 1000);
    return 0;
}

/* vs_sigown.c — timer-mode test workload: installs a handler for SIGRTMIN+5 (hotprof's default
 * timer signal), blocks and unblocks it, burns CPU (while timer interrupts, moved elsewhere, keep
 * coming), then raises it 100 times. Prints the old disposition sigaction returned ("dfl" or
 * "other") and how many it received: exactly 100 if none of hotprof's interrupts reached it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t got;
static volatile double sink;

static void on_sig(int sig) { got++; }

int main(void)
{
    int s = SIGRTMIN + 5;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigaction(s, &sa, &old);
    printf("old %s\n", old.sa_handler == SIG_DFL ? "dfl" : "other");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, s);
    sigprocmask(SIG_BLOCK, &set, NULL);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    double x = 0;
    for (long i = 0; i < 60000000; i++) x += (double)i, sink = x;
    for (int i = 0; i < 100; i++) raise(s);
    printf("received %d\n", (int)got);
    return got == 100 ? 0 : 1;
}

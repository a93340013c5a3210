/* vs_sigprof.c — timer-mode test workload: the program's own SIGPROF handler and
 * setitimer(ITIMER_PROF) must keep working under `hotprof run --mode timer`. Burns about 0.3 s of
 * CPU, then prints "sigprof ok" if its handler ran at least once (else "sigprof none") and exits
 * 0 (1 when none arrived). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t got;
static volatile double sink;

static void on_prof(int sig) { got++; }

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_PROF, &it, NULL);
    double s = 0;
    for (long i = 0; i < 150000000 && got < 20; i++) s += (double)i, sink = s;
    printf("sigprof %s\n", got > 0 ? "ok" : "none");
    return got > 0 ? 0 : 1;
}

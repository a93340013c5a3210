/* patch_sigtrap.c — the program's own SIGTRAP next to patch mode's (runtime/ctl/sites.c), which
 * traps on half-patched call sites and must hand every other SIGTRAP to the program.
 *
 * A hot instrumented loop (calls and loop back-edges: call sites the runtime patches while it
 * runs) executes `int3` TRAPS times, evenly spread over ROUNDS rounds. MODE says who handles it:
 *   siginfo  a handler installed in main with sigaction(SA_SIGINFO): it must run exactly TRAPS
 *            times, each time at our own int3 (si_code and the saved pc are not checked: the
 *            count is);
 *   plain    the same with a plain sa_handler;
 *   raise    no int3: raise(SIGTRAP) TRAPS times, to a plain handler;
 *   early    the SA_SIGINFO handler installed from .preinit_array, before any constructor, so
 *            before the runtime starts and installs its own (which must then chain to it);
 *   none     no handler at all: the first int3 must kill the program with SIGTRAP (default
 *            action); printing "survived" means the trap was swallowed;
 *   masked   no int3 (TRAPS is taken as 0); every signal blocked in main, as programs that
 *            leave signals to a dedicated thread do: the code must run as it does unprofiled.
 * With THREADS > 1, THREADS - 1 more threads (started after main's signal setup, so with its
 * mask) run the same loop without traps, and must compute main's sum.
 * Prints "hits H of T" and "sum <hex>" (the same for every build and mode of a given ROUNDS),
 * exits 0 iff H == T and every thread's sum is main's.
 * Usage: patch_sigtrap MODE [ROUNDS] [TRAPS] [THREADS]   (default 3000 rounds, 5 traps, 1 thread)
 * The preinit function and the handlers are not instrumented (no hooks run before the runtime
 * starts; none in a handler the runtime chains to).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t hits;

#define NOHOOKS __attribute__((no_instrument_function, no_sanitize("coverage")))

NOHOOKS static void on_trap_info(int sig, siginfo_t *si, void *ctx)
{
    (void)si, (void)ctx;
    if (sig == SIGTRAP) hits++;
}

NOHOOKS static void on_trap(int sig)
{
    if (sig == SIGTRAP) hits++;
}

__attribute__((noinline)) static uint64_t leaf(uint64_t x, int k)
{
    for (int i = 0; i < k; i++) x = x * 6364136223846793005ull + 1442695040888963407ull + (x >> 31);
    return x;
}

__attribute__((noinline)) static uint64_t mid(uint64_t x, int i) { return leaf(x, 8 + (i & 7)) ^ leaf(x + 1, 4); }

__attribute__((noinline)) static uint64_t round_work(uint64_t x)
{
    for (int i = 0; i < 400; i++) x = mid(x, i) + (uint64_t)i;
    return x;
}

static long g_rounds;

static void *helper(void *arg)
{
    uint64_t x = 1;
    for (long r = 1; r <= g_rounds; r++) x = round_work(x);
    *(uint64_t *)arg = x;
    return NULL;
}

/* mode "early": install the handler before the runtime's constructor runs */
NOHOOKS static void early_install(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc < 2 || strcmp(argv[1], "early")) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_trap_info;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGTRAP, &sa, NULL);
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **, char **) = early_install;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "siginfo";
    long rounds = argc > 2 ? atol(argv[2]) : 3000;
    long traps = argc > 3 ? atol(argv[3]) : 5;
    int nthreads = argc > 4 ? atoi(argv[4]) : 1;
    if (rounds < 1 || traps < 0 || traps > rounds || nthreads < 1 || nthreads > 16) {
        fprintf(stderr, "usage: patch_sigtrap siginfo|plain|raise|early|none|masked [ROUNDS] [TRAPS] [THREADS]\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (!strcmp(mode, "siginfo")) {
        sa.sa_sigaction = on_trap_info;
        sa.sa_flags = SA_SIGINFO;
    } else if (!strcmp(mode, "plain") || !strcmp(mode, "raise")) {
        sa.sa_handler = on_trap;
    } else if (!strcmp(mode, "masked")) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, NULL);
        traps = 0;
    } else if (strcmp(mode, "none") && strcmp(mode, "early")) {
        fprintf(stderr, "patch_sigtrap: unknown mode '%s'\n", mode);
        return 2;
    }
    if (sa.sa_handler != SIG_DFL && sigaction(SIGTRAP, &sa, NULL) != 0) {
        perror("sigaction");
        return 2;
    }
    pthread_t tid[16];
    uint64_t sums[16] = {0};
    g_rounds = rounds;
    for (int i = 1; i < nthreads; i++)
        if (pthread_create(&tid[i], NULL, helper, &sums[i]) != 0) {
            fprintf(stderr, "patch_sigtrap: pthread_create failed\n");
            return 2;
        }
    uint64_t x = 1;
    long every = traps ? rounds / traps : rounds + 1, done = 0;
    for (long r = 1; r <= rounds; r++) {
        x = round_work(x);
        if (r % every == 0 && done < traps) {
            done++;
            if (!strcmp(mode, "raise")) raise(SIGTRAP);
            else __asm__ volatile("int3" ::: "memory");
        }
    }
    int same = 1;
    for (int i = 1; i < nthreads; i++) {
        pthread_join(tid[i], NULL);
        if (sums[i] != x) same = 0;
    }
    if (!strcmp(mode, "none") && traps) printf("survived\n");
    printf("hits %d of %ld\nsum %016llx%s\n", (int)hits, traps, (unsigned long long)x, same ? "" : " (threads differ)");
    return hits == traps && same ? 0 : 1;
}

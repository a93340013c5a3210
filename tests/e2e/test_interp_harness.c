/* test_interp_harness.c — drives the value-sampling interpreter (runtime/ctl/interp.h) inside an
 * unmodified program for the interp e2e tests, standing in for the timer controller: link it
 * with the program and libhotprof_rtparts.a. A constructor reads HP_INTERP="L/K engine debias hz"
 * (engine: ool, tf or check), starts the interpreter, sets up the main thread (hp_tls, t->interp),
 * and arms ITIMER_PROF at hz with a SIGPROF handler (SA_ONSTACK, on a 64 KiB altstack) that calls
 * hp_interp_on_sample on every K-th interrupt. A destructor stops the timer and writes to
 * HP_INTERP_OUT: the INFO lines ("I key=value"), then one line per hot-list
 * ("V pc kind operand captures tau n value:count ...", numbers in decimal, highest count first). Nothing goes to the
 * program's stdout. Only the main thread is interpreted (ITIMER_PROF is per process: an interrupt
 * that lands on another thread is ignored).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "runtime/ctl/interp_int.h"
#include "runtime/thread.h"

static hp_thread harness_thread;

/* thread.o (pulled in by hp_tls) calls up into init; the harness has no init. */
int hp_rt_ensure_init(void);
int hp_rt_ensure_init(void) { return 0; }
static unsigned harness_every, harness_tick;

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    if (hp_tls == &harness_thread && ++harness_tick % harness_every == 0) hp_interp_on_sample(&harness_thread, ucv);
}

__attribute__((constructor)) static void harness_start(void)
{
    const char *spec = getenv("HP_INTERP");
    if (!spec) return;
    unsigned l = 0, k = 0, debias = 0, hz = 1000;
    char engine[16] = "ool";
    if (sscanf(spec, "%u/%u %15s %u %u", &l, &k, engine, &debias, &hz) < 2) {
        fprintf(stderr, "harness: bad HP_INTERP '%s'\n", spec);
        exit(2);
    }
    hp_interp_config c = {l, k, strcmp(engine, "tf") == 0 ? HP_ENGINE_TF : strcmp(engine, "check") == 0 ? HP_ENGINE_CHECK : HP_ENGINE_OOL,
                          debias, 42};
    char err[256];
    if (hp_interp_start(&c, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        exit(2);
    }
    harness_every = k;
    hp_tls = &harness_thread;
    harness_thread.interp = hp_interp_thread_new();
    if (!harness_thread.interp) {
        fprintf(stderr, "harness: no interpreter state\n");
        exit(2);
    }
    stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_sigaction = on_prof, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, (long)(1000000 / hz)}, {0, (long)(1000000 / hz)}};
    setitimer(ITIMER_PROF, &it, NULL);
}

__attribute__((destructor)) static void harness_stop(void)
{
    if (!harness_thread.interp) return;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    const char *path = getenv("HP_INTERP_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    static char info[8192];
    hp_interp_info(info, sizeof info);
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n")) fprintf(f, "I %s\n", line);
    const hp_interp_thread *it = harness_thread.interp;
    for (uint32_t i = 0; i < HP_VSLOTS; i++) {
        const hp_vslot *s = &it->vslots[i];
        if (!s->pc) continue;
        hp_vgm_entry e[HP_VGM_N];
        uint32_t n = hp_vgm_sorted(&s->gm, e);
        fprintf(f, "V %llu %u %u %llu %.4f %u", (unsigned long long)s->pc, s->kind, s->operand,
                (unsigned long long)s->gm.captures, s->gm.tau, n);
        for (uint32_t j = 0; j < n; j++) fprintf(f, " %llu:%llu", (unsigned long long)e[j].value, (unsigned long long)e[j].count);
        fprintf(f, "\n");
    }
    fclose(f);
}

/* bench_bursty.c — ns per boundary event of the bursty controller's hook path (docs/bursty.md).
 *
 * Each case calls a non-inlined "hook" once per event, as the runtime's call/back-edge hook would:
 * the hook runs hp_bursty_boundary on a thread-local hp_bursty_state and, when a type samples,
 * bumps a counter (standing in for the profile handler). Cases:
 *   idle-nopoll   every type disabled, poll = HP_BURSTY_MAX_COUNT: the pure fast path;
 *   idle-poll     every type disabled, default poll (a slow path every 4096 events);
 *   off-1/10000   hot methods B=1, S=9999 (frequency 1/10^4);
 *   off-1/100     hot methods B=1, S=99 (1/100, the paper's most aggressive rate);
 *   ds-1/100      data streams B=100, S=9900 (1/100 in bursts of 100).
 * Each case also runs with the fast path inlined into the loop instead of a hook call ("inlined"),
 * and two baselines: empty-hook (call + return only) and tls-inc-hook (a TLS counter += 1).
 * Build and run from the repository root:
 *   make build/lib/libhotprof_core.a
 *   gcc -std=gnu11 -O2 -Isrc bench/bursty/bench_bursty.c build/lib/libhotprof_core.a -lm -o /tmp/bench_bursty
 *   taskset -c 1 /tmp/bench_bursty [events]
 * Prints the best of 5 rounds per case (wall clock, CLOCK_MONOTONIC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "core/control/bursty.h"

static __thread hp_bursty_state tls_state;
static __thread uint64_t tls_recorded;

__attribute__((noinline)) static void hook_boundary(void)
{
    uint32_t on = hp_bursty_boundary(&tls_state);
    if (on & HP_BURSTY_BIT(HP_BURSTY_METHODS)) tls_recorded++;
}

static double now(void);

/* Baselines: the cost of calling an empty hook, and of a hook that only bumps a TLS counter (the
 * same read-modify-write as the countdown, without the branch). */
static __thread uint64_t tls_counter;
__attribute__((noinline)) static void hook_empty(void) { __asm__ volatile(""); }
__attribute__((noinline)) static void hook_tls_inc(void) { tls_counter++; }

static double time_loop(void (*hook)(void), uint64_t events)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (uint64_t i = 0; i < events; i++) hook();
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best * 1e9 / (double)events;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double run_case(hp_bursty_config *cfg, uint64_t events)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        hp_bursty_init(&tls_state, cfg, 1);
        double t0 = now();
        for (uint64_t i = 0; i < events; i++) hook_boundary();
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best * 1e9 / (double)events;
}

/* The fast path inlined into a loop (no hook call); the empty asm keeps each event a separate
 * read-modify-write of the TLS countdown, as separate hook invocations would be. */
static double run_inline(hp_bursty_config *cfg, uint64_t events)
{
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        hp_bursty_init(&tls_state, cfg, 1);
        double t0 = now();
        for (uint64_t i = 0; i < events; i++) {
            if (hp_bursty_boundary(&tls_state) & HP_BURSTY_BIT(HP_BURSTY_METHODS)) tls_recorded++;
            __asm__ volatile("" ::: "memory");
        }
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best * 1e9 / (double)events;
}

static void one(const char *name, enum hp_bursty_type type, uint32_t S, uint32_t B, uint32_t poll, uint64_t events)
{
    hp_bursty_config cfg;
    hp_bursty_config_init(&cfg);
    hp_bursty_config_set_poll(&cfg, poll);
    if (B) {
        hp_bursty_params p = {.period = S, .burst = B, .jitter_pct = 0, .enabled = 1};
        hp_bursty_config_set(&cfg, type, &p);
    }
    double ns = run_case(&cfg, events);
    printf("%-13s %7.3f ns/event  (sampled %llu of %llu in the last round)", name, ns,
           (unsigned long long)tls_recorded, (unsigned long long)events);
    tls_recorded = 0;
    printf("   inlined: %6.3f ns/event\n", run_inline(&cfg, events));
    tls_recorded = 0;
}

int main(int argc, char **argv)
{
    uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000000ull;
    printf("%-13s %7.3f ns/event\n", "empty-hook", time_loop(hook_empty, events));
    printf("%-13s %7.3f ns/event\n", "tls-inc-hook", time_loop(hook_tls_inc, events));
    one("idle-nopoll", HP_BURSTY_METHODS, 0, 0, HP_BURSTY_MAX_COUNT, events);
    one("idle-poll", HP_BURSTY_METHODS, 0, 0, HP_BURSTY_DEFAULT_POLL, events);
    one("off-1/10000", HP_BURSTY_METHODS, 9999, 1, HP_BURSTY_DEFAULT_POLL, events);
    one("off-1/100", HP_BURSTY_METHODS, 99, 1, HP_BURSTY_DEFAULT_POLL, events);
    one("ds-1/100", HP_BURSTY_DATA_STREAMS, 9900, 100, HP_BURSTY_DEFAULT_POLL, events);
    return 0;
}

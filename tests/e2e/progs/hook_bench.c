/* hook_bench.c — microbenchmark of the runtime's hook fast paths (ns per event).
 *
 * Not instrumented itself: it calls the hooks directly, the way compiled code does, on a fixed
 * set of 16 function addresses / call sites and 64 registered guards (with a pc-table), so every
 * table lookup hits after warm-up. Build and run:
 *   cc -O2 -Iinclude tests/e2e/progs/hook_bench.c build/lib/libhotprof_rt.a -lpthread -ldl -lm -o hook_bench
 *   HOTPROF_OUTPUT=/tmp/hb.data ./hook_bench [millions]      (compare with HOTPROF_MODE=off)
 * Bursty mode, not sampling (the fast path: frame push/pop, back-edge rule, one decrement), and
 * sampling every type at 1/100:
 *   HOTPROF_MODE=bursty HOTPROF_SAMPLE='methods:period=1000000000;callpairs:period=1000000000;edges:period=1000000000' ./hook_bench
 *   HOTPROF_MODE=bursty HOTPROF_SAMPLE='methods:period=99;callpairs:period=99;edges:period=99' ./hook_bench
 * (About half of the blocks here are back-edges: guard ids step by 7 modulo 16.)
 * Prints the mode, then one line per hook: "<hook> <ns/event>", the best of batches of 20000 events.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_pcs_init(const uintptr_t *beg, const uintptr_t *end);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
void __sanitizer_cov_load8(uint64_t *addr);

#define NGUARDS 64
#define BATCH 20000L
static uint32_t guards[NGUARDS];
static uintptr_t pcs[2 * NGUARDS];
static char fake_code[4096];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = (argc > 1 ? atol(argv[1]) : 20) * 1000000L;
    for (int i = 0; i < NGUARDS; i++) {
        pcs[2 * i] = (uintptr_t)&fake_code[i * 16];
        pcs[2 * i + 1] = i % 8 == 0; /* every 8th block is a function entry */
    }
    __sanitizer_cov_trace_pc_guard_init(guards, guards + NGUARDS);
    __sanitizer_cov_pcs_init(pcs, pcs + 2 * NGUARDS);

    /* Best of many short batches: robust against other load on the machine. */
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    uint64_t word = 0;
    for (long done = 0; done < n; done += BATCH) {
        double t0 = now_ns();
        for (long i = 0; i < BATCH; i++) {
            void *fn = &fake_code[(i & 15) * 64], *site = &fake_code[2048 + (i & 15) * 8];
            __cyg_profile_func_enter(fn, site);
            __cyg_profile_func_exit(fn, site);
        }
        double t1 = now_ns();
        for (long i = 0; i < BATCH; i++) __sanitizer_cov_trace_pc_guard(&guards[(i * 7) & 15]);
        double t2 = now_ns();
        for (long i = 0; i < BATCH; i++) __sanitizer_cov_load8(&word);
        double t3 = now_ns();
        for (long i = 0; i < BATCH; i++) __asm__ volatile("" ::: "memory"); /* loop overhead */
        double t4 = now_ns();
        double d[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
        for (int k = 0; k < 4; k++)
            if (d[k] < best[k]) best[k] = d[k];
    }
    const char *mode = getenv("HOTPROF_MODE"), *sample = getenv("HOTPROF_SAMPLE");
    printf("mode %s%s%s\n", mode ? mode : "exhaustive", sample ? " " : "", sample ? sample : "");
    printf("func_enter+exit(pair) %.2f\nfunc_enter_or_exit %.2f\ntrace_pc_guard %.2f\nload8 %.2f\nempty_loop %.2f\n",
           best[0] / BATCH, best[0] / BATCH / 2, best[1] / BATCH, best[2] / BATCH, best[3] / BATCH);
    return 0;
}

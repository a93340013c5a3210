/* subpath_win.c — subpaths in patched windows (HP_OSP_RT_PATCH, docs/osp.md "Where the skipping
 * runs"): no hook runs between windows, so the skip costs nothing, and samples are placed in time.
 *
 * Thread side (hp_rt_osp_window_block, from patch_block in a window with HP_PB_BIT_SUBPATH): at
 * its first block of window w a thread draws a short geometric skip (mean HP_OSP_WINDOW_SKIP
 * blocks: the first block after the sites turn on follows a block that was running at a time
 * instant, which favours the blocks after slow ones) and a length L from the law, records the
 * next L blocks (one sample per thread per window) and counts every block it runs in the window.
 * Native time per block: one block hook in HP_OSP_GAP_EVERY (at random) stamps the TSC as its
 * last act and the next block hook reads it as its first (both fenced: lfence; rdtsc; lfence,
 * so the block's own instructions are between them): the gap is the program's own time for one
 * block plus a floor (returns, calls and the fenced reads), calibrated once by timing the same
 * sequence around no program code (hp_osp_gap_floor of CAL_N: their mean below 4x the median).
 * Gaps are pooled over the last windows (decay HP_OSP_POOL_DECAY: the inverse of one window's
 * mean would be biased by its noise).
 * Control side, when window w opens (hp_rt_osp_window_open: each thread's CPU clock) and closes
 * (hp_rt_osp_window_end, from ctl/bursts.c): for each thread that ran blocks in w, the blocks its
 * interval stood for = blocks in w + its CPU time from the close of the last window it ran in to
 * this one's opening / its native ns per block (CPU time, not wall time: a descheduled thread
 * runs no blocks; wall time where the CPU clock cannot be read); added to its estimated blocks
 * (subpath.blocks), and its complete sample is offered with that weight (the list applies 1/tau
 * and x tau): every sample stands for the blocks, not the time, of its interval, so a slow phase
 * is not over-weighted. Returns the interval subpaths want next: f blocks (hp_osp_f of the list's
 * tau) at the threads' mean native ns per block.
 * Limits: the gap measures a block with the hooks around it; code whose latency the out-of-order
 * core overlaps across blocks natively is measured slower than it runs (its blocks are then
 * under-estimated), and the floor is a calibration, not the real path (docs/osp.md gives the
 * measured accuracy). A window with fewer than HP_OSP_MIN_GAPS gaps or no TSC falls back to the
 * window's time x the program's share (bursts.c) / its blocks.
 * Invariants: the owner writes wepoch, wblocks, the sampler and then pdone (release); the control
 * thread reads them only after the window closed (a sample completed by a late in-flight hook is
 * lost: its thread restarts at its next window) and alone writes est_blocks, blocks, samples.
 * Async-signal-safety: memory only (the owner's `busy` keeps a signal handler's hooks out).
 */
#define _GNU_SOURCE
#include "runtime/pt/subpath.h"
#include "core/base/hash.h"
#include <string.h>
#include <time.h>

#define HP_OSP_WINDOW_SKIP 16.0 /* mean blocks skipped after a window opens, before a sample */
#define HP_OSP_GAP_EVERY 2u     /* one block hook in 2 (at random) stamps its end */
#define HP_OSP_POOL_DECAY 0.75 /* gaps pooled over windows (~4): 1/mean of one window's is biased */
#define HP_OSP_GAP_CAP (1ull << 17) /* TSC ticks (~50 us): a longer gap is dropped */
#define HP_OSP_MIN_GAPS 8u      /* fewer gaps in a window: the program share gives the rate */

static HP_NOINST void window_start(hp_thread_osp *o, uint32_t w)
{
    HP_STORE_RLX(&o->wblocks, 0);
    HP_STORE_RLX(&o->gap_tsc, 0);
    HP_STORE_RLX(&o->gaps, 0);
    if (!o->pick) o->pick = hp_mix64(o->tid) | 1;
    HP_STORE_RLX(&o->wepoch, w);
    hp_osp_sampler_next(&o->s, HP_OSP_WINDOW_SKIP, hp_rt_osp_law());
    if (hp_rt_osp_params()->skiponly) HP_STORE_REL(&o->pdone, w); /* count blocks, never sample */
}

HP_NOINST int hp_rt_osp_window_block(hp_thread *t, uint32_t id)
{
    hp_thread_osp *o = t->osp;
    uint64_t in = o && o->stamp ? hp_rt_osp_tsc() : 0; /* first: the end of the program's own time */
    if (HP_UNLIKELY(!o || o->tid != t->tid)) o = hp_rt_osp_state(t);
    if (!o || o->busy) return 0;
    o->busy = 1;
    __asm__ volatile("" ::: "memory");
    uint32_t w = HP_LOAD_RLX(&hp_g.pb.epoch);
    if (HP_UNLIKELY(o->wepoch != w)) {
        window_start(o, w);
    } else if (in > o->stamp && in - o->stamp < HP_OSP_GAP_CAP) { /* a longer one was preempted */
        HP_STORE_RLX(&o->gap_tsc, o->gap_tsc + (in - o->stamp));
        HP_STORE_RLX(&o->gaps, o->gaps + 1);
    }
    o->stamp = 0;
    HP_STORE_RLX(&o->wblocks, o->wblocks + 1);
    if (o->pdone != w && hp_osp_sampler_block(&o->s, id)) HP_STORE_REL(&o->pdone, w);
    o->pick ^= o->pick << 13, o->pick ^= o->pick >> 7, o->pick ^= o->pick << 17;
    __asm__ volatile("" ::: "memory");
    o->busy = 0;
    return o->pick % HP_OSP_GAP_EVERY == 0;
}

/* A thread's CPU time (ns; 0 if it cannot be read: the thread is gone), read by another thread
 * of the process through the thread's CPU clock (Linux: MAKE_THREAD_CPUCLOCK(tid, SCHED)). */
static HP_NOINST uint64_t thread_cpu_ns(uint64_t tid)
{
    struct timespec ts;
    clockid_t c = (clockid_t)((~(uint32_t)tid << 3) | 6u);
    if (clock_gettime(c, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

HP_NOINST void hp_rt_osp_window_open(uint32_t w)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        if (o) o->cpu_open = thread_cpu_ns(HP_LOAD_RLX(&o->tid));
    }
}

/* The program's own time of a thread since the last window it ran in closed: its CPU time from
 * then to this window's opening (descheduled time is not the program's), else off_ns (wall). */
static HP_NOINST double thread_off_ns(hp_thread_osp *o, double off_ns)
{
    uint64_t close = thread_cpu_ns(o->tid), last = o->cpu_close;
    double ns = o->cpu_open && o->cpu_open >= last ? (double)(o->cpu_open - last) : off_ns; /* last 0: since
                                                                                  * the thread began */
    o->cpu_close = close;
    return ns;
}

static double g_gap_floor; /* TSC ticks of a gap with no program time in it (calibrated) */

/* The floor: a gap measured the hooks' way (a stamp at the end of a depth-2 call, two returns,
 * three calls, rdtsc) around no program code at all; hp_osp_gap_floor of CAL_N, run once by the
 * control thread. It holds rdtsc's own latency and the calls, not the hook's loads. */
#define CAL_N 2048
#if defined(__GNUC__) && !defined(__clang__)
#define CAL_FN static __attribute__((noinline, noipa))
#else
#define CAL_FN static __attribute__((noinline))
#endif
CAL_FN uint64_t cal_in(uint64_t *stamp)
{
    uint64_t in = hp_rt_osp_tsc();
    __asm__ volatile("" ::: "memory");
    return in - *stamp;
}
static uint64_t g_cal_sink;
CAL_FN uint64_t cal_hook(uint64_t *stamp, int out)
{
    /* the loads and stores of the real path: mask, epoch, patch, the hook counters */
    g_cal_sink += HP_LOAD_ACQ(&hp_g.pb.mask) + HP_LOAD_RLX(&hp_g.pb.epoch) + (uint64_t)HP_LOAD_RLX(&hp_g.patch);
    HP_STORE_RLX(&g_cal_sink, HP_LOAD_RLX(&g_cal_sink) + 1);
    uint64_t g = cal_in(stamp);
    __asm__ volatile("" ::: "memory");
    if (out) *stamp = hp_rt_osp_tsc();
    return g;
}
CAL_FN uint64_t cal_block(uint64_t *stamp, int out)
{
    uint64_t g = cal_hook(stamp, out);
    __asm__ volatile("" ::: "memory");
    return g;
}
static HP_NOINST double calibrate_floor(void)
{
    static uint64_t g[CAL_N];
    uint64_t stamp = __rdtsc();
    cal_block(&stamp, 1);
    for (int i = 0; i < CAL_N; i++) g[i] = cal_block(&stamp, 1);
    return hp_osp_gap_floor(g, CAL_N);
}

/* A thread's native ns per block in its window: the mean gap (the floor taken out), or, with too
 * few gaps or no TSC, the window's time x the program's share / its blocks. */
static HP_NOINST double ns_per_block(hp_thread_osp *o, uint64_t wb, double native_ns, double tsc_per_ns)
{
    uint64_t gaps = HP_LOAD_RLX(&o->gaps), ticks = HP_LOAD_RLX(&o->gap_tsc);
    if (tsc_per_ns <= 0.0 || gaps < HP_OSP_MIN_GAPS) return native_ns / (double)wb;
    o->pool_tsc = HP_OSP_POOL_DECAY * o->pool_tsc + (double)ticks; /* the last few windows */
    o->pool_gaps = HP_OSP_POOL_DECAY * o->pool_gaps + (double)gaps;
    double ns = (o->pool_tsc / o->pool_gaps - g_gap_floor) / tsc_per_ns;
    return ns > 0.05 ? ns : 0.05;
}

/* One thread's part of window w: its estimated blocks and its sample; its native ns per block
 * (0 if it did not run in w). */
static HP_NOINST double thread_window_end(hp_thread_osp *o, uint32_t w, double off_ns, double native_ns,
                                          double tsc_per_ns, hp_rng *rng, double *tau)
{
    uint64_t wb = HP_LOAD_RLX(&o->wblocks);
    if (HP_LOAD_RLX(&o->wepoch) != w || !wb || native_ns <= 0.0) return 0.0;
    double per = ns_per_block(o, wb, native_ns, tsc_per_ns);
    off_ns = thread_off_ns(o, off_ns);
    double stood = (double)wb + off_ns / per;
    o->est_blocks += stood;
    HP_STORE_RLX(&o->blocks, (uint64_t)(o->est_blocks + 0.5));
    if (HP_LOAD_ACQ(&o->pdone) == w && !hp_rt_osp_params()->skiponly) {
        uint32_t ids[HP_OSP_MAXLEN], L = o->s.length;
        memcpy(ids, o->s.ids, L * sizeof *ids);
        HP_STORE_RLX(&o->samples, o->samples + 1);
        hp_rt_osp_offer(o, ids, L, stood, hp_osp_p_length(hp_rt_osp_law(), L), rng, tau);
    }
    return per;
}

HP_NOINST uint64_t hp_rt_osp_window_end(uint32_t w, uint64_t off_ns, uint64_t on_ns, double share, double tsc_per_ns)
{
    static hp_rng rng;
    static double tau = 1.0;
    static int seeded;
    if (!seeded) hp_rng_seed(&rng, hp_mix64(hp_g.seed ^ 0x7769e)), g_gap_floor = calibrate_floor(), seeded = 1;
    double native_ns = (double)on_ns * share, per_block = 0.0;
    int n = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        double ns = o ? thread_window_end(o, w, (double)off_ns, native_ns, tsc_per_ns, &rng, &tau) : 0.0;
        if (ns > 0.0) per_block += ns, n++;
    }
    if (!n) return 0;
    return (uint64_t)(hp_osp_f_rule(hp_rt_osp_params()->minf, tau, hp_rt_osp_params()->list, 0) * per_block / n);
}

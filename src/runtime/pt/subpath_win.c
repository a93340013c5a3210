/* subpath_win.c — subpaths in patched windows (HP_OSP_RT_PATCH, docs/osp.md "Where the skipping
 * runs"): no hook runs between windows, so the skip costs nothing, and samples are placed in time.
 *
 * Thread side (hp_rt_osp_window_block, from patch_block in a window with HP_PB_BIT_SUBPATH): at
 * its first block of window w a thread draws a short geometric skip (mean HP_OSP_WINDOW_SKIP
 * blocks: the first block after the sites turn on follows a block that was running at a time
 * instant, which favours the blocks after slow ones) and a length L from the law, records the
 * next L blocks (one sample per thread per window) and counts every block it runs in the window.
 * Control side (hp_rt_osp_window_end, called by ctl/bursts.c when window w closes): for each
 * thread that ran in w, its native block rate = blocks in w / (recording time x the program's
 * share of it: the hooks' own time taken out), the blocks its interval stood for =
 * rate x off time + blocks in w (the time from the last window's close to this one's, the
 * intervals tile the run), added to its estimated blocks; its complete sample is offered with
 * that weight (the list applies 1/tau and x tau), so a slow phase is not over-weighted: every
 * sample stands for the blocks, not the time, of its interval. Returns the interval subpaths
 * want next: f blocks (hp_osp_f of the list's tau) at the mean native time per block.
 * Invariants: the owner writes wepoch, wblocks, the sampler and then pdone (release); the control
 * thread reads them only after the window closed (a sample completed by a late in-flight hook is
 * lost: its thread restarts at its next window) and alone writes est_blocks, blocks, samples.
 * Async-signal-safety: memory only (the owner's `busy` keeps a signal handler's hooks out).
 */
#define _GNU_SOURCE
#include "runtime/pt/subpath.h"
#include "core/base/hash.h"
#include <string.h>

#define HP_OSP_WINDOW_SKIP 16.0 /* mean blocks skipped after a window opens, before a sample */

static HP_NOINST void window_start(hp_thread_osp *o, uint32_t w)
{
    HP_STORE_RLX(&o->wblocks, 0);
    HP_STORE_RLX(&o->wepoch, w);
    hp_osp_sampler_next(&o->s, HP_OSP_WINDOW_SKIP, hp_rt_osp_law());
    if (hp_rt_osp_params()->skiponly) HP_STORE_REL(&o->pdone, w); /* count blocks, never sample */
}

HP_NOINST void hp_rt_osp_window_block(hp_thread *t, uint32_t id)
{
    hp_thread_osp *o = t->osp;
    if (HP_UNLIKELY(!o || o->tid != t->tid)) o = hp_rt_osp_state(t);
    if (!o || o->busy) return;
    o->busy = 1;
    __asm__ volatile("" ::: "memory");
    uint32_t w = HP_LOAD_RLX(&hp_g.pb.epoch);
    if (HP_UNLIKELY(o->wepoch != w)) window_start(o, w);
    HP_STORE_RLX(&o->wblocks, o->wblocks + 1);
    if (o->pdone != w && hp_osp_sampler_block(&o->s, id)) HP_STORE_REL(&o->pdone, w);
    __asm__ volatile("" ::: "memory");
    o->busy = 0;
}

/* One thread's part of window w: its estimated blocks and its sample; its native ns per block
 * (0 if it did not run in w). */
static HP_NOINST double thread_window_end(hp_thread_osp *o, uint32_t w, double off_ns, double native_ns, hp_rng *rng,
                                          double *tau)
{
    uint64_t wb = HP_LOAD_RLX(&o->wblocks);
    if (HP_LOAD_RLX(&o->wepoch) != w || !wb || native_ns <= 0.0) return 0.0;
    double stood = (double)wb * (1.0 + off_ns / native_ns);
    o->est_blocks += stood;
    HP_STORE_RLX(&o->blocks, (uint64_t)(o->est_blocks + 0.5));
    if (HP_LOAD_ACQ(&o->pdone) == w && !hp_rt_osp_params()->skiponly) {
        uint32_t ids[HP_OSP_MAXLEN], L = o->s.length;
        memcpy(ids, o->s.ids, L * sizeof *ids);
        HP_STORE_RLX(&o->samples, o->samples + 1);
        hp_rt_osp_offer(o, ids, L, stood, hp_osp_p_length(hp_rt_osp_law(), L), rng, tau);
    }
    return native_ns / (double)wb;
}

HP_NOINST uint64_t hp_rt_osp_window_end(uint32_t w, uint64_t off_ns, uint64_t on_ns, double share)
{
    static hp_rng rng;
    static double tau = 1.0;
    static int seeded;
    if (!seeded) hp_rng_seed(&rng, hp_mix64(hp_g.seed ^ 0x7769e)), seeded = 1;
    double native_ns = (double)on_ns * share, per_block = 0.0;
    int n = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_thread_osp *o = HP_LOAD_ACQ(&t->osp);
        double ns = o ? thread_window_end(o, w, (double)off_ns, native_ns, &rng, &tau) : 0.0;
        if (ns > 0.0) per_block += ns, n++;
    }
    if (!n) return 0;
    return (uint64_t)(hp_osp_f(hp_rt_osp_params()->minf, tau) * per_block / n);
}

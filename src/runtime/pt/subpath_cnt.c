/* subpath_cnt.c — subpaths in count mode (pt/subpath.h HP_OSP_RT_COUNT; docs/osp.md "count"):
 * the thread's segment sampler (core/control/osp_count.h) fed by the count slow path of
 * hooks_dual.h (boundary events) and by the block hooks of instrumented copies while a subpath
 * burst is on; complete samples go to the process hot-list (hp_rt_osp_offer) with weight S.
 *
 * Invariants: o->cmode is HP_OSP_C_BURST exactly while hp_osp_count_on(o->cs) (the block hooks
 * record), else HP_OSP_C_PRE when one of the next o->cprearm events triggers (the thread
 * enters the instrumented copies that many events early), else HP_OSP_C_IDLE; S = hp_osp_f_rule(minf, tau of the
 * list at the thread's last offer, list, the thread's estimated blocks).
 * Owner thread only; `busy` keeps a signal handler's hooks out of an update in progress.
 */
#include "runtime/pt/subpath.h"
#include "core/control/osp_count.h"

static HP_NOINST void set_mode(hp_thread_osp *o)
{
    uint32_t m = hp_osp_count_on(o->cs) ? HP_OSP_C_BURST : o->cs->left <= o->cprearm ? HP_OSP_C_PRE : HP_OSP_C_IDLE;
    HP_STORE_RLX(&o->cmode, m);
}

HP_NOINST hp_thread_osp *hp_rt_osp_count_state(hp_thread *t)
{
    hp_thread_osp *o = hp_rt_osp_state(t);
    return o && o->cs ? o : NULL;
}

HP_NOINST int hp_rt_osp_count_event(hp_thread_osp *o, uint64_t elapsed)
{
    const hp_osp_params *p = hp_rt_osp_params();
    o->cprearm = hp_rt_osp_prearm(); /* (a module loaded later may bring return sites) */
    double S = hp_osp_f_rule(p->minf, o->ctau, p->list, o->cest);
    hp_osp_count_events(o->cs, elapsed, S);
    o->cevents += elapsed;
    if (o->cs->starting) o->cevents_est += o->cs->wstart;
    set_mode(o);
    return (int)o->cmode;
}

static HP_NOINST void offer(void *ctx, uint32_t *ids, uint32_t length, double weight, double p)
{
    hp_thread_osp *o = ctx;
    double tau;
    HP_BUMP(&o->samples);
    if (hp_rt_osp_offer(o, ids, length, weight, p, &o->cs->rng, &tau)) o->ctau = tau;
}

HP_NOINST void hp_rt_osp_count_block(hp_thread_osp *o, uint32_t id)
{
    hp_osp_count *c = o->cs;
    if (c->starting) {
        o->cest += c->wstart; /* each block of a triggered segment stands for S blocks */
        HP_STORE_RLX(&o->blocks, (uint64_t)(o->cest + 0.5));
    }
    /* skiponly: the triggers and their segments' blocks (so S grows as a full run's, with the
     * estimated blocks), but no subpath is started, recorded or offered */
    if (!hp_rt_osp_params()->skiponly) hp_osp_count_block(c, id, hp_rt_osp_law(), offer, o);
    set_mode(o);
}

HP_NOINST void hp_rt_osp_count_exit(hp_thread_osp *o)
{
    if (o->busy || !o->cs) return;
    o->cexited = 1;
    if (o->cmode != HP_OSP_C_BURST) return;
    hp_osp_count_cut(o->cs);
    set_mode(o);
}

HP_NOINST void hp_rt_osp_count_return(hp_thread_osp *o, uint64_t depth)
{
    if (o->busy || !o->cs) return;
    o->cbase = depth ? depth - 1 : 0; /* the caller's frame: its callees' exits return into it */
}

HP_NOINST uint64_t hp_rt_osp_count_cuts(const hp_thread_osp *o) { return o->cs ? o->cs->cuts : 0; }

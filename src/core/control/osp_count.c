/* osp_count.c — count-triggered segment sampling of subpaths (osp_count.h): trigger draws, the
 * ring of the burst's blocks and its pending subpaths. */
#include "core/control/osp_count.h"
#include <string.h>

/* Events to the next trigger: 1 + geometric of mean S - 1, so each event triggers w.p. 1/S. */
static uint64_t draw_gap(hp_rng *r, double S) { return 1 + hp_osp_draw_skip(r, S > 1 ? S - 1 : 0); }

void hp_osp_count_init(hp_osp_count *c, uint64_t seed, double S)
{
    memset(c, 0, offsetof(hp_osp_count, ring));
    hp_rng_seed(&c->rng, seed);
    c->left = draw_gap(&c->rng, S);
}

int hp_osp_count_events(hp_osp_count *c, uint64_t elapsed, double S)
{
    c->starting = 0;
    c->left = elapsed >= c->left ? 0 : c->left - elapsed;
    if (!c->left) {
        c->starting = 1;
        c->wstart = S > 1 ? S : 1;
        c->left = draw_gap(&c->rng, S);
    }
    return hp_osp_count_on(c);
}

static void emit(hp_osp_count *c, const hp_osp_pend *p, const hp_osp_lawp *law, hp_osp_count_fn done, void *ctx)
{
    for (uint32_t k = 0; k < p->length; k++) c->seq[k] = c->ring[(p->start + k) % HP_OSP_RING];
    done(ctx, c->seq, p->length, p->weight, hp_osp_p_length(law, p->length));
}

void hp_osp_count_block(hp_osp_count *c, uint32_t id, const hp_osp_lawp *law, hp_osp_count_fn done, void *ctx)
{
    uint64_t i = c->pos++;
    c->ring[i % HP_OSP_RING] = id;
    if (c->starting && c->npend < HP_OSP_MAXLEN) {
        hp_osp_pend *p = &c->pend[c->npend++];
        p->start = i;
        p->length = hp_osp_draw_length(law, &c->rng);
        p->weight = c->wstart;
        c->starts++;
    }
    uint32_t keep = 0;
    for (uint32_t k = 0; k < c->npend; k++) {
        hp_osp_pend p = c->pend[k];
        if (p.start + p.length - 1 == i) emit(c, &p, law, done, ctx);
        else c->pend[keep++] = p;
    }
    c->npend = keep;
}

uint32_t hp_osp_count_cut(hp_osp_count *c)
{
    uint32_t n = c->npend;
    c->cuts += n;
    c->npend = 0;
    c->starting = 0;
    return n;
}

/* osp.c — the OSP controller's arithmetic (osp.h): length laws, skips, f, cost acceptance, the
 * sampler's cycle, the exhaustive subpath counter and the floor of timed gaps (patched windows). */
#include "core/control/osp.h"
#include "core/ptype/subpath.h"
#include "core/base/hash.h"
#include <string.h>

void hp_osp_params_default(hp_osp_params *p)
{
    *p = (hp_osp_params){0, HP_OSP_DEFAULT_MEM, HP_OSP_LEN_POW2, HP_OSP_DEFAULT_MAXLEN, HP_SUBPATH_ENC_XOR,
                         HP_OSP_DEFAULT_MINF, HP_OSP_W_COUNT, 0, HP_OSP_LIST_COUNTING, 1};
}

/* ---------------------------------------------------------------- length laws */

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* The law's unnormalized weight of a length. */
static double law_weight(uint32_t law, uint32_t maxlen, uint32_t L)
{
    if (L < 2 || L > maxlen) return 0;
    switch (law) {
    case HP_OSP_LEN_ANY: return 1.0 / L;
    case HP_OSP_LEN_UNIFORM: return is_pow2(L) ? 1.0 : 0;
    case HP_OSP_LEN_POW2_3_5:
        if (L == 3) return 0.25;
        if (L == 5) return 0.125;
        return is_pow2(L) ? 1.0 / L : 0;
    default: return is_pow2(L) ? 1.0 / L : 0;
    }
}

void hp_osp_law_init(hp_osp_lawp *l, uint32_t law, uint32_t maxlen)
{
    if (maxlen < 2) maxlen = 2;
    if (maxlen > HP_OSP_MAXLEN) maxlen = HP_OSP_MAXLEN;
    l->law = law, l->maxlen = maxlen, l->z = 0, l->mean = 0;
    for (uint32_t L = 2; L <= maxlen; L++) {
        double w = law_weight(law, maxlen, L);
        l->z += w, l->mean += w * L;
    }
    l->mean /= l->z;
}

double hp_osp_p_length(const hp_osp_lawp *l, uint32_t length)
{
    return law_weight(l->law, l->maxlen, length) / l->z;
}

uint32_t hp_osp_prefix_next(const hp_osp_lawp *l, uint32_t L, uint32_t prev, double *tail)
{
    if (prev < 2) *tail = 1;
    else *tail -= law_weight(l->law, l->maxlen, prev) / l->z;
    for (uint32_t len = prev < 2 ? 2 : prev + 1; len <= L && len <= l->maxlen; len++)
        if (law_weight(l->law, l->maxlen, len) > 0) return len;
    return 0;
}

uint32_t hp_osp_draw_length(const hp_osp_lawp *l, hp_rng *r)
{
    double u = hp_rng_double(r) * l->z;
    uint32_t last = 2;
    for (uint32_t L = 2; L <= l->maxlen; L++) {
        double w = law_weight(l->law, l->maxlen, L);
        if (w <= 0) continue;
        last = L;
        if (u < w) return L;
        u -= w;
    }
    return last; /* rounding at the top of the CDF */
}

uint64_t hp_osp_draw_skip(hp_rng *r, double f)
{
    if (f <= 0) return 0;
    return hp_rng_geometric(r, 1.0 / (f + 1.0)); /* failures before a success: mean (1-p)/p = f */
}

double hp_osp_f_rule(uint32_t minf, double tau, uint32_t list, double blocks)
{
    if (list != HP_OSP_LIST_COUNTING) return hp_osp_f(minf, tau);
    double f = blocks / HP_OSP_SAMPLE_BUDGET;
    return f > minf ? f : minf;
}

double hp_osp_f(uint32_t minf, double tau)
{
    double f = (double)minf * (tau > 1 ? tau : 1);
    return f > minf ? f : minf;
}

double hp_osp_cost_accept(const uint32_t *cost, size_t n, uint32_t cap)
{
    if (!n || !cap) return 1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += cost[i] < 1 ? 1 : cost[i] > cap ? cap : cost[i];
    return sum / ((double)n * cap);
}

/* ---------------------------------------------------------------- sampler */

void hp_osp_sampler_init(hp_osp_sampler *s, uint64_t seed, double f, const hp_osp_lawp *l)
{
    hp_rng_seed(&s->rng, seed);
    hp_osp_sampler_next(s, f, l);
}

void hp_osp_sampler_next(hp_osp_sampler *s, double f, const hp_osp_lawp *l)
{
    s->f = f;
    s->skip = hp_osp_draw_skip(&s->rng, f);
    s->length = hp_osp_draw_length(l, &s->rng);
    s->pos = 0;
}

/* ---------------------------------------------------------------- exhaustive counter */

#define RING(i) ((i) % HP_OSP_RING)

void hp_osp_exact_init(hp_osp_exact *x, uint32_t maxlen, uint32_t enc)
{
    x->maxlen = maxlen < 2 ? 2 : maxlen > HP_OSP_MAXLEN ? HP_OSP_MAXLEN : maxlen;
    x->enc = enc;
    x->seen = 0;
}

void hp_osp_exact_seq(const hp_osp_exact *x, uint32_t length, uint32_t *out)
{
    uint64_t first = x->seen - length;
    for (uint32_t i = 0; i < length; i++) out[i] = x->ring[RING(first + i)];
    if (x->enc == HP_SUBPATH_ENC_EXACT) hp_subpath_canonical(out, length);
}

int hp_osp_exact_push(hp_osp_exact *x, uint32_t id, hp_osp_window out[HP_OSP_EXACT_MAX_WINDOWS])
{
    uint64_t i = x->seen++;
    uint64_t before = i ? x->pfx[RING(i - 1)] : 0;
    x->ring[RING(i)] = id;
    x->pfx[RING(i)] = before ^ hp_mix64(id);
    int n = 0;
    for (uint32_t L = 2; L <= x->maxlen && L <= x->seen; L *= 2) {
        uint64_t key;
        if (x->enc == HP_SUBPATH_ENC_EXACT) {
            uint32_t seq[HP_OSP_MAXLEN];
            hp_osp_exact_seq(x, L, seq);
            key = hp_subpath_key_exact_canonical(seq, L);
        } else { /* xor of the last L mixed ids: prefix(i) ^ prefix(i - L) */
            uint64_t k = x->pfx[RING(i)] ^ (x->seen > L ? x->pfx[RING(i - L)] : 0);
            k ^= (uint64_t)L << 40;
            key = k ? k : 1;
        }
        out[n++] = (hp_osp_window){key, L, 0};
    }
    return n;
}

double hp_osp_gap_floor(uint64_t *g, size_t n)
{
    if (!n) return 0.0;
    for (size_t i = 1; i < n; i++) /* insertion sort: run once, on a few thousand entries */
        for (size_t j = i; j > 0 && g[j - 1] > g[j]; j--) { uint64_t v = g[j]; g[j] = g[j - 1]; g[j - 1] = v; }
    uint64_t cut = 4 * g[n / 2];
    double sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < n && g[i] < cut; i++) sum += (double)g[i], k++;
    return k ? sum / (double)k : (double)g[n / 2];
}

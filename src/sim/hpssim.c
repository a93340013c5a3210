/* hpssim.c — offline HPS replay of a calls trace (hpssim.h). */
#include "sim/hpssim.h"
#include "core/control/bursty.h"
#include "core/metrics/hps.h"
#include <stdlib.h>
#include <string.h>

/* (a, b) -> dense id, open addressing. */
typedef struct id_map { uint64_t *a, *b; uint32_t *id; size_t mask, n; } id_map;

static uint64_t mix2(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ b;
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
    return x;
}

static int idmap_grow(id_map *m)
{
    size_t cap = m->mask ? (m->mask + 1) * 2 : 1024;
    id_map n = {calloc(cap, 8), calloc(cap, 8), malloc(cap * 4), cap - 1, m->n};
    if (!n.a || !n.b || !n.id) { free(n.a), free(n.b), free(n.id); return -1; }
    memset(n.id, 0xff, cap * 4);
    for (size_t i = 0; m->mask && i <= m->mask; i++) {
        if (m->id[i] == UINT32_MAX) continue;
        size_t j = mix2(m->a[i], m->b[i]) & n.mask;
        while (n.id[j] != UINT32_MAX) j = (j + 1) & n.mask;
        n.a[j] = m->a[i], n.b[j] = m->b[i], n.id[j] = m->id[i];
    }
    free(m->a), free(m->b), free(m->id);
    *m = n;
    return 0;
}

/* The id of (a, b), a new one if unseen; UINT32_MAX on allocation failure. */
static uint32_t idmap_get(id_map *m, uint64_t a, uint64_t b)
{
    if ((m->n + 1) * 2 > m->mask + 1 && idmap_grow(m)) return UINT32_MAX;
    size_t j = mix2(a, b) & m->mask;
    while (m->id[j] != UINT32_MAX) {
        if (m->a[j] == a && m->b[j] == b) return m->id[j];
        j = (j + 1) & m->mask;
    }
    m->a[j] = a, m->b[j] = b, m->id[j] = (uint32_t)m->n++;
    return m->id[j];
}

static void idmap_free(id_map *m) { free(m->a), free(m->b), free(m->id); }

static int add_count(uint64_t **counts, size_t *cap, uint32_t id)
{
    if (id >= *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        while (ncap <= id) ncap *= 2;
        uint64_t *p = realloc(*counts, ncap * sizeof *p);
        if (!p) return -1;
        memset(p + *cap, 0, (ncap - *cap) * sizeof *p);
        *counts = p, *cap = ncap;
    }
    (*counts)[id]++;
    return 0;
}

int hp_hpssim_prepare(const hp_trace *tr, hp_hpssim_input *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    if (tr->kind != HP_TRACE_CALLS) {
        snprintf(err, errlen, "'sim hps' needs a calls trace (hotprof run --trace-kind calls); this one holds %s", hp_trace_kind_name(tr->kind));
        return -1;
    }
    id_map methods = {0}, pairs = {0};
    size_t mcap = 0, pcap = 0;
    in->nthreads = tr->nthreads;
    in->ev = calloc(tr->nthreads + 1, sizeof *in->ev);
    in->nev = calloc(tr->nthreads + 1, sizeof *in->nev);
    if (!in->ev || !in->nev) goto oom;
    for (size_t t = 0; t < tr->nthreads; t++) {
        const hp_trace_thread *th = &tr->threads[t];
        if (!(in->ev[t] = malloc((th->n + 1) * sizeof **in->ev))) goto oom;
        for (size_t i = 0; i < th->n; i++) {
            uint64_t fn = th->t[i].a, site = th->t[i].b;
            uint32_t m = idmap_get(&methods, fn, 0), p = site ? idmap_get(&pairs, fn, site) : UINT32_MAX;
            if (m == UINT32_MAX || (site && p == UINT32_MAX)) goto oom;
            if (add_count(&in->exact_methods, &mcap, m) || (site && add_count(&in->exact_pairs, &pcap, p))) goto oom;
            in->ev[t][i].method = m, in->ev[t][i].pair = p;
        }
        in->nev[t] = th->n;
    }
    in->nmethods = methods.n, in->npairs = pairs.n;
    idmap_free(&methods), idmap_free(&pairs);
    return 0;
oom:
    idmap_free(&methods), idmap_free(&pairs);
    hp_hpssim_input_free(in);
    snprintf(err, errlen, "out of memory");
    return -1;
}

void hp_hpssim_input_free(hp_hpssim_input *in)
{
    for (size_t t = 0; in->ev && t < in->nthreads; t++) free(in->ev[t]);
    free(in->ev), free(in->nev), free(in->exact_methods), free(in->exact_pairs);
    memset(in, 0, sizeof *in);
}

static hp_metric_item *items_of(const uint64_t *counts, size_t n)
{
    hp_metric_item *it = malloc((n + 1) * sizeof *it);
    for (size_t i = 0; it && i < n; i++) it[i].key = i, it[i].weight = counts ? (double)counts[i] : 0;
    return it;
}

static void overlaps(const uint64_t *exact, const uint64_t *sampled, size_t n, double *paper, double *renorm, int *fail)
{
    hp_metric_item *a = items_of(exact, n), *b = items_of(sampled, n), *s = malloc((2 * n + 1) * sizeof *s);
    if (!a || !b || !s) *fail = 1;
    else {
        *paper = hp_overlap(b, n, a, n, HP_OVERLAP_PAPER_COVERAGE, HP_OVERLAP_PAPER, s);
        *renorm = hp_overlap(b, n, a, n, HP_OVERLAP_PAPER_COVERAGE, HP_OVERLAP_RENORMALIZED, s);
    }
    free(a), free(b), free(s);
}

static void replay_thread(const hp_hpssim_event *ev, size_t n, hp_bursty_config *cfg, uint64_t seed, uint64_t *m,
                          uint64_t *p, uint64_t *events, uint64_t *sampled)
{
    hp_bursty_state st;
    hp_bursty_init(&st, cfg, seed);
    for (size_t i = 0; i < n; i++) {
        int call = ev[i].pair != UINT32_MAX;
        uint32_t on = hp_bursty_event(&st, call ? HP_BURSTY_CALL : HP_BURSTY_BACKEDGE);
        if (on & HP_BURSTY_BIT(HP_BURSTY_METHODS)) m[ev[i].method]++, (*sampled)++;
        if (call && (on & HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS))) p[ev[i].pair]++;
    }
    *events += n;
}

int hp_hpssim_replay(const hp_hpssim_input *in, uint32_t period, uint32_t burst, uint32_t jitter, uint64_t seed,
                     hp_hpssim_result *r)
{
    memset(r, 0, sizeof *r);
    r->period = period, r->burst = burst, r->jitter = jitter;
    hp_bursty_params bp = {period, burst, jitter, 1};
    if (hp_bursty_params_check(&bp)) return -1;
    hp_bursty_config cfg;
    hp_bursty_config_init(&cfg);
    if (hp_bursty_config_set(&cfg, HP_BURSTY_METHODS, &bp) || hp_bursty_config_set(&cfg, HP_BURSTY_CALL_PAIRS, &bp)) return -1;
    uint64_t *m = calloc(in->nmethods + 1, sizeof *m), *p = calloc(in->npairs + 1, sizeof *p), events = 0;
    int fail = !m || !p;
    for (size_t t = 0; !fail && t < in->nthreads; t++)
        replay_thread(in->ev[t], in->nev[t], &cfg, seed + t, m, p, &events, &r->sampled);
    if (!fail) {
        overlaps(in->exact_methods, m, in->nmethods, &r->methods, &r->methods_renorm, &fail);
        overlaps(in->exact_pairs, p, in->npairs, &r->pairs, &r->pairs_renorm, &fail);
    }
    r->frequency = events ? (double)r->sampled / (double)events : 0;
    free(m), free(p);
    return fail ? -1 : 0;
}

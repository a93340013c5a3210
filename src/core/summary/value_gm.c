/* value_gm.c — the fixed-size Gibbons–Matias value hot-list (value_gm.h). */
#include "core/summary/value_gm.h"

#define VGM_F ((double)HP_VGM_N / (double)(HP_VGM_N - 1))

static uint64_t vgm_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double vgm_unit(uint64_t *s) { return (double)(vgm_next(s) >> 11) * (1.0 / 9007199254740992.0); }

/* binomial(count, p): one Bernoulli trial per unit up to 32; above, count * p rounded up or down
 * at random (same mean, less variance: bounds the time a signal handler spends thinning). */
static uint64_t vgm_thin(uint64_t count, double p, uint64_t *s)
{
    if (count > 32) return (uint64_t)((double)count * p + vgm_unit(s));
    uint64_t kept = 0;
    for (uint64_t i = 0; i < count; i++) kept += vgm_unit(s) < p;
    return kept;
}

void hp_vgm_init(hp_vgm *g, uint64_t seed)
{
    g->captures = 0;
    g->tau = 1.0;
    g->rng = seed;
    g->n = 0;
    g->pad = 0;
}

/* Raise tau by f and thin until an entry is free. */
static void vgm_make_room(hp_vgm *g)
{
    while (g->n >= HP_VGM_N) {
        g->tau *= VGM_F;
        uint32_t w = 0;
        for (uint32_t i = 0; i < g->n; i++) {
            uint64_t c = vgm_thin(g->e[i].count, 1.0 / VGM_F, &g->rng);
            if (c) g->e[w++] = (hp_vgm_entry){g->e[i].value, c};
        }
        g->n = w;
    }
}

void hp_vgm_add(hp_vgm *g, uint64_t value)
{
    g->captures++;
    if (g->tau > 1.0 && vgm_unit(&g->rng) * g->tau >= 1.0) return;
    for (uint32_t i = 0; i < g->n; i++)
        if (g->e[i].value == value) {
            g->e[i].count++;
            return;
        }
    if (g->n >= HP_VGM_N) {
        vgm_make_room(g);
        /* the new occurrence was kept at the old tau: keep it at the new one with probability 1/f */
        if (vgm_unit(&g->rng) * VGM_F >= 1.0) return;
    }
    g->e[g->n++] = (hp_vgm_entry){value, 1};
}

uint32_t hp_vgm_sorted(const hp_vgm *g, hp_vgm_entry *out)
{
    uint32_t n = g->n;
    for (uint32_t i = 0; i < n; i++) out[i] = g->e[i];
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: at most 16 entries */
        hp_vgm_entry x = out[i];
        uint32_t j = i;
        while (j > 0 && (out[j - 1].count < x.count || (out[j - 1].count == x.count && out[j - 1].value > x.value))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return n;
}

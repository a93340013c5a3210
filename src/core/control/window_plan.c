/* window_plan.c — see window_plan.h. */
#include "core/control/window_plan.h"
#include <string.h>

static double type_frequency(const hp_bursty_params *p)
{
    return hp_bursty_frequency(p->burst ? p->burst : 1u, p->period);
}

/* The enabled type among `types` with the highest frequency, or -1. */
static int schedule_type(const hp_bursty_params p[HP_BURSTY_NTYPES], uint32_t types)
{
    int best = -1;
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        if (!(types >> t & 1u) || !p[t].enabled) continue;
        if (best < 0 || type_frequency(&p[t]) > type_frequency(&p[best])) best = t;
    }
    return best;
}

int hp_window_plan_make(const hp_bursty_params p[HP_BURSTY_NTYPES], uint32_t types, uint32_t min_window,
                        hp_window_plan *out)
{
    memset(out, 0, sizeof *out);
    int s = schedule_type(p, types);
    if (s < 0) return -1;
    uint32_t b = p[s].burst ? p[s].burst : 1u;
    out->type = (uint32_t)s;
    out->burst = b;
    out->period = p[s].period;
    out->jitter_pct = p[s].jitter_pct;
    out->window = b > min_window ? b : (min_window ? min_window : 1u);
    out->off_units = (uint64_t)((double)out->window * (double)p[s].period / (double)b + 0.5);
    double best = type_frequency(&p[s]);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        if (!(types >> t & 1u) || !p[t].enabled) continue;
        double k = best / type_frequency(&p[t]);
        out->every[t] = k < 1.5 ? 1u : k > HP_WINDOW_PLAN_MAX_EVERY ? HP_WINDOW_PLAN_MAX_EVERY : (uint32_t)(k + 0.5);
    }
    return 0;
}

uint32_t hp_window_plan_mask(const hp_window_plan *plan, uint64_t w)
{
    uint32_t mask = 0;
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        if (plan->every[t] && w % plan->every[t] == 0) mask |= HP_BURSTY_BIT(t);
    return mask;
}

/* sample_spec.c — see sample_spec.h. The grammar itself is core/control/spec.c; this file only
 * applies the clauses in order and formats the canonical spec. */
#include "cli/sample_spec.h"
#include "core/control/osp.h"
#include "core/control/spec.h"
#include <stdio.h>
#include <string.h>

static int parse_clauses(const hp_command_desc *desc, const hp_opt_list *samples, int exhaustive,
                         hp_bursty_params p[HP_BURSTY_NTYPES], hp_osp_params *osp)
{
    char err[256];
    hp_sample_defaults(p);
    hp_osp_params_default(osp);
    for (int t = 0; !samples->n && t < HP_BURSTY_NTYPES; t++) p[t].enabled = (HP_SAMPLE_DEFAULT_TYPES >> t) & 1u;
    for (int i = 0; i < samples->n; i++) {
        const char *clause = samples->items[i];
        int was = osp->enabled;
        osp->enabled = 0;
        if (hp_sample_clause_parse_osp(clause, strlen(clause), p, osp, err, sizeof err))
            return hp_usage_error(desc, "option '--sample %s': %s", clause, err);
        if (exhaustive && !osp->enabled)
            return hp_usage_error(desc, "option '--sample %s' needs --mode bursty (--mode exhaustive counts only subpath)",
                                  clause);
        osp->enabled |= (uint32_t)was;
    }
    return 0;
}

static void format_spec(char *out, size_t cap, const hp_bursty_params p[HP_BURSTY_NTYPES], const hp_osp_params *osp,
                        int exhaustive)
{
    size_t len = 0;
    out[0] = 0;
    for (int t = 0; !exhaustive && t < HP_BURSTY_NTYPES && len + 1 < cap; t++) {
        if (!p[t].enabled) continue;
        int n = snprintf(out + len, cap - len, "%s%s:", len ? ";" : "", hp_sample_type_name(t));
        if (n < 0 || (size_t)n >= cap - len) break;
        len += (size_t)n;
        len += hp_sample_params_format(out + len, cap - len, &p[t]);
    }
    if (!osp->enabled || len + 1 >= cap) return;
    int n = snprintf(out + len, cap - len, "%ssubpath:", len ? ";" : "");
    if (n < 0 || (size_t)n >= cap - len) return;
    len += (size_t)n;
    hp_osp_params_format(out + len, cap - len, osp);
}

int hp_cli_sample_spec(const hp_command_desc *desc, const hp_opt_list *samples, int exhaustive, char *out, size_t cap)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    hp_osp_params osp;
    if (parse_clauses(desc, samples, exhaustive, p, &osp)) return HP_PARSE_ERROR;
    format_spec(out, cap, p, &osp, exhaustive);
    return 0;
}

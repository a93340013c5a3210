/* pathval.c — the path and value profiles' settings (pathval.h) and their group INFO lines
 * (info_keys.h pathval.*, path.*, values.*). The settings are file-static: written once by init
 * before anything records, read-only after.
 */
#include "runtime/pt/pathval.h"
#include "core/format/info_keys.h"

static hp_pv_params g_pv;

HP_NOINST uint32_t hp_rt_pathval_start(const hp_pv_params *p)
{
    g_pv = *p;
    return (p->path ? HP_PV_RT_PATH : 0u) | (p->values ? HP_PV_RT_VALUES : 0u);
}

HP_NOINST const hp_pv_params *hp_rt_pathval_params(void) { return &g_pv; }

/* The group INFO of both profiles (called through the path type's hp_pt.group_info). */
HP_NOINST size_t hp_rt_pathval_info(char *out, size_t cap)
{
    uint32_t bits = HP_LOAD_ACQ(&hp_g.pathval);
    char spec[160];
    size_t n = 0;
    if (!bits || !cap) return 0;
    out[0] = 0;
    hp_pv_format(spec, sizeof spec, &g_pv);
    n = hp_info_str(out, n, cap, HP_INFO_PATHVAL_SPEC, NULL, spec);
    if (bits & HP_PV_RT_PATH) {
        uint64_t paths, unkept, dropped;
        hp_rt_path_totals(&paths, &unkept, &dropped);
        n = hp_info_u64(out, n, cap, HP_INFO_PATH_MAXLEN, NULL, g_pv.maxlen);
        n = hp_info_u64(out, n, cap, HP_INFO_PATH_PATHS, NULL, paths);
        n = hp_info_u64(out, n, cap, HP_INFO_PATH_UNKEPT, NULL, unkept);
        n = hp_info_u64(out, n, cap, HP_INFO_PATH_DROPPED, NULL, dropped);
    }
    if (bits & HP_PV_RT_VALUES) {
        uint64_t sites, dropped;
        hp_rt_vals_totals(&sites, &dropped);
        n = hp_info_str(out, n, cap, HP_INFO_VALUES_SUMMARY, NULL, hp_pv_summary_name(g_pv.values));
        n = hp_info_u64(out, n, cap, HP_INFO_VALUES_SITES, NULL, sites);
        n = hp_info_u64(out, n, cap, HP_INFO_VALUES_DROPPED, NULL, dropped);
    }
    return n;
}

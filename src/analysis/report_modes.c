/* report_modes.c — the parts of the report header that depend on how counts were sampled:
 * bursty (HPS) profiles list each HPS type's parameters and observed frequency (counts are then
 * estimates, rtable.h); patched-burst profiles (INFO mode=xray: XRay sleds; mode=patch: hook call
 * sites rewritten per window; runtime bursts) say their counts are RAW sampled counts and list the
 * exposure recorded under INFO "<mode>.*" (text: "sampling xray" / "sampling patch"; JSON: an
 * "xray" or a "patch" object). p->bursty is 0 for patched profiles, so nothing is estimated.
 * Exhaustive profiles print nothing here. Every INFO key is spelled through info_keys.h.
 */
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include "core/control/spec.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Bursty: one line per profile type with its parameters and the frequency observed. */
void hp_report_sampling_text(FILE *out, const hp_profile *p)
{
    if (!p->bursty) return;
    int any = 0;
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) any |= p->sample[t].enabled;
    if (!any) { /* e.g. subpaths alone: their own line follows (aptype sampling_text) */
        fprintf(out, "  sampling bursty (HPS): no HPS type on\n");
        return;
    }
    fprintf(out, "  sampling bursty (HPS); est. = sampled count / observed frequency (~: an estimate)\n");
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        const hp_sample_stat *st = &p->sample[t];
        fprintf(out, "    %-10s %-3s", hp_sample_type_name(t), st->enabled ? "on" : "off");
        if (st->known) fprintf(out, " S=%u B=%u jitter=%u%%", st->period, st->burst, st->jitter);
        fprintf(out, "  sampled %" PRIu64 "/%" PRIu64 " = %.6f", st->sampled, st->events, hp_profile_sample_frequency(p, t));
        if (st->known) fprintf(out, " (B/(B+S) %.6f)", hp_bursty_frequency(st->burst, st->period));
        fputc('\n', out);
    }
}

/* Patched bursts (runtime/ctl/bursts.c): INFO mode=xray (XRay sleds, runtime/ctl/xray.c) or mode=patch
 * (the compiler's hook call sites rewritten to nops between windows, runtime/ctl/sites.c). Windows
 * are driven by time and the events made while the hooks were off are not counted, so no
 * frequency can be observed: the counts are raw sampled counts, not estimates, and the header
 * says so with the exposure the runtime recorded under INFO "<mode>.*". */
typedef struct patched_mode {
    const char *mode;   /* INFO mode, also the JSON member's name */
    const char *prefix; /* of its INFO keys: "<prefix>.<stat>" */
    const char *how;  /* what is patched, for the text header */
    const char *unit; /* what a window's units are */
} patched_mode;

static const patched_mode *patched_mode_of(const hp_profile *p)
{
    static const patched_mode modes[] = {
        {HP_MODE_XRAY, HP_INFO_PB_XRAY, "XRay sleds patched per window", "entries"},
        {HP_MODE_PATCH, HP_INFO_PB_PATCH, "call sites rewritten per window", "units"},
    };
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    for (size_t i = 0; mode && i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(mode, modes[i].mode)) return &modes[i];
    return NULL;
}

static int xray_mode(const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    return m && !strcmp(m->mode, HP_MODE_XRAY);
}

/* INFO "<m->mode>.<key>": its value, or "?" if absent. */
static const char *pb_str(const hp_profile *p, const patched_mode *m, const char *key)
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", m->prefix, key);
    const char *v = hp_profile_info(p, full);
    return v && v[0] ? v : "?";
}

/* INFO "<m->mode>.<key>" as a number, 0 if absent. */
static double pb_num(const hp_profile *p, const patched_mode *m, const char *key)
{
    const char *v = pb_str(p, m, key);
    return strcmp(v, "?") ? strtod(v, NULL) : 0.0;
}

void hp_report_patched_text(FILE *out, const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    if (!m) return;
    int xray = xray_mode(p);
    fprintf(out, "  sampling %s (%s): counts are RAW SAMPLED counts, not estimates\n", m->mode, m->how);
    fprintf(out, "    %sS=%s B=%s window=%s  bursts %s  sampled %s %s  patched %.1f of %.1f ms",
            xray ? "methods " : "", pb_str(p, m, HP_INFO_PB_PERIOD), pb_str(p, m, HP_INFO_PB_BURST), pb_str(p, m, HP_INFO_PB_WINDOW),
            pb_str(p, m, HP_INFO_PB_BURSTS), pb_str(p, m, HP_INFO_PB_SAMPLED_ENTRIES), m->unit, pb_num(p, m, HP_INFO_PB_PATCHED_NS) / 1e6,
            pb_num(p, m, HP_INFO_PB_TOTAL_NS) / 1e6);
    if (xray) fprintf(out, "  functions %s\n", pb_str(p, m, HP_INFO_PB_FUNCTIONS));
    else fprintf(out, "  sites %s\n", pb_str(p, m, HP_INFO_PB_SITES));
}

/* Bursty: "sampling": {"methods": {...}, ...} after the header. */
void hp_report_sampling_json(FILE *out, const hp_profile *p)
{
    if (!p->bursty) return;
    fputs("  \"sampling\": {", out);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        const hp_sample_stat *st = &p->sample[t];
        fprintf(out, "%s\n    \"%s\": {\"enabled\": %s, ", t ? "," : "", hp_sample_type_name(t),
                st->enabled ? "true" : "false");
        if (st->known)
            fprintf(out, "\"period\": %u, \"burst\": %u, \"jitter\": %u, \"configured_frequency\": %.9g, ",
                    st->period, st->burst, st->jitter, hp_bursty_frequency(st->burst, st->period));
        fprintf(out, "\"events\": %" PRIu64 ", \"sampled\": %" PRIu64 ", \"observed_frequency\": %.9g}",
                st->events, st->sampled, hp_profile_sample_frequency(p, t));
    }
    fprintf(out, "\n  },\n  \"confidence\": %.2f,\n", HP_RT_CONFIDENCE);
}

/* Patched bursts: "xray": {...} (mode=xray) or "patch": {...} (mode=patch, with the window and
 * the call-site counters) after the header; the counts of such a profile are raw. */
void hp_report_patched_json(FILE *out, const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    if (!m) return;
    fprintf(out, "  \"%s\": {\"raw_sampled_counts\": true, \"period\": %.0f, \"burst\": %.0f, ", m->mode,
            pb_num(p, m, HP_INFO_PB_PERIOD), pb_num(p, m, HP_INFO_PB_BURST));
    if (!xray_mode(p)) fprintf(out, "\"window\": %.0f, ", pb_num(p, m, HP_INFO_PB_WINDOW));
    fprintf(out, "\"bursts\": %.0f, \"sampled_entries\": %.0f, \"patched_ns\": %.0f, \"total_ns\": %.0f",
            pb_num(p, m, HP_INFO_PB_BURSTS), pb_num(p, m, HP_INFO_PB_SAMPLED_ENTRIES), pb_num(p, m, HP_INFO_PB_PATCHED_NS),
            pb_num(p, m, HP_INFO_PB_TOTAL_NS));
    if (!xray_mode(p))
        fprintf(out, ", \"timeouts\": %.0f, \"sites\": %.0f", pb_num(p, m, HP_INFO_PB_TIMEOUTS), pb_num(p, m, HP_INFO_PB_SITES));
    fputs("},\n", out);
}


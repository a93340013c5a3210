/* report_modes.c — the parts of the report header that depend on how counts were sampled:
 * bursty (HPS) profiles list each HPS type's parameters and observed frequency (counts are then
 * estimates, rtable.h); patched-burst profiles (INFO mode=xray: XRay sleds; mode=patch: hook call
 * sites rewritten per window; runtime bursts) say their counts are RAW sampled counts and list the
 * exposure recorded under INFO "<mode>.*" (text: "sampling xray" / "sampling patch"; JSON: an
 * "xray" or a "patch" object). p->bursty is 0 for patched profiles, so nothing is estimated.
 * Timer profiles (INFO mode=timer: timer interrupts, LD_PRELOAD, docs/timer.md) list the timer's
 * settings and counters, the value sampling's (values=L/K, engine, interpretations, instructions,
 * stop reasons) and the overhead the run caused: (timer.handler_ns + values.ns) / timer.cpu_ns
 * (text: "sampling timer" lines; JSON: a "timer" object). These lines are printed from
 * hp_report_patched_text/json, which report.c calls for every profile. Shadow profiles (INFO
 * shadow.*, docs/shadow.md) get a "shadow" line: shadows started/finished/killed, events, the
 * coverage estimate, the system-call shares and why shadows ended (JSON: a "shadow" object).
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
    /* --bursts count (docs/dual.md): the same controller, triggered by trampolines' counts */
    int by_count = hp_profile_info(p, HP_INFO_DUAL_COUNT "." HP_INFO_DUAL_COUNT_TRAMPOLINES) != NULL;
    fprintf(out, "  sampling bursty (HPS%s); est. = sampled count / observed frequency (~: an estimate)\n",
            by_count ? ", count-triggered" : "");
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

/* ---- timer mode ---- */

static int timer_mode(const hp_profile *p)
{
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    return mode && !strcmp(mode, HP_MODE_TIMER);
}

static const char *info_str(const hp_profile *p, const char *key)
{
    const char *v = hp_profile_info(p, key);
    return v && v[0] ? v : "?";
}

static double info_num(const hp_profile *p, const char *key)
{
    const char *v = hp_profile_info(p, key);
    return v ? strtod(v, NULL) : 0.0;
}

/* Percent of the run's CPU time spent in hotprof's handlers; < 0 when unknown. */
double hp_report_timer_overhead(const hp_profile *p)
{
    double cpu = info_num(p, HP_INFO_TIMER_CPU_NS);
    if (!(cpu > 0) || !hp_profile_info(p, HP_INFO_TIMER_HANDLER_NS)) return -1;
    return 100.0 * (info_num(p, HP_INFO_TIMER_HANDLER_NS) + info_num(p, HP_INFO_VALUES_NS)) / cpu;
}

/* The stop reasons "syscall=3 fault=1" (every values.stop.<reason> key, in INFO order) into buf. */
static const char *stop_reasons(const hp_profile *p, char *buf, size_t len, int json)
{
    size_t n = strlen(HP_INFO_VALUES_STOP), used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < p->ninfo && used < len; i++) {
        const char *k = p->info[i].key;
        if (strncmp(k, HP_INFO_VALUES_STOP, n) || k[n] != '.' || !k[n + 1]) continue;
        const char *fmt = json ? "%s\"%s\": %.0f" : "%s%s=%.0f";
        int w = snprintf(buf + used, len - used, fmt, used ? (json ? ", " : " ") : "", k + n + 1,
                         strtod(p->info[i].value, NULL));
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static void timer_text(FILE *out, const hp_profile *p)
{
    char stops[512];
    double ov = hp_report_timer_overhead(p);
    const char *fallback = hp_profile_info(p, HP_INFO_TIMER_CLOCK_FALLBACK);
    fprintf(out, "  sampling timer: %s Hz per thread (CPU time), clock %s, signal %s (moved %s times), unwinder %s, depth %s\n",
            info_str(p, HP_INFO_TIMER_FREQ), info_str(p, HP_INFO_TIMER_CLOCK), info_str(p, HP_INFO_TIMER_SIGNAL),
            info_str(p, HP_INFO_TIMER_MOVES), info_str(p, HP_INFO_TIMER_UNWINDER), info_str(p, HP_INFO_TIMER_DEPTH));
    if (fallback) fprintf(out, "    clock auto took posix (at most the kernel tick per CPU second): perf_event_open: %s\n", fallback);
    fprintf(out, "    interrupts %s, dropped %s, sampled threads %zu", info_str(p, HP_INFO_TIMER_SAMPLES),
            info_str(p, HP_INFO_TIMER_DROPPED), p->nstack_sections);
    if (ov >= 0) fprintf(out, ", overhead %.2f%% of the run's CPU time (handlers + interpretation)\n", ov);
    else fputs(", overhead unknown (no timer.handler_ns / timer.cpu_ns)\n", out);
    if (!hp_profile_info(p, HP_INFO_VALUES)) return;
    fprintf(out, "    values %s (L instructions every K-th interrupt), engine %s, debias %s: %s interpretations, "
            "%s instructions, %.3f ms\n", info_str(p, HP_INFO_VALUES), info_str(p, HP_INFO_VALUES_ENGINE),
            info_str(p, HP_INFO_VALUES_SKIP), info_str(p, HP_INFO_VALUES_RUNS), info_str(p, HP_INFO_VALUES_INSNS),
            info_num(p, HP_INFO_VALUES_NS) / 1e6);
    stop_reasons(p, stops, sizeof stops, 0);
    fprintf(out, "    stopped early: %s\n", stops[0] ? stops : "none");
}

static void timer_json(FILE *out, const hp_profile *p)
{
    char stops[512];
    double ov = hp_report_timer_overhead(p);
    fprintf(out, "  \"timer\": {\"freq\": %.0f, \"signal\": %.0f, \"signal_moves\": %.0f, \"unwinder\": ",
            info_num(p, HP_INFO_TIMER_FREQ), info_num(p, HP_INFO_TIMER_SIGNAL), info_num(p, HP_INFO_TIMER_MOVES));
    hp_json_string(out, info_str(p, HP_INFO_TIMER_UNWINDER));
    fputs(", \"clock\": ", out);
    hp_json_string(out, info_str(p, HP_INFO_TIMER_CLOCK));
    if (hp_profile_info(p, HP_INFO_TIMER_CLOCK_FALLBACK)) {
        fputs(", \"clock_fallback\": ", out);
        hp_json_string(out, info_str(p, HP_INFO_TIMER_CLOCK_FALLBACK));
    }
    fprintf(out, ", \"depth\": %.0f, \"interrupts\": %.0f, \"dropped\": %.0f, \"handler_ns\": %.0f, \"cpu_ns\": %.0f",
            info_num(p, HP_INFO_TIMER_DEPTH), info_num(p, HP_INFO_TIMER_SAMPLES), info_num(p, HP_INFO_TIMER_DROPPED),
            info_num(p, HP_INFO_TIMER_HANDLER_NS), info_num(p, HP_INFO_TIMER_CPU_NS));
    if (ov >= 0) fprintf(out, ", \"overhead_percent\": %.4f", ov);
    if (hp_profile_info(p, HP_INFO_VALUES)) {
        fputs(", \"values\": ", out);
        hp_json_string(out, info_str(p, HP_INFO_VALUES));
        fputs(", \"engine\": ", out);
        hp_json_string(out, info_str(p, HP_INFO_VALUES_ENGINE));
        fprintf(out, ", \"runs\": %.0f, \"insns\": %.0f, \"values_ns\": %.0f, \"stops\": {%s}",
                info_num(p, HP_INFO_VALUES_RUNS), info_num(p, HP_INFO_VALUES_INSNS), info_num(p, HP_INFO_VALUES_NS),
                stop_reasons(p, stops, sizeof stops, 1));
    }
    fputs("},\n", out);
}

/* ---- shadow mode (docs/shadow.md): INFO shadow.* of the parent, kept by the merge ---- */

static int shadow_mode(const hp_profile *p) { return hp_profile_info(p, HP_INFO_SHADOW_STARTED) != NULL; }

/* Share of the trapped system calls in category k (benign output input unsafe), percent. */
static double shadow_sys_share(const hp_profile *p, int k, double *total)
{
    static const char *const keys[4] = {HP_INFO_SHADOW_SYSCALLS ".benign", HP_INFO_SHADOW_SYSCALLS ".output",
                                        HP_INFO_SHADOW_SYSCALLS ".input", HP_INFO_SHADOW_SYSCALLS ".unsafe"};
    *total = 0;
    for (int i = 0; i < 4; i++) *total += info_num(p, keys[i]);
    return *total > 0 ? 100.0 * info_num(p, keys[k]) / *total : 0.0;
}

static void shadow_text(FILE *out, const hp_profile *p)
{
    double total, b = shadow_sys_share(p, 0, &total), o = shadow_sys_share(p, 1, &total), in = shadow_sys_share(p, 2, &total),
                  u = shadow_sys_share(p, 3, &total);
    fprintf(out, "  shadow   %s: started %s, finished %s, killed %s (deadline %s); events %s; coverage ~%.2f%% (an "
                 "estimate; 'hotprof compare' with an exhaustive run gives the exact one)\n",
            info_str(p, HP_INFO_SHADOW_SPEC), info_str(p, HP_INFO_SHADOW_STARTED), info_str(p, HP_INFO_SHADOW_FINISHED),
            info_str(p, HP_INFO_SHADOW_KILLED), info_str(p, HP_INFO_SHADOW_KILLED_DEADLINE), info_str(p, HP_INFO_SHADOW_EVENTS),
            info_num(p, HP_INFO_SHADOW_COVERAGE_PPM) / 1e4);
    fprintf(out, "    syscalls %.0f trapped: benign %.1f%%, output %.1f%%, input %.1f%%, unsafe %.1f%%; ends: sample %s, "
                 "slice %s, input %s, unsafe %s, shared_write %s, fault %s, exit %s\n",
            total, b, o, in, u, info_str(p, HP_INFO_SHADOW_END ".sample"), info_str(p, HP_INFO_SHADOW_END ".slice"),
            info_str(p, HP_INFO_SHADOW_END ".input"),
            info_str(p, HP_INFO_SHADOW_END ".unsafe"), info_str(p, HP_INFO_SHADOW_END ".shared_write"),
            info_str(p, HP_INFO_SHADOW_END ".fault"), info_str(p, HP_INFO_SHADOW_END ".exit"));
}

static void shadow_json(FILE *out, const hp_profile *p)
{
    double total;
    fprintf(out, "  \"shadow\": {\"started\": %.0f, \"finished\": %.0f, \"killed\": %.0f, \"events\": %.0f, "
                 "\"coverage_estimate\": %.6f, \"syscalls\": {\"benign\": %.4f, \"output\": %.4f, \"input\": %.4f, "
                 "\"unsafe\": %.4f}},\n",
            info_num(p, HP_INFO_SHADOW_STARTED), info_num(p, HP_INFO_SHADOW_FINISHED), info_num(p, HP_INFO_SHADOW_KILLED),
            info_num(p, HP_INFO_SHADOW_EVENTS), info_num(p, HP_INFO_SHADOW_COVERAGE_PPM) / 1e6,
            shadow_sys_share(p, 0, &total) / 100, shadow_sys_share(p, 1, &total) / 100, shadow_sys_share(p, 2, &total) / 100,
            shadow_sys_share(p, 3, &total) / 100);
}

void hp_report_patched_text(FILE *out, const hp_profile *p)
{
    const patched_mode *m = patched_mode_of(p);
    if (timer_mode(p)) timer_text(out, p);
    if (shadow_mode(p)) shadow_text(out, p);
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
    if (timer_mode(p)) timer_json(out, p);
    if (shadow_mode(p)) shadow_json(out, p);
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


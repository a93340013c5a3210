/* config.c — HOTPROF_* variables read once into hp_rt_config (config.h), parsed with the one
 * grammar of core/control/spec.h. Pure apart from hp_rt_config_read's getenv: no globals, no
 * allocation; tests/unit/test_rt_config.c links it alone.
 */
#include "runtime/config.h"
#include "runtime/base.h"
#include "core/control/spec.h"
#include "core/ptype/ptype.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable's value, with "" read as unset. */
static HP_NOINST const char *var(hp_getenv_fn get, void *arg, const char *name)
{
    const char *v = get(name, arg);
    return v && *v ? v : NULL;
}

/* A flag: "" or "0" off, "1" on, and (as before the one grammar) any other text on. */
static HP_NOINST int flag(hp_getenv_fn get, void *arg, const char *name)
{
    int on = 0;
    char err[8];
    return hp_spec_flag(get(name, arg), &on, err, 0) == 0 ? on : 1;
}

static HP_NOINST int bad(hp_rt_config *c, const char *name, const char *why)
{
    snprintf(c->error, sizeof c->error, "hotprof: bad %s: %s (not profiling)", name, why);
    return -1;
}

/* Exhaustive mode: only the subpath clauses of the spec (the exact counter's settings). */
static HP_NOINST int subpath_clauses(const char *spec, hp_osp_params *osp, char *err, size_t errlen)
{
    hp_bursty_params unused[HP_BURSTY_NTYPES];
    for (const char *c = spec; *c;) {
        const char *end = strchr(c, ';');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        const char *colon = memchr(c, ':', len);
        const hp_ptype *pt = hp_ptype_by_name(c, colon ? (size_t)(colon - c) : len);
        if (pt && pt->id == HP_PT_SUBPATH && hp_sample_clause_parse_osp(c, len, unused, osp, err, errlen)) return -1;
        c += len + (end ? 1 : 0);
    }
    return 0;
}

HP_NOINST int hp_rt_config_parse(hp_rt_config *c, hp_getenv_fn get, void *arg)
{
    char err[256];
    const char *mode = var(get, arg, "HOTPROF_MODE"), *spec = var(get, arg, "HOTPROF_SAMPLE");
    const char *seed = var(get, arg, "HOTPROF_SEED"), *claimed = var(get, arg, "HOTPROF_CLAIMED");
    const char *bursts = var(get, arg, "HOTPROF_BURSTS"), *window = var(get, arg, "HOTPROF_WINDOW");
    const char *xray = get("HOTPROF_XRAY", arg), *run_fd = var(get, arg, "HOTPROF_RUN_FD");
    memset(c, 0, sizeof *c);
    c->quiet = flag(get, arg, "HOTPROF_QUIET");
    c->follow_fork = flag(get, arg, "HOTPROF_FOLLOW_FORK");
    const char *live = get("HOTPROF_LIVE", arg);
    c->live = !(live && strcmp(live, "0") == 0);
    c->output = var(get, arg, "HOTPROF_OUTPUT");
    if (!c->output) c->output = HP_SPEC_DEFAULT_OUTPUT;

    c->mode = spec ? HP_RUN_BURSTY : HP_RUN_EXHAUSTIVE;
    if (mode && hp_spec_mode(mode, &c->mode, err, sizeof err)) {
        c->mode = HP_RUN_EXHAUSTIVE;
        c->mode_unknown = mode;
    }

    hp_sample_defaults(c->sample);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) c->sample[t].enabled = (HP_SAMPLE_DEFAULT_TYPES >> t) & 1;

    c->bursts = HP_BURSTS_AUTO;
    if (bursts && hp_spec_bursts(bursts, &c->bursts, err, sizeof err)) {
        c->bursts = HP_BURSTS_AUTO;
        c->bursts_unknown = 1;
    }
    c->window = HP_SPEC_DEFAULT_WINDOW;
    if (window && hp_spec_window(window, &c->window, err, sizeof err)) c->window = HP_SPEC_DEFAULT_WINDOW;
    c->xray = !xray ? HP_XRAY_WISH_AUTO
              : strcmp(xray, "0") == 0 ? HP_XRAY_WISH_NEVER
              : strcmp(xray, "1") == 0 ? HP_XRAY_WISH_REQUIRED
                                       : HP_XRAY_WISH_AUTO;
    if (claimed) {
        c->claimed_given = 1;
        if (hp_spec_u64(claimed, 0, UINT64_MAX, &c->claimed)) c->claimed = 0;
    }
    c->run_fd = -1;
    const char *colon = run_fd ? strchr(run_fd, ':') : NULL;
    if (colon && colon - run_fd < 16) {
        char fd[16];
        uint64_t v;
        memcpy(fd, run_fd, (size_t)(colon - run_fd));
        fd[colon - run_fd] = 0;
        if (!hp_spec_u64(fd, 0, 1u << 30, &v) && !hp_spec_u64(colon + 1, 0, UINT64_MAX, &c->run_ino)) c->run_fd = (int)v;
    }

    c->trace = var(get, arg, "HOTPROF_TRACE");
    const char *tkind = var(get, arg, "HOTPROF_TRACE_KIND"), *tlimit = var(get, arg, "HOTPROF_TRACE_LIMIT");
    c->trace_kind = !tkind ? 0 : strcmp(tkind, "values") == 0 ? 1 : strcmp(tkind, "edges") == 0 ? 2 : strcmp(tkind, "calls") == 0 ? 3 : 0;
    if (!tlimit || hp_spec_u64(tlimit, 1, UINT64_MAX, &c->trace_limit)) c->trace_limit = HP_TRACE_DEFAULT_LIMIT;
    const char *tpid = var(get, arg, "HOTPROF_TRACE_PID");
    c->trace_pid_given = tpid != NULL;
    if (tpid && hp_spec_u64(tpid, 0, UINT64_MAX, &c->trace_pid)) c->trace_pid = 0;

    hp_iv_defaults(c->iv);
    hp_pv_defaults(&c->pv);
    hp_timer_spec_default(&c->timer);
    if (c->mode == HP_RUN_OFF) return 0;
    const char *timer = var(get, arg, "HOTPROF_TIMER");
    if (c->mode == HP_RUN_TIMER && hp_timer_spec_parse(timer, &c->timer, err, sizeof err))
        return bad(c, "HOTPROF_TIMER", err);
    const char *module = var(get, arg, "HOTPROF_VALUE_MODULE");
    if (c->mode == HP_RUN_TIMER && module && *module) c->timer.module = module;
    hp_shadow_spec_default(&c->shadow);
    if (c->mode == HP_RUN_SHADOW && hp_shadow_spec_parse(var(get, arg, "HOTPROF_SHADOW"), &c->shadow, err, sizeof err))
        return bad(c, "HOTPROF_SHADOW", err);
    const char *iv = var(get, arg, "HOTPROF_INTERVALS");
    if (iv && hp_iv_spec_parse(iv, c->iv, err, sizeof err)) return bad(c, "HOTPROF_INTERVALS", err);
    const char *pv = var(get, arg, "HOTPROF_PATHVAL");
    hp_pv_defaults(&c->pv);
    if (pv && hp_pv_spec_parse(pv, &c->pv, err, sizeof err)) return bad(c, "HOTPROF_PATHVAL", err);
    hp_osp_params_default(&c->osp);
    if (c->mode == HP_RUN_BURSTY && spec && hp_sample_spec_parse_osp(spec, c->sample, &c->osp, err, sizeof err))
        return bad(c, "HOTPROF_SAMPLE", err);
    if (c->mode == HP_RUN_EXHAUSTIVE && spec && subpath_clauses(spec, &c->osp, err, sizeof err))
        return bad(c, "HOTPROF_SAMPLE", err);
    if (seed) {
        if (hp_spec_seed(seed, &c->seed, err, sizeof err)) return bad(c, "HOTPROF_SEED", err);
        c->seed_given = 1;
    }
    return 0;
}

static HP_NOINST const char *envp_get(const char *name, void *arg)
{
    size_t n = strlen(name);
    for (char *const *e = arg; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

HP_NOINST int hp_rt_config_from_envp(hp_rt_config *c, char *const *envp)
{
    return hp_rt_config_parse(c, envp_get, (void *)envp);
}

static HP_NOINST const char *process_get(const char *name, void *arg)
{
    (void)arg;
    return getenv(name);
}

HP_NOINST int hp_rt_config_read(hp_rt_config *c) { return hp_rt_config_parse(c, process_get, NULL); }

/* timer_spec.c — parsing and formatting of timer mode's settings (timer_spec.h). Pure: no globals
 * but constant tables, no allocation; every error is one sentence "KEY wants ..., not 'TEXT'".
 */
#include "core/control/timer_spec.h"
#include "core/control/spec.h"
#include "core/format/format.h"
#include <stdio.h>
#include <string.h>

void hp_timer_spec_default(hp_timer_spec *s)
{
    *s = (hp_timer_spec){.freq = HP_TIMER_DEFAULT_FREQ, .len = 0, .every = 0, .engine = HP_TIMER_ENGINE_OOL,
                         .debias = 0, .signal = HP_TIMER_DEFAULT_SIGNAL, .depth = HP_TIMER_DEFAULT_DEPTH,
                         .clock = HP_TIMER_CLOCK_AUTO};
}

static int want(char *err, size_t errlen, const char *what, const char *wants, const char *text, size_t len)
{
    if (errlen) snprintf(err, errlen, "%s wants %s, not '%.*s'", what, wants, (int)len, text ? text : "");
    return -1;
}

/* An unsigned number in [lo, hi] from len bytes (hp_spec_u64 on a bounded copy). */
static int num(const char *text, size_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, text, len);
    buf[len] = 0;
    return hp_spec_u64(buf, lo, hi, out);
}

static int freq_n(const char *t, size_t n, uint32_t *out, char *err, size_t el)
{
    uint64_t v;
    if (num(t, n, 1, HP_TIMER_MAX_FREQ, &v)) return want(err, el, "freq", "a rate in Hz from 1 to 100000", t, n);
    return *out = (uint32_t)v, 0;
}

static int values_n(const char *t, size_t n, uint32_t *len, uint32_t *every, char *err, size_t el)
{
    const char *slash = memchr(t, '/', n);
    uint64_t l, k;
    if (n == 3 && memcmp(t, "off", 3) == 0) return *len = 0, *every = 0, 0;
    if (!slash || num(t, (size_t)(slash - t), 1, HP_TIMER_MAX_LEN, &l) ||
        num(slash + 1, n - (size_t)(slash - t) - 1, 1, HP_TIMER_MAX_EVERY, &k))
        return want(err, el, "values", "L/K: L instructions (1 to 64) at every K-th interrupt (K 1 to 1000000)",
                    t, n);
    return *len = (uint32_t)l, *every = (uint32_t)k, 0;
}

static const char *const engine_names[] = {"ool", "tf", "check"};

static int engine_n(const char *t, size_t n, int *out, char *err, size_t el)
{
    for (int i = 0; i < 3; i++)
        if (strlen(engine_names[i]) == n && memcmp(t, engine_names[i], n) == 0) return *out = i, 0;
    return want(err, el, "engine", "ool, tf or check", t, n);
}

static const char *const clock_names[] = {"auto", "perf", "posix"};

static int clock_n(const char *t, size_t n, int *out, char *err, size_t el)
{
    for (int i = 0; i < 3; i++)
        if (strlen(clock_names[i]) == n && memcmp(t, clock_names[i], n) == 0) return *out = i, 0;
    return want(err, el, "clock", "auto, perf or posix", t, n);
}

static int debias_n(const char *t, size_t n, uint32_t *out, char *err, size_t el)
{
    uint64_t v;
    if (num(t, n, 0, HP_TIMER_MAX_DEBIAS, &v)) return want(err, el, "debias", "a number from 0 to 64", t, n);
    return *out = (uint32_t)v, 0;
}

static int depth_n(const char *t, size_t n, uint32_t *out, char *err, size_t el)
{
    uint64_t v;
    if (num(t, n, 1, HP_STACK_MAX_DEPTH, &v)) return want(err, el, "depth", "a number from 1 to 256", t, n);
    return *out = (uint32_t)v, 0;
}

/* ---------------------------------------------------------------- signals */

static const struct { const char *name; int signo; } sig_names[] = {
    {"USR1", 10}, {"USR2", 12}, {"ALRM", 14}, {"VTALRM", 26}, {"PROF", 27},
};
#define N_SIG_NAMES (sizeof sig_names / sizeof sig_names[0])

int hp_timer_signal_allowed(int signo)
{
    for (size_t i = 0; i < N_SIG_NAMES; i++)
        if (sig_names[i].signo == signo) return 1;
    return signo >= HP_TIMER_SIGRTMIN && signo <= HP_TIMER_SIGRTMAX;
}

/* "RTMIN", "RTMIN+N", "RTMAX", "RTMAX-N" (after any SIG prefix). */
static int rt_name(const char *t, size_t n, int *out)
{
    uint64_t v = 0;
    int base = 0, sign = 1;
    if (n >= 5 && memcmp(t, "RTMIN", 5) == 0) base = HP_TIMER_SIGRTMIN;
    else if (n >= 5 && memcmp(t, "RTMAX", 5) == 0) base = HP_TIMER_SIGRTMAX, sign = -1;
    else return -1;
    if (n > 5) {
        if (t[5] != (sign > 0 ? '+' : '-') || num(t + 6, n - 6, 0, 30, &v)) return -1;
    }
    return *out = base + sign * (int)v, 0;
}

static int signal_n(const char *t, size_t n, int *out, char *err, size_t el)
{
    const char *s = t;
    size_t m = n;
    uint64_t v;
    int signo = -1;
    if (m > 3 && memcmp(s, "SIG", 3) == 0) s += 3, m -= 3;
    if (num(t, n, 1, 64, &v) == 0) signo = (int)v;
    else if (rt_name(s, m, &signo) != 0)
        for (size_t i = 0; i < N_SIG_NAMES; i++)
            if (strlen(sig_names[i].name) == m && memcmp(s, sig_names[i].name, m) == 0) signo = sig_names[i].signo;
    if (!hp_timer_signal_allowed(signo))
        return want(err, el, "signal", "USR1, USR2, ALRM, VTALRM, PROF, RTMIN+N (N 0 to 30) or their number", t, n);
    return *out = signo, 0;
}

size_t hp_timer_signal_name(char *out, size_t cap, int signo)
{
    for (size_t i = 0; i < N_SIG_NAMES; i++)
        if (sig_names[i].signo == signo) return (size_t)snprintf(out, cap, "%s", sig_names[i].name);
    if (signo >= HP_TIMER_SIGRTMIN && signo <= HP_TIMER_SIGRTMAX)
        return (size_t)snprintf(out, cap, "RTMIN+%d", signo - HP_TIMER_SIGRTMIN);
    return (size_t)snprintf(out, cap, "%d", signo);
}

/* ---------------------------------------------------------------- whole settings */

int hp_timer_freq_parse(const char *t, uint32_t *out, char *err, size_t el) { return freq_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_engine_parse(const char *t, int *out, char *err, size_t el) { return engine_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_debias_parse(const char *t, uint32_t *out, char *err, size_t el) { return debias_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_signal_parse(const char *t, int *out, char *err, size_t el) { return signal_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_depth_parse(const char *t, uint32_t *out, char *err, size_t el) { return depth_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_clock_parse(const char *t, int *out, char *err, size_t el) { return clock_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_timer_values_parse(const char *t, uint32_t *len, uint32_t *every, char *err, size_t el)
{
    return values_n(t, t ? strlen(t) : 0, len, every, err, el);
}

static int key_is(const char *kv, size_t klen, const char *name) { return strlen(name) == klen && memcmp(kv, name, klen) == 0; }

/* One KEY=V (len bytes) into s. */
static int apply(const char *kv, size_t len, hp_timer_spec *s, char *err, size_t el)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq) return want(err, el, "HOTPROF_TIMER", "KEY=VALUE pairs separated by ','", kv, len);
    size_t klen = (size_t)(eq - kv), vlen = len - klen - 1;
    const char *v = eq + 1;
    if (key_is(kv, klen, "freq")) return freq_n(v, vlen, &s->freq, err, el);
    if (key_is(kv, klen, "values")) return values_n(v, vlen, &s->len, &s->every, err, el);
    if (key_is(kv, klen, "engine")) return engine_n(v, vlen, &s->engine, err, el);
    if (key_is(kv, klen, "debias")) return debias_n(v, vlen, &s->debias, err, el);
    if (key_is(kv, klen, "signal")) return signal_n(v, vlen, &s->signal, err, el);
    if (key_is(kv, klen, "depth")) return depth_n(v, vlen, &s->depth, err, el);
    if (key_is(kv, klen, "clock")) return clock_n(v, vlen, &s->clock, err, el);
    return want(err, el, "HOTPROF_TIMER", "the keys freq, values, engine, debias, signal, depth, clock", kv, klen);
}

int hp_timer_spec_parse(const char *text, hp_timer_spec *s, char *err, size_t errlen)
{
    hp_timer_spec_default(s);
    for (const char *c = text; c && *c;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (apply(c, len, s, err, errlen)) return -1;
        c += len + (end ? 1 : 0);
        if (end && !*c) return want(err, errlen, "HOTPROF_TIMER", "no ',' at its end", text, strlen(text));
    }
    return 0;
}

const char *hp_timer_engine_name(int engine) { return engine >= 0 && engine < 3 ? engine_names[engine] : "?"; }
const char *hp_timer_clock_name(int clock) { return clock >= 0 && clock < 3 ? clock_names[clock] : "?"; }

size_t hp_timer_spec_format(char *out, size_t cap, const hp_timer_spec *s)
{
    char values[48] = "";
    if (s->len) snprintf(values, sizeof values, ",values=%u/%u", s->len, s->every);
    int n = snprintf(out, cap, "freq=%u%s,engine=%s,debias=%u,signal=%d,depth=%u,clock=%s", s->freq, values,
                     hp_timer_engine_name(s->engine), s->debias, s->signal, s->depth, hp_timer_clock_name(s->clock));
    return n < 0 ? 0 : (size_t)n;
}

/* shadow_spec.c — HOTPROF_SHADOW's grammar (shadow_spec.h): load, sample, signal, slice. The signal
 * names are timer_spec.c's (one list of allowed signals). Pure: no writable data, no calls
 * besides snprintf into the caller's buffer.
 */
#include "core/control/shadow_spec.h"
#include "core/control/timer_spec.h"
#include <stdio.h>
#include <string.h>

void hp_shadow_spec_default(hp_shadow_spec *s)
{
    *s = (hp_shadow_spec){.load = HP_SHADOW_DEFAULT_LOAD, .sample = HP_SHADOW_DEFAULT_SAMPLE,
                          .signal = HP_SHADOW_DEFAULT_SIGNAL, .slice_ms = HP_SHADOW_DEFAULT_SLICE_MS};
}

static int bad(char *err, size_t el, const char *what, const char *want, const char *t, size_t n)
{
    if (err && el) snprintf(err, el, "%s must be %s, not '%.*s'", what, want, (int)n, t ? t : "");
    return -1;
}

/* digits[.digits], at most 12 digits in all, into *out (the mantissa divided once by a power of
 * ten: correctly rounded, so format and parse round-trip). 0 or -1. */
static int decimal(const char *t, size_t n, double *out)
{
    uint64_t mant = 0, scale = 1;
    size_t digits = 0, i = 0;
    for (; i < n && t[i] >= '0' && t[i] <= '9'; i++, digits++) mant = mant * 10 + (uint64_t)(t[i] - '0');
    if (!digits) return -1;
    if (i < n && t[i] == '.') {
        size_t frac = 0;
        for (i++; i < n && t[i] >= '0' && t[i] <= '9'; i++, frac++, digits++) mant = mant * 10 + (uint64_t)(t[i] - '0'), scale *= 10;
        if (!frac) return -1;
    }
    if (i != n || digits > 12) return -1;
    *out = (double)mant / (double)scale;
    return 0;
}

static int load_n(const char *t, size_t n, double *out, char *err, size_t el)
{
    double v;
    if (!t || decimal(t, n, &v) || v < HP_SHADOW_MIN_LOAD || v > HP_SHADOW_MAX_LOAD)
        return bad(err, el, "load", "a number from 0.0625 to 2", t, n);
    return *out = v, 0;
}

static int sample_n(const char *t, size_t n, uint64_t *out, char *err, size_t el)
{
    uint64_t v = 0, mult = 1;
    size_t digits = 0;
    if (t && n && (t[n - 1] == 'K' || t[n - 1] == 'M' || t[n - 1] == 'G'))
        mult = t[n - 1] == 'K' ? 1000ull : t[n - 1] == 'M' ? 1000000ull : 1000000000ull, n--;
    for (; t && digits < n && t[digits] >= '0' && t[digits] <= '9' && v <= HP_SHADOW_MAX_SAMPLE; digits++)
        v = v * 10 + (uint64_t)(t[digits] - '0');
    if (!t || !digits || digits != n || v == 0 || v > HP_SHADOW_MAX_SAMPLE / mult)
        return bad(err, el, "the sample size", "a number of events from 1 to 2^40 (suffix K, M or G allowed)", t,
                   n + (mult > 1));
    return *out = v * mult, 0;
}

static int slice_n(const char *t, size_t n, uint32_t *out, char *err, size_t el)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; t && i < n && i < 6 && t[i] >= '0' && t[i] <= '9'; i++) v = v * 10 + (uint64_t)(t[i] - '0');
    if (!t || !i || i != n || v > HP_SHADOW_MAX_SLICE_MS)
        return bad(err, el, "the shadow slice", "a number of milliseconds from 0 to 60000", t, n);
    return *out = (uint32_t)v, 0;
}

int hp_shadow_slice_parse(const char *t, uint32_t *out, char *err, size_t el) { return slice_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_shadow_load_parse(const char *t, double *out, char *err, size_t el) { return load_n(t, t ? strlen(t) : 0, out, err, el); }
int hp_shadow_sample_parse(const char *t, uint64_t *out, char *err, size_t el) { return sample_n(t, t ? strlen(t) : 0, out, err, el); }

int hp_shadow_signal_parse(const char *t, int *out, char *err, size_t el)
{
    if (hp_timer_signal_parse(t, out, NULL, 0) == 0) return 0;
    return bad(err, el, "the shadow signal", "USR1, USR2, ALRM, VTALRM, PROF, RTMIN+N (N 0 to 30) or their number", t,
               t ? strlen(t) : 0);
}

static int key_is(const char *kv, size_t klen, const char *key) { return strlen(key) == klen && memcmp(kv, key, klen) == 0; }

static int apply(const char *kv, size_t len, hp_shadow_spec *s, char *err, size_t el)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq) return bad(err, el, "HOTPROF_SHADOW", "KEY=V pairs (load, sample, signal, slice)", kv, len);
    size_t klen = (size_t)(eq - kv), vlen = len - klen - 1;
    const char *v = eq + 1;
    if (key_is(kv, klen, "load")) return load_n(v, vlen, &s->load, err, el);
    if (key_is(kv, klen, "sample")) return sample_n(v, vlen, &s->sample, err, el);
    if (key_is(kv, klen, "slice")) return slice_n(v, vlen, &s->slice_ms, err, el);
    if (key_is(kv, klen, "signal")) {
        char one[32];
        if (vlen >= sizeof one) return bad(err, el, "the shadow signal", "a signal name or number", v, vlen);
        memcpy(one, v, vlen), one[vlen] = 0;
        return hp_shadow_signal_parse(one, &s->signal, err, el);
    }
    return bad(err, el, "HOTPROF_SHADOW", "the keys load, sample, signal, slice", kv, klen);
}

int hp_shadow_spec_parse(const char *text, hp_shadow_spec *s, char *err, size_t el)
{
    hp_shadow_spec_default(s);
    if (!text || !*text) return 0;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (apply(p, len, s, err, el)) return -1;
        if (!comma) return 0;
        p = comma + 1;
    }
}

size_t hp_shadow_spec_format(char *out, size_t cap, const hp_shadow_spec *s)
{
    int n = snprintf(out, cap, "load=%.10g,sample=%llu,signal=%d,slice=%u", s->load, (unsigned long long)s->sample,
                     s->signal, s->slice_ms);
    return n < 0 ? 0 : (size_t)n;
}

/* pathval_spec.c — the path and value clauses of pathval_spec.h: parse, check, format. */
#include "core/control/pathval_spec.h"
#include "core/ptype/path.h"
#include "core/format/format.h"
#include <stdio.h>
#include <string.h>

void hp_pv_defaults(hp_pv_params *p)
{
    memset(p, 0, sizeof *p);
    p->maxlen = HP_PATH_DEFAULT_MAXLEN;
    p->entries = HP_PV_DEFAULT_ENTRIES;
    p->clear = HP_PV_DEFAULT_CLEAR;
    p->sites = HP_PV_DEFAULT_SITES;
}

const char *hp_pv_summary_name(int s) { return s == HP_PV_TNV ? "tnv" : s == HP_PV_GM ? "gm" : "?"; }

static int word_is(const char *w, size_t n, const char *want) { return n == strlen(want) && !memcmp(w, want, n); }

int hp_pv_summary_word(const char *v, size_t vlen) { return word_is(v, vlen, "tnv") || word_is(v, vlen, "gm"); }

static int is_path(const char *w, size_t n) { return word_is(w, n, "path") || word_is(w, n, "paths"); }
static int is_value(const char *w, size_t n) { return word_is(w, n, "value") || word_is(w, n, "values"); }

/* The value of key `name` in the keys [at, end), or NULL (*vlen its length). */
static const char *key_value(const char *at, const char *end, const char *name, size_t *vlen)
{
    size_t n = strlen(name);
    while (at < end) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        const char *item_end = comma ? comma : end;
        if ((size_t)(item_end - at) > n && !memcmp(at, name, n) && at[n] == '=') {
            *vlen = (size_t)(item_end - at) - n - 1;
            return at + n + 1;
        }
        at = item_end + 1;
    }
    return NULL;
}

int hp_pv_clause_is(const char *text, size_t len)
{
    const char *colon = memchr(text, ':', len);
    size_t wlen = colon ? (size_t)(colon - text) : len, vlen;
    if (is_path(text, wlen)) return 1;
    if (!colon || !is_value(text, wlen)) return 0;
    const char *v = key_value(colon + 1, text + len, "summary", &vlen);
    return v && hp_pv_summary_word(v, vlen);
}

static int say(char *err, size_t errlen, const char *what, const char *s, size_t n)
{
    if (errlen) snprintf(err, errlen, "%s '%.*s'", what, (int)n, s);
    return -1;
}

/* Decimal digits, at most 10, in [lo, hi]. */
static int num(const char *s, size_t n, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 10) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int path_key(const char *kv, size_t n, hp_pv_params *p, char *err, size_t errlen)
{
    if (n > 7 && !memcmp(kv, "maxlen=", 7)) {
        if (num(kv + 7, n - 7, HP_PATH_MIN_MAXLEN, HP_PATH_MAX_LENGTH, &p->maxlen) == 0) return 0;
        return say(err, errlen, "path maxlen must be 2..1024, not", kv + 7, n - 7);
    }
    return say(err, errlen, "unknown path key (the key is maxlen=N):", kv, n);
}

static int value_key(const char *kv, size_t n, hp_pv_params *p, char *err, size_t errlen)
{
    static const struct { const char *name; uint32_t lo, hi; size_t off; const char *what; } keys[] = {
        {"entries=", 2, HP_VALUE_MAX_ENTRIES, offsetof(hp_pv_params, entries), "value entries must be 2..64, not"},
        {"clear=", 1, 1u << 30, offsetof(hp_pv_params, clear), "value clear must be 1..1073741824, not"},
        {"sites=", 16, HP_PV_MAX_SITES, offsetof(hp_pv_params, sites), "value sites must be 16..1048576, not"},
    };
    if (n > 8 && !memcmp(kv, "summary=", 8)) {
        if (word_is(kv + 8, n - 8, "tnv")) p->values = HP_PV_TNV;
        else if (word_is(kv + 8, n - 8, "gm")) p->values = HP_PV_GM;
        else return say(err, errlen, "value summary must be tnv or gm (multihash is the interval profile), not", kv + 8, n - 8);
        return 0;
    }
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t kl = strlen(keys[k].name);
        if (n < kl || memcmp(kv, keys[k].name, kl)) continue;
        uint32_t *field = (uint32_t *)(void *)((char *)p + keys[k].off);
        if (num(kv + kl, n - kl, keys[k].lo, keys[k].hi, field) == 0) return 0;
        return say(err, errlen, keys[k].what, kv + kl, n - kl);
    }
    return say(err, errlen, "unknown value key (keys: summary, entries, clear, sites):", kv, n);
}

/* Each key of [at, end) through one of the key functions. */
static int each_key(const char *at, const char *end, int (*fn)(const char *, size_t, hp_pv_params *, char *, size_t),
                    hp_pv_params *p, char *err, size_t errlen)
{
    while (at < end) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        const char *item_end = comma ? comma : end;
        if (item_end == at) return say(err, errlen, "empty key in", at, (size_t)(end - at));
        if (fn(at, (size_t)(item_end - at), p, err, errlen)) return -1;
        at = item_end + 1;
    }
    return 0;
}

int hp_pv_clause_parse(const char *text, size_t len, hp_pv_params *p, char *err, size_t errlen)
{
    const char *colon = memchr(text, ':', len), *end = text + len;
    size_t wlen = colon ? (size_t)(colon - text) : len;
    if (colon && colon + 1 == end) return say(err, errlen, "no keys after ':' in", text, len);
    if (is_path(text, wlen)) {
        p->path = 1;
        return colon ? each_key(colon + 1, end, path_key, p, err, errlen) : 0;
    }
    if (!is_value(text, wlen)) return say(err, errlen, "not a path or value clause:", text, len);
    int was = p->values;
    p->values = 0;
    if (colon && each_key(colon + 1, end, value_key, p, err, errlen)) return -1;
    if (!p->values) {
        p->values = was;
        return say(err, errlen, "a value clause needs summary=tnv or summary=gm:", text, len);
    }
    if (p->values == HP_PV_GM && (key_value(colon + 1, end, "entries", &wlen) || key_value(colon + 1, end, "clear", &wlen)))
        return say(err, errlen, "entries and clear are keys of summary=tnv only (gm keeps 16 entries):", text, len);
    return 0;
}

int hp_pv_spec_parse(const char *text, hp_pv_params *p, char *err, size_t errlen)
{
    hp_pv_defaults(p);
    for (const char *c = text; c && *c;) {
        const char *semi = strchr(c, ';');
        size_t len = semi ? (size_t)(semi - c) : strlen(c);
        if (hp_pv_clause_parse(c, len, p, err, errlen)) return -1;
        c = semi ? semi + 1 : NULL;
    }
    return 0;
}

size_t hp_pv_format(char *out, size_t cap, const hp_pv_params *p)
{
    int n = 0;
    if (!cap) return 0;
    out[0] = 0;
    if (p->path) n = snprintf(out, cap, "path:maxlen=%u", (unsigned)p->maxlen);
    if (n < 0 || (size_t)n >= cap) return cap - 1;
    if (p->values == HP_PV_TNV)
        n += snprintf(out + n, cap - (size_t)n, "%svalue:summary=tnv,entries=%u,clear=%u,sites=%u", n ? ";" : "",
                      (unsigned)p->entries, (unsigned)p->clear, (unsigned)p->sites);
    else if (p->values == HP_PV_GM)
        n += snprintf(out + n, cap - (size_t)n, "%svalue:summary=gm,sites=%u", n ? ";" : "", (unsigned)p->sites);
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

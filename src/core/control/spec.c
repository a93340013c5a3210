/* spec.c — parsing and formatting of every run-time setting (spec.h): scalar settings (seed, mode,
 * bursts, window, flags) and bursty-sampling specs.
 * Every parser walks explicit (pointer, length) ranges, so a spec need not be NUL-terminated
 * inside a clause and nothing is copied. */
#include "core/control/spec.h"
#include "core/control/pathval_spec.h"
#include "core/ptype/ptype.h"
#include "core/summary/multihash.h"
#include <stdio.h>
#include <string.h>

static const char *const type_names[HP_BURSTY_NTYPES] = {"methods", "callpairs", "edges", "datastream"};

const char *hp_sample_type_name(int type)
{
    return type >= 0 && type < HP_BURSTY_NTYPES ? type_names[type] : NULL;
}

const char *hp_sample_word(int i)
{
    if (i >= 0 && i < HP_BURSTY_NTYPES) return type_names[i];
    return i == HP_BURSTY_NTYPES ? hp_ptypes[HP_PT_SUBPATH]->name : NULL;
}

/* A type's name or one of its synonyms in the profile-type registry ("calls" for methods). */
int hp_sample_type_parse(const char *word, size_t len)
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        if (strlen(type_names[t]) == len && memcmp(type_names[t], word, len) == 0) return t;
    const hp_ptype *pt = hp_ptype_by_name(word, len);
    return pt && pt->bursty_type >= 0 && pt->bursty_type < HP_BURSTY_NTYPES ? pt->bursty_type : -1;
}

void hp_sample_defaults(hp_bursty_params p[HP_BURSTY_NTYPES])
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        p[t] = (hp_bursty_params){HP_SAMPLE_DEFAULT_PERIOD, HP_SAMPLE_DEFAULT_BURST, HP_SAMPLE_DEFAULT_JITTER, 0};
}

static int say(char *err, size_t errlen, const char *fmt, const char *a, size_t alen)
{
    if (errlen) snprintf(err, errlen, fmt, (int)alen, a);
    return -1;
}

/* Decimal digits only, at most 10 of them. */
static int parse_num(const char *s, size_t len, uint32_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 10) return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > 0xffffffffu) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int set_key(const char *kv, size_t len, hp_bursty_params *p, char *err, size_t errlen)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq) return say(err, errlen, "'%.*s' is not KEY=NUMBER (period, burst, jitter)", kv, len);
    size_t klen = (size_t)(eq - kv);
    uint32_t v;
    if (parse_num(eq + 1, len - klen - 1, &v))
        return say(err, errlen, "'%.*s': the value is not a non-negative number", kv, len);
    if (klen == 6 && !memcmp(kv, "period", 6)) p->period = v;
    else if (klen == 5 && !memcmp(kv, "burst", 5)) p->burst = v;
    else if (klen == 6 && !memcmp(kv, "jitter", 6)) p->jitter_pct = v;
    else return say(err, errlen, "unknown key '%.*s' (period, burst, jitter)", kv, klen);
    return 0;
}

static int check_ranges(const hp_bursty_params *p, const char *what, size_t wlen, char *err, size_t errlen)
{
    if (p->burst < 1 || p->burst > HP_BURSTY_MAX_COUNT)
        return say(err, errlen, "'%.*s': burst must be 1..1073741824", what, wlen);
    if (p->period > HP_BURSTY_MAX_COUNT)
        return say(err, errlen, "'%.*s': period must be 0..1073741824", what, wlen);
    if (p->jitter_pct > HP_BURSTY_MAX_JITTER) return say(err, errlen, "'%.*s': jitter must be 0..99 (percent)", what, wlen);
    return 0;
}

int hp_sample_params_parse(const char *text, size_t len, hp_bursty_params *p, char *err, size_t errlen)
{
    hp_bursty_params q = *p;
    size_t pos = 0;
    while (pos < len) {
        const char *comma = memchr(text + pos, ',', len - pos);
        size_t n = comma ? (size_t)(comma - (text + pos)) : len - pos;
        if (set_key(text + pos, n, &q, err, errlen)) return -1;
        pos += n + 1;
        if (comma && pos == len) return say(err, errlen, "'%.*s' ends with a comma", text, len);
    }
    if (check_ranges(&q, text, len, err, errlen)) return -1;
    q.enabled = p->enabled;
    *p = q;
    return 0;
}

static int is_subpath_word(const char *word, size_t len)
{
    const hp_ptype *pt = hp_ptype_by_name(word, len);
    return pt && pt->id == HP_PT_SUBPATH;
}

int hp_sample_clause_parse_osp(const char *text, size_t len, hp_bursty_params p[HP_BURSTY_NTYPES],
                               hp_osp_params *osp, char *err, size_t errlen)
{
    const char *colon = memchr(text, ':', len);
    size_t tlen = colon ? (size_t)(colon - text) : len;
    if (colon && len == tlen + 1) return say(err, errlen, "'%.*s': no parameters after ':'", text, len);
    if (is_subpath_word(text, tlen)) {
        if (!osp) return say(err, errlen, "'%.*s' is not sampled by bursts here", text, tlen);
        hp_osp_params q;
        hp_osp_params_default(&q);
        if (colon && hp_osp_params_parse(colon + 1, len - tlen - 1, &q, err, errlen)) return -1;
        q.enabled = 1;
        *osp = q;
        return 0;
    }
    int type = hp_sample_type_parse(text, tlen);
    if (type < 0)
        return say(err, errlen, "unknown sample type '%.*s' (methods, callpairs, edges, datastream, subpath)", text,
                   tlen);
    hp_bursty_params q = {HP_SAMPLE_DEFAULT_PERIOD, HP_SAMPLE_DEFAULT_BURST, HP_SAMPLE_DEFAULT_JITTER, 1};
    if (colon && hp_sample_params_parse(colon + 1, len - tlen - 1, &q, err, errlen)) return -1;
    p[type] = q;
    return 0;
}

int hp_sample_clause_parse(const char *text, size_t len, hp_bursty_params p[HP_BURSTY_NTYPES], char *err,
                           size_t errlen)
{
    return hp_sample_clause_parse_osp(text, len, p, NULL, err, errlen);
}

int hp_sample_spec_parse_osp(const char *text, hp_bursty_params p[HP_BURSTY_NTYPES], hp_osp_params *osp,
                             char *err, size_t errlen)
{
    size_t len = strlen(text), pos = 0;
    hp_sample_defaults(p);
    if (osp) hp_osp_params_default(osp);
    if (len == 0) return say(err, errlen, "empty sampling spec%.*s", "", 0);
    while (pos < len) {
        const char *semi = memchr(text + pos, ';', len - pos);
        size_t n = semi ? (size_t)(semi - (text + pos)) : len - pos;
        if (n == 0) return say(err, errlen, "empty clause in '%.*s'", text, len);
        if (hp_sample_clause_parse_osp(text + pos, n, p, osp, err, errlen)) return -1;
        pos += n + 1;
    }
    return 0;
}

int hp_sample_spec_parse(const char *text, hp_bursty_params p[HP_BURSTY_NTYPES], char *err, size_t errlen)
{
    return hp_sample_spec_parse_osp(text, p, NULL, err, errlen);
}

/* ---------------------------------------------------------------- the subpath clause */

static const char *const law_names[] = {"pow2", "uniform", "any", "pow2+3+5"};
static const char *const enc_names[] = {"xor", "exact"};
static const char *const weight_names[] = {"count", "length", "cost"};
static const char *const list_names[] = {"counting", "concise"};
static const char *const onoff_names[] = {"off", "on"};

const char *hp_osp_law_name(uint32_t law) { return law < 4 ? law_names[law] : "?"; }
const char *hp_osp_enc_name(uint32_t enc) { return enc < 2 ? enc_names[enc] : "?"; }
const char *hp_osp_weight_name(uint32_t weight) { return weight < 3 ? weight_names[weight] : "?"; }
const char *hp_osp_list_name(uint32_t list) { return list < 2 ? list_names[list] : "?"; }

static int word_of(const char *v, size_t vlen, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == vlen && memcmp(names[i], v, vlen) == 0) return i;
    return -1;
}

/* A byte count with an optional K or M suffix, in [lo, hi]. */
static int parse_bytes(const char *v, size_t vlen, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t mult = 1;
    if (vlen && (v[vlen - 1] == 'K' || v[vlen - 1] == 'k')) mult = 1024, vlen--;
    else if (vlen && (v[vlen - 1] == 'M' || v[vlen - 1] == 'm')) mult = 1024 * 1024, vlen--;
    uint32_t n;
    if (parse_num(v, vlen, &n)) return -1;
    *out = (uint64_t)n * mult;
    return *out < lo || *out > hi ? -2 : 0;
}

static int osp_num(const char *kv, size_t len, const char *v, size_t vlen, uint32_t lo, uint32_t hi, uint32_t *out,
                   char *err, size_t errlen)
{
    uint32_t n;
    if (parse_num(v, vlen, &n)) return say(err, errlen, "subpath:%.*s: the value is not a number", kv, len);
    if (n < lo || n > hi) {
        if (errlen) snprintf(err, errlen, "subpath:%.*s: out of range (%u..%u)", (int)len, kv, lo, hi);
        return -1;
    }
    *out = n;
    return 0;
}

/* set: bit 0 maxlen given, bit 1 prefixes given (len=any leaves prefixes off unless given). */
static int osp_key(const char *kv, size_t len, hp_osp_params *p, int *set, char *err, size_t errlen)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq) return say(err, errlen, "subpath: '%.*s' is not KEY=VALUE (mem, len, maxlen, enc, minf, weight, list, prefixes, skiponly)", kv, len);
    size_t klen = (size_t)(eq - kv), vlen = len - klen - 1;
    const char *v = eq + 1;
    int w;
    uint64_t bytes;
#define KEY(name) (klen == sizeof name - 1 && !memcmp(kv, name, klen))
    if (KEY("mem")) {
        int rc = parse_bytes(v, vlen, HP_OSP_MIN_MEM, HP_OSP_MAX_MEM, &bytes);
        if (rc == -1) return say(err, errlen, "subpath:%.*s: not a byte count (N, NK or NM)", kv, len);
        if (rc == -2 && bytes < HP_OSP_MIN_MEM) return say(err, errlen, "subpath:%.*s: too small: at least 1K", kv, len);
        if (rc == -2) return say(err, errlen, "subpath:%.*s: too large: at most 1024M", kv, len);
        p->mem = (uint32_t)bytes;
    } else if (KEY("len")) {
        if ((w = word_of(v, vlen, law_names, 4)) < 0)
            return say(err, errlen, "subpath: unknown len '%.*s' (pow2, uniform, any or pow2+3+5)", v, vlen);
        p->law = (uint32_t)w;
        if (!(*set & 1)) p->maxlen = w == HP_OSP_LEN_ANY ? HP_OSP_DEFAULT_MAXLEN_ANY : HP_OSP_DEFAULT_MAXLEN;
    } else if (KEY("maxlen")) {
        if (osp_num(kv, len, v, vlen, 2, HP_OSP_MAXLEN, &p->maxlen, err, errlen)) return -1;
        *set |= 1;
    } else if (KEY("enc")) {
        if ((w = word_of(v, vlen, enc_names, 2)) < 0)
            return say(err, errlen, "subpath: unknown enc '%.*s' (xor or exact)", v, vlen);
        p->enc = (uint32_t)w;
    } else if (KEY("minf")) {
        if (osp_num(kv, len, v, vlen, 1, HP_OSP_MAX_MINF, &p->minf, err, errlen)) return -1;
    } else if (KEY("weight")) {
        if ((w = word_of(v, vlen, weight_names, 3)) < 0)
            return say(err, errlen, "subpath: unknown weight '%.*s' (count, length or cost)", v, vlen);
        p->weight = (uint32_t)w;
    } else if (KEY("list")) {
        if ((w = word_of(v, vlen, list_names, 2)) < 0)
            return say(err, errlen, "subpath: unknown list '%.*s' (counting or concise)", v, vlen);
        p->list = (uint32_t)w;
    } else if (KEY("prefixes")) {
        if ((w = word_of(v, vlen, onoff_names, 2)) < 0)
            return say(err, errlen, "subpath: prefixes must be on or off, not '%.*s'", v, vlen);
        p->prefixes = (uint32_t)w;
        *set |= 2;
    } else if (KEY("skiponly")) {
        if (osp_num(kv, len, v, vlen, 0, 1, &p->skiponly, err, errlen)) return -1;
    } else {
        return say(err, errlen, "subpath: unknown key '%.*s' (mem, len, maxlen, enc, minf, weight, list, prefixes, skiponly)", kv, klen);
    }
#undef KEY
    return 0;
}

int hp_osp_params_parse(const char *text, size_t len, hp_osp_params *p, char *err, size_t errlen)
{
    hp_osp_params q = *p;
    int set = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *comma = memchr(text + pos, ',', len - pos);
        size_t n = comma ? (size_t)(comma - (text + pos)) : len - pos;
        if (osp_key(text + pos, n, &q, &set, err, errlen)) return -1;
        pos += n + 1;
        if (comma && pos == len) return say(err, errlen, "subpath: '%.*s' ends with a comma", text, len);
    }
    int pow2_law = q.law == HP_OSP_LEN_POW2 || q.law == HP_OSP_LEN_UNIFORM || q.law == HP_OSP_LEN_POW2_3_5;
    if (pow2_law && (q.maxlen & (q.maxlen - 1))) {
        if (errlen)
            snprintf(err, errlen, "subpath:maxlen=%u: not a power of two (len=%s needs one)", (unsigned)q.maxlen,
                     law_names[q.law]);
        return -1;
    }
    if (q.law == HP_OSP_LEN_ANY && !(set & 2)) q.prefixes = 0; /* up to maxlen - 1 offers a sample */
    if (q.law == HP_OSP_LEN_POW2_3_5 && q.maxlen < 8)
        return say(err, errlen, "subpath: len=pow2+3+5 needs maxlen=8 or more%.*s", "", 0);
    *p = q;
    return 0;
}

size_t hp_osp_params_format(char *out, size_t cap, const hp_osp_params *p)
{
    int n = snprintf(out, cap, "mem=%u,len=%s,maxlen=%u,enc=%s,minf=%u,weight=%s,list=%s,prefixes=%s%s",
                     (unsigned)p->mem,
                     hp_osp_law_name(p->law), (unsigned)p->maxlen, hp_osp_enc_name(p->enc), (unsigned)p->minf,
                     hp_osp_weight_name(p->weight), hp_osp_list_name(p->list), p->prefixes ? "on" : "off",
                     p->skiponly ? ",skiponly=1" : "");
    if (n < 0) return 0;
    return (size_t)n < cap ? (size_t)n : (cap ? cap - 1 : 0);
}

size_t hp_sample_params_format(char *out, size_t cap, const hp_bursty_params *p)
{
    int n = snprintf(out, cap, "period=%u,burst=%u,jitter=%u", (unsigned)p->period, (unsigned)p->burst,
                     (unsigned)p->jitter_pct);
    if (n < 0) return 0;
    return (size_t)n < cap ? (size_t)n : (cap ? cap - 1 : 0);
}

/* ---------------------------------------------------------------- scalar settings */

static int say_word(char *err, size_t errlen, const char *what, const char *text, const char *want)
{
    if (errlen) snprintf(err, errlen, "%s wants %s, not '%s'", what, want, text ? text : "");
    return -1;
}

static int digit_value(char c, unsigned base)
{
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return v < (int)base ? v : -1;
}

int hp_spec_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!text || !*text) return -1;
    unsigned base = 10;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, text += 2;
    if (!*text) return -1;
    uint64_t v = 0;
    for (; *text; text++) {
        int d = digit_value(*text, base);
        if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / base) return -1;
        v = v * base + (uint64_t)d;
    }
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int hp_spec_seed(const char *text, uint64_t *out, char *err, size_t errlen)
{
    if (hp_spec_u64(text, 0, UINT64_MAX, out) == 0) return 0;
    return say_word(err, errlen, "the seed", text, "a number from 0 to 18446744073709551615");
}

int hp_spec_window(const char *text, uint32_t *out, char *err, size_t errlen)
{
    uint64_t v;
    if (hp_spec_u64(text, 1, HP_BURSTY_MAX_COUNT, &v) == 0) {
        *out = (uint32_t)v;
        return 0;
    }
    return say_word(err, errlen, "the window", text, "a number from 1 to 1073741824");
}

int hp_spec_flag(const char *text, int *out, char *err, size_t errlen)
{
    if (!text || !*text || strcmp(text, "0") == 0) return *out = 0, 0;
    if (strcmp(text, "1") == 0) return *out = 1, 0;
    return say_word(err, errlen, "a flag", text, "0 or 1");
}

static const char *const mode_names[] = {"exhaustive", "off", "bursty", "timer", "shadow"};
static const char *const bursts_names[] = {"auto", "live", "patch", "count"};

static int word_index(const char *text, const char *const *names, int n)
{
    for (int i = 0; text && i < n; i++)
        if (strcmp(text, names[i]) == 0) return i;
    return -1;
}

int hp_spec_mode(const char *text, int *out, char *err, size_t errlen)
{
    int i = word_index(text, mode_names, 5);
    if (i < 0) return say_word(err, errlen, "the mode", text, "exhaustive, bursty, timer, shadow or off");
    return *out = i, 0;
}

int hp_spec_bursts(const char *text, int *out, char *err, size_t errlen)
{
    int i = word_index(text, bursts_names, 4);
    if (i < 0) return say_word(err, errlen, "bursts", text, "live, patch, count or auto");
    return *out = i, 0;
}

const char *hp_spec_mode_name(int mode) { return mode >= 0 && mode < 5 ? mode_names[mode] : "?"; }
const char *hp_spec_bursts_name(int mode) { return mode >= 0 && mode < 4 ? bursts_names[mode] : "?"; }

/* ---------------------------------------------------------------- interval profiles */

static const char *const iv_names[HP_IV_NSTREAMS] = {"value", "edges"};

const char *hp_iv_stream_name(int s) { return s >= 0 && s < HP_IV_NSTREAMS ? iv_names[s] : NULL; }

void hp_iv_defaults(hp_iv_params iv[HP_IV_NSTREAMS])
{
    for (int s = 0; s < HP_IV_NSTREAMS; s++)
        iv[s] = (hp_iv_params){.budget = HP_IV_DEFAULT_BUDGET, .n_tables = 4, .total_counters = 2048,
                               .conservative = 1, .retain = 1, .shield = 1, .interval = HP_IV_DEFAULT_INTERVAL,
                               .threshold = HP_IV_DEFAULT_THRESHOLD, .variant = HP_IV_DEFAULT_VARIANT};
}

int hp_iv_clause_is(const char *text, size_t len)
{
    const char *colon = memchr(text, ':', len);
    if (!colon) return 0;
    for (const char *k = colon + 1; k + 8 <= text + len; k++)
        if ((k[-1] == ':' || k[-1] == ',') && memcmp(k, "summary=", 8) == 0) {
            const char *v = k + 8, *e = v;
            while (e < text + len && *e != ',') e++;
            return !hp_pv_summary_word(v, (size_t)(e - v)); /* tnv, gm: pathval_spec.h */
        }
    return 0;
}

/* "1%", "0.5%" (percent) or "0.01" (fraction) into a fraction in (0, 1]: digits / 10^k in one
 * division, so "1%" and "0.01" give the same double. */
static int parse_threshold(const char *s, size_t len, double *out)
{
    int pct = len && s[len - 1] == '%', dot = 0;
    size_t n = len - (size_t)pct;
    uint64_t mant = 0;
    double div = pct ? 100 : 1;
    if (n == 0 || n > 18) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && !dot) { dot = 1; continue; }
        if (s[i] < '0' || s[i] > '9') return -1;
        mant = mant * 10 + (uint64_t)(s[i] - '0');
        if (dot) div *= 10;
    }
    double v = (double)mant / div;
    if (!(v > 0 && v <= 1)) return -1;
    return *out = v, 0;
}

static int iv_num(const char *v, size_t n, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char buf[24];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, v, n), buf[n] = 0;
    return hp_spec_u64(buf, lo, hi, out);
}

#define IV_KEYS "summary, tables, counters, bits, conservative, reset, retain, shield, interval, threshold, exact, budget, hash, variant"

static int iv_set_key(const char *kv, size_t len, hp_iv_params *p, char *err, size_t errlen)
{
    const char *eq = memchr(kv, '=', len);
    if (!eq) return say(err, errlen, "'%.*s' is not KEY=VALUE (" IV_KEYS ")", kv, len);
    size_t kl = (size_t)(eq - kv), vl = len - kl - 1;
    const char *v = eq + 1;
    static const char *const bools[] = {"conservative", "reset", "retain", "shield", "exact"};
    int *const bool_fields[] = {&p->conservative, &p->reset, &p->retain, &p->shield, &p->exact};
    uint64_t x;
    if (kl == 7 && !memcmp(kv, "summary", 7)) {
        if (vl != 9 || memcmp(v, "multihash", 9)) return say(err, errlen, "'%.*s': the only interval summary is multihash", kv, len);
        return 0;
    }
    if (kl == 4 && !memcmp(kv, "hash", 4)) {
        if (vl == 5 && !memcmp(v, "paper", 5)) return p->fast_hash = 0, 0;
        if (vl == 4 && !memcmp(v, "fast", 4)) return p->fast_hash = 1, 0;
        return say(err, errlen, "'%.*s': the hash is paper or fast", kv, len);
    }
    if (kl == 7 && !memcmp(kv, "variant", 7)) {
        for (int i = 0; hp_iv_variant_name(i); i++)
            if (vl == strlen(hp_iv_variant_name(i)) && !memcmp(v, hp_iv_variant_name(i), vl)) return p->variant = i, 0;
        return say(err, errlen, "'%.*s': the variant is paper, rebalanced or half", kv, len);
    }
    if (kl == 9 && !memcmp(kv, "threshold", 9)) {
        if (parse_threshold(v, vl, &p->threshold)) return say(err, errlen, "'%.*s': the threshold is a percentage in (0%%, 100%%] (1%%) or a fraction (0.01)", kv, len);
        return 0;
    }
    for (int i = 0; i < 5; i++)
        if (kl == strlen(bools[i]) && !memcmp(kv, bools[i], kl)) {
            if (iv_num(v, vl, 0, 1, &x)) return say(err, errlen, "'%.*s': takes 0 or 1", kv, len);
            return *bool_fields[i] = (int)x, 0;
        }
    static const char *const nums[] = {"tables", "counters", "bits", "interval", "budget"};
    static const uint64_t lo[] = {1, 1, 1, 1, 2}, hi[] = {64, 1u << 28, 32, 1ull << 40, 1u << 20};
    for (int i = 0; i < 5; i++)
        if (kl == strlen(nums[i]) && !memcmp(kv, nums[i], kl)) {
            if (iv_num(v, vl, lo[i], hi[i], &x)) {
                if (errlen) snprintf(err, errlen, "'%.*s': %s must be a number from %llu to %llu", (int)len, kv, nums[i], (unsigned long long)lo[i], (unsigned long long)hi[i]);
                return -1;
            }
            if (i == 0) p->n_tables = (uint32_t)x;
            else if (i == 1) p->total_counters = (uint32_t)x;
            else if (i == 2) p->counter_bits = (uint32_t)x;
            else if (i == 3) p->interval = x;
            else p->budget = (uint32_t)x;
            return 0;
        }
    return say(err, errlen, "unknown key '%.*s' (" IV_KEYS ")", kv, kl);
}

uint64_t hp_iv_threshold_count(const hp_iv_params *p)
{
    double t = p->threshold * (double)p->interval;
    uint64_t T = (uint64_t)t;
    if ((double)T < t - 1e-9) T++;
    return T ? T : 1;
}

uint32_t hp_iv_counter_bits(const hp_iv_params *p)
{
    if (p->counter_bits) return p->counter_bits;
    uint64_t T = hp_iv_threshold_count(p);
    uint32_t b = 1;
    while (b < 32 && (T >> b) != 0) b++;
    return b;
}

static int iv_check(const char *text, size_t len, const hp_iv_params *p, char *err, size_t errlen)
{
    if (p->total_counters < p->n_tables || p->total_counters % p->n_tables) {
        if (errlen) snprintf(err, errlen, "'%.*s': counters %u is not divisible by tables %u", (int)len, text, p->total_counters, p->n_tables);
        return -1;
    }
    uint64_t T = hp_iv_threshold_count(p);
    uint32_t b = hp_iv_counter_bits(p);
    if (b < 32 && T > (1ull << b) - 1) {
        if (errlen) snprintf(err, errlen, "'%.*s': %u-bit counters cannot hold the threshold T = %llu (interval x threshold)", (int)len, text, b, (unsigned long long)T);
        return -1;
    }
    hp_multihash_params mp;
    if (hp_iv_multihash_params(p, 0, &mp)) {
        if (errlen) snprintf(err, errlen, "'%.*s': variant %s leaves no room for %u counters in the area of the %u-counter design", (int)len, text,
                             hp_iv_variant_name(p->variant), p->n_tables, p->total_counters);
        return -1;
    }
    return 0;
}

int hp_iv_clause_parse(const char *text, size_t len, hp_iv_params iv[HP_IV_NSTREAMS], char *err, size_t errlen)
{
    const char *colon = memchr(text, ':', len);
    size_t tl = colon ? (size_t)(colon - text) : len;
    int s = -1;
    for (int i = 0; i < HP_IV_NSTREAMS; i++)
        if (strlen(iv_names[i]) == tl && !memcmp(iv_names[i], text, tl)) s = i;
    if (s < 0) return say(err, errlen, "'%.*s': interval profiles take the stream value or edges", text, tl);
    if (!hp_iv_clause_is(text, len)) return say(err, errlen, "'%.*s': an interval clause needs summary=multihash", text, len);
    hp_iv_params d[HP_IV_NSTREAMS], q;
    hp_iv_defaults(d);
    q = d[s];
    size_t pos = tl + 1;
    while (pos < len) {
        const char *comma = memchr(text + pos, ',', len - pos);
        size_t n = comma ? (size_t)(comma - (text + pos)) : len - pos;
        if (iv_set_key(text + pos, n, &q, err, errlen)) return -1;
        pos += n + 1;
        if (comma && pos == len) return say(err, errlen, "'%.*s' ends with a comma", text, len);
    }
    if (iv_check(text, len, &q, err, errlen)) return -1;
    q.enabled = 1;
    iv[s] = q;
    return 0;
}

int hp_iv_spec_parse(const char *text, hp_iv_params iv[HP_IV_NSTREAMS], char *err, size_t errlen)
{
    size_t len = strlen(text), pos = 0;
    hp_iv_defaults(iv);
    if (len == 0) return say(err, errlen, "empty interval spec%.*s", "", 0);
    while (pos < len) {
        const char *semi = memchr(text + pos, ';', len - pos);
        size_t n = semi ? (size_t)(semi - (text + pos)) : len - pos;
        if (n == 0) return say(err, errlen, "empty clause in '%.*s'", text, len);
        if (hp_iv_clause_parse(text + pos, n, iv, err, errlen)) return -1;
        pos += n + 1;
    }
    return 0;
}

static const char *const iv_variants[] = {"paper", "rebalanced", "half"}; /* HP_MH_VARIANT_* */

const char *hp_iv_variant_name(int v) { return v >= 0 && v < 3 ? iv_variants[v] : NULL; }

int hp_iv_multihash_params(const hp_iv_params *p, uint64_t seed, hp_multihash_params *out)
{
    hp_multihash_params d = {p->n_tables, p->total_counters, hp_iv_counter_bits(p), p->threshold, p->interval,
                             p->shield, p->retain, p->reset, p->conservative, seed, p->fast_hash, 0};
    uint32_t acc_div, area_div;
    if (p->variant == HP_MH_VARIANT_PAPER) return hp_multihash_bytes(&d) ? (*out = d, 0) : -1;
    if (hp_multihash_variant_divisors(p->variant, &acc_div, &area_div)) return -1;
    return hp_multihash_rebalance(&d, acc_div, area_div, out);
}

size_t hp_iv_params_format(char *out, size_t cap, int stream, const hp_iv_params *p)
{
    int n = snprintf(out, cap,
                     "%s:summary=multihash,tables=%u,counters=%u,bits=%u,conservative=%d,reset=%d,retain=%d,shield=%d,"
                     "interval=%llu,threshold=%.17g,exact=%d,budget=%u,hash=%s,variant=%s",
                     hp_iv_stream_name(stream) ? hp_iv_stream_name(stream) : "?", p->n_tables, p->total_counters,
                     hp_iv_counter_bits(p), p->conservative, p->reset, p->retain, p->shield,
                     (unsigned long long)p->interval, p->threshold, p->exact, p->budget,
                     p->fast_hash ? "fast" : "paper", hp_iv_variant_name(p->variant) ? hp_iv_variant_name(p->variant) : "?");
    if (n < 0) return 0;
    return (size_t)n < cap ? (size_t)n : (cap ? cap - 1 : 0);
}

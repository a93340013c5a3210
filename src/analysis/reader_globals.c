/* reader_globals.c — the reader's file-wide sections and keys (reader.h): INFO (every complete
 * section up to the last GROUP_END; a key written again keeps its place and takes the new value),
 * MODULES (the union of all, deduplicated by base and path), BLOCKMAP (the union of all: guard ->
 * pc, flags), and a bursty profile's sampling keys read from INFO (malformed values: a warning).
 * Every INFO key is spelled through core/format/info_keys.h.
 * Invariants: strings kept are NUL-terminated with control characters replaced by '?'; a module
 * record's lengths are checked against its section before its bytes are read.
 */
#define _GNU_SOURCE
#include "analysis/reader.h"
#include "core/base/bytes.h"
#include "core/control/spec.h"
#include "core/format/info_keys.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of n bytes with control characters replaced by '?'. */
static char *clean_string(const uint8_t *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    for (size_t i = 0; i < n; i++) c[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
    c[n] = 0;
    return c;
}

/* ---- pass 2: INFO, MODULES, BLOCKMAP ---- */

static uint64_t hash_string(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    while (*s) h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
    return h;
}

/* Sets key to value: a key seen before (per-group INFO repeats them) keeps its place and takes
 * the new value. Takes ownership of k and v. */
static int set_info(hp_reader *r, char *k, char *v)
{
    hp_profile *p = r->p;
    hp_pair_item *it = hp_pairmap_get(&r->infokeys, hash_string(k), 0);
    if (!it) return free(k), free(v), hp_rd_oom(r);
    if (it->v1 && strcmp(p->info[it->v1 - 1].key, k) == 0) {
        free(p->info[it->v1 - 1].value);
        p->info[it->v1 - 1].value = v;
        free(k);
        return 1;
    }
    if (!hp_rd_reserve((void **)&p->info, &r->info_cap, p->ninfo, sizeof *p->info))
        return free(k), free(v), hp_rd_oom(r);
    p->info[p->ninfo++] = (hp_info_kv){k, v};
    if (!it->v1) it->v1 = p->ninfo; /* on a hash collision the first key keeps the slot */
    return 1;
}

static int add_info(hp_reader *r, const uint8_t *line, size_t n)
{
    const uint8_t *eq = memchr(line, '=', n);
    size_t klen = eq ? (size_t)(eq - line) : n;
    char *k = clean_string(line, klen);
    char *v = eq ? clean_string(eq + 1, n - klen - 1) : clean_string(line, 0);
    if (!k || !v) return free(k), free(v), hp_rd_oom(r);
    return set_info(r, k, v);
}

static int decode_info(hp_reader *r, const uint8_t *in, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        const uint8_t *nl = memchr(in + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (in + pos)) : len - pos;
        if (n && !add_info(r, in + pos, n)) return 0;
        pos += n + 1;
    }
    return 1;
}

static int same_module(const hp_module *m, uint64_t base, const uint8_t *path, size_t plen)
{
    return m->base == base && strlen(m->path) == plen && memcmp(m->path, path, plen) == 0;
}

static int add_module(hp_reader *r, const hp_rec_module *rec, const uint8_t *path, const uint8_t *id)
{
    hp_profile *p = r->p;
    for (size_t i = 0; i < p->nmodules; i++)
        if (same_module(&p->modules[i], rec->base, path, rec->path_len)) return 1;
    if (!hp_rd_reserve((void **)&p->modules, &r->modules_cap, p->nmodules, sizeof *p->modules))
        return hp_rd_oom(r);
    hp_module m = {rec->base, rec->lo, rec->hi, clean_string(path, rec->path_len), NULL, rec->buildid_len};
    m.buildid = malloc(rec->buildid_len ? rec->buildid_len : 1);
    if (!m.path || !m.buildid) {
        free(m.path);
        free(m.buildid);
        return hp_rd_oom(r);
    }
    if (rec->buildid_len) memcpy(m.buildid, id, rec->buildid_len);
    p->modules[p->nmodules++] = m;
    return 1;
}

static int decode_modules(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(r, s), (size_t)s->length);
    while (hp_rbuf_left(&b) > 0) {
        size_t at = b.pos;
        hp_rec_module rec;
        rec.base = hp_get_u64(&b);
        rec.lo = hp_get_u64(&b);
        rec.hi = hp_get_u64(&b);
        rec.path_len = hp_get_u32(&b);
        rec.buildid_len = hp_get_u32(&b);
        const uint8_t *path = b.ok ? hp_get_bytes(&b, rec.path_len) : NULL;
        const uint8_t *id = b.ok ? hp_get_bytes(&b, rec.buildid_len) : NULL;
        if (!b.ok)
            return hp_rd_fail(r, "section %zu (modules) at offset %" PRIu64 ": module record at byte %zu runs "
                        "past the end of the section", index, s->offset, at);
        if (!add_module(r, &rec, path, id)) return 0;
    }
    return 1;
}

static int decode_blockmap(hp_reader *r, const hp_section_ref *s)
{
    const uint8_t *in = hp_rd_payload(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_BLOCK_SIZE) {
        hp_rec_block rec;
        hp_fmt_get_block(in + off, &rec);
        hp_pair_item *it = hp_pairmap_get(&r->blockmap, rec.guard, 0);
        if (!it) return hp_rd_oom(r);
        it->v1 = rec.pc;
        it->v2 = rec.flags;
    }
    return 1;
}

int hp_rd_decode_globals(hp_reader *r)
{
    for (size_t i = 0; i < r->p->nsections; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        if (!s->complete) continue;
        int ok = 1;
        int in_tail = r->p->have_group && s->group < 0;
        if (s->type == HP_SEC_INFO && in_tail) continue; /* belongs to the incomplete group */
        if (s->type == HP_SEC_INFO) ok = decode_info(r, hp_rd_payload(r, s), (size_t)s->length);
        else if (s->type == HP_SEC_MODULES) ok = decode_modules(r, i, s);
        else if (s->type == HP_SEC_BLOCKMAP) ok = decode_blockmap(r, s);
        if (!ok) return 0;
    }
    r->p->nblockmap = r->blockmap.count;
    return 1;
}

/* ---- pass 4: bursty sampling keys ---- */

static int parse_count(const char *v, uint64_t *out)
{
    char *end = NULL;
    if (!v[0] || v[0] < '0' || v[0] > '9') return -1;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return errno || *end ? -1 : 0;
}

/* "sample.<type>" or "sample.<type>.enabled". */
static void sample_key(hp_reader *r, const char *rest, const char *value)
{
    const char *dot = strchr(rest, '.');
    size_t tlen = dot ? (size_t)(dot - rest) : strlen(rest);
    int type = hp_sample_type_parse(rest, tlen);
    hp_sample_stat *st = type >= 0 ? &r->p->sample[type] : NULL;
    char err[160];
    if (!st) return;
    if (dot && strcmp(dot, HP_INFO_ENABLED_SUFFIX) == 0) {
        st->enabled = strcmp(value, "1") == 0;
        return;
    }
    hp_bursty_params q = {HP_SAMPLE_DEFAULT_PERIOD, HP_SAMPLE_DEFAULT_BURST, 0, 0};
    if (dot) return;
    if (hp_sample_params_parse(value, strlen(value), &q, err, sizeof err)) {
        hp_rd_warn(r, "%s: INFO " HP_INFO_SAMPLE_PREFIX "%.*s: %s", r->p->name, (int)tlen, rest, err);
        return;
    }
    st->known = 1, st->period = q.period, st->burst = q.burst, st->jitter = q.jitter_pct;
}

/* "thread.<tid>.events.<type>" or "thread.<tid>.sampled.<type>" (other thread keys: ignored). */
static void thread_key(hp_reader *r, const char *rest, const char *value)
{
    const char *dot = strchr(rest, '.');
    uint64_t v;
    if (!dot) return;
    static const char sampled_key[] = "." HP_INFO_THREAD_SAMPLED ".", events_key[] = "." HP_INFO_THREAD_EVENTS ".";
    int sampled = strncmp(dot, sampled_key, sizeof sampled_key - 1) == 0;
    if (!sampled && strncmp(dot, events_key, sizeof events_key - 1) != 0) return;
    const char *name = dot + (sampled ? sizeof sampled_key : sizeof events_key) - 1;
    int type = hp_sample_type_parse(name, strlen(name));
    if (type < 0) return;
    if (parse_count(value, &v)) {
        hp_rd_warn(r, "%s: INFO " HP_INFO_THREAD_PREFIX "%s: not a count: '%s'", r->p->name, rest, value);
        return;
    }
    uint64_t *sum = sampled ? &r->p->sample[type].sampled : &r->p->sample[type].events;
    *sum = hp_sat_add(*sum, v);
}

void hp_rd_decode_sampling(hp_reader *r)
{
    hp_profile *p = r->p;
    static const char sample_prefix[] = HP_INFO_SAMPLE_PREFIX, thread_prefix[] = HP_INFO_THREAD_PREFIX;
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    if (!mode || strcmp(mode, HP_MODE_BURSTY) != 0) return;
    p->bursty = 1;
    for (size_t i = 0; i < p->ninfo; i++) {
        const char *k = p->info[i].key, *v = p->info[i].value;
        if (strncmp(k, sample_prefix, sizeof sample_prefix - 1) == 0) sample_key(r, k + sizeof sample_prefix - 1, v);
        else if (strncmp(k, thread_prefix, sizeof thread_prefix - 1) == 0) thread_key(r, k + sizeof thread_prefix - 1, v);
    }
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        if (p->sample[t].sampled > p->sample[t].events)
            hp_rd_warn(r, "%s: INFO says more %s events sampled than seen", p->name, hp_sample_type_name(t));
}


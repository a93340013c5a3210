/* profile.c — reads a hotprof.data file into an hp_profile (see profile.h for what is kept).
 *
 * Reading is three passes over bytes already in memory:
 *   1. scan: check the file header, then walk the sections, checking each header (magic, CRC,
 *      length against what is left of the file) and each payload CRC; a section cut short by
 *      the end of the file, or whose header is still the writer's all-zero placeholder, ends
 *      the walk (the tail of a killed run); anything else is an error;
 *   2. global sections: MODULES and BLOCKMAP are taken from every complete section, INFO from
 *      every complete section up to the last GROUP_END (the runtime writes one per group; a key
 *      written again takes its new value);
 *   3. the last complete group: its data sections are decoded and summed across threads (data
 *      stream detectors: deserialized, validated and merged, then their hot streams kept);
 *   4. a bursty profile's sampling keys are read from INFO (malformed ones: a warning).
 * Every decoder first checks that the payload has the exact shape its type requires (a multiple
 * of the record size, a fixed size, module lengths inside the payload), so a record is never
 * read past its section. Nothing here trusts a length it has not compared with what is left.
 */
#define _GNU_SOURCE
#include "analysis/profile.h"
#include "analysis/pairmap.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include "core/control/spec.h"
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct reader {
    const uint8_t *data;
    size_t len;
    hp_profile *p;
    char *err;
    size_t errlen;
    int truncated;           /* the last section was cut short */
    hp_pairmap funcs, pairs, blocks, edges, blockmap;
    hp_pairmap infokeys;     /* hash of an INFO key -> 1 + its index in p->info */
    hp_ds_state *ds;         /* the group's data stream detectors merged so far (in ds_mem) */
    void *ds_mem;
    size_t threads_cap, sections_cap, info_cap, modules_cap;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    if (!r->errlen) return 0;
    int n = snprintf(r->err, r->errlen, "%s: ", r->p->name);
    if (n < 0 || (size_t)n >= r->errlen) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return 0;
}

static int out_of_memory(reader *r) { return fail(r, "out of memory"); }

/* Grows *arr (elements of size elem) so that it holds at least n+1 elements. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 1;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *a = realloc(*arr, ncap * elem);
    if (!a) return 0;
    *arr = a;
    *cap = ncap;
    return 1;
}

static void add_warning(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(reader *r, const char *fmt, ...)
{
    hp_profile *p = r->p;
    char **w = realloc(p->warnings, (p->nwarnings + 1) * sizeof *w);
    if (!w) return;
    p->warnings = w;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&w[p->nwarnings], fmt, ap) >= 0) p->nwarnings++;
    va_end(ap);
}

/* A NUL-terminated copy of n bytes with control characters replaced by '?'. */
static char *clean_string(const uint8_t *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    for (size_t i = 0; i < n; i++) c[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
    c[n] = 0;
    return c;
}

static const uint8_t *payload_of(const reader *r, const hp_section_ref *s)
{
    return r->data + s->offset + HP_FMT_SECTION_HEADER_SIZE;
}

/* ---- pass 1: file header and section walk ---- */

static int check_file_header(reader *r)
{
    const char *msg = hp_fmt_parse_file_header(r->data, r->len, &r->p->header);
    if (!msg) return 1;
    if (strncmp(msg, "unsupported", 11) == 0) /* the parser has filled in the version */
        return fail(r, "unsupported profile format version %u (this hotprof reads %d)",
                    (unsigned)r->p->header.major, HP_FMT_MAJOR);
    return fail(r, "%s", msg);
}

static int add_section(reader *r, uint32_t type, uint64_t offset, uint64_t length, int complete)
{
    hp_profile *p = r->p;
    if (!reserve((void **)&p->sections, &r->sections_cap, p->nsections, sizeof *p->sections))
        return out_of_memory(r);
    p->sections[p->nsections++] = (hp_section_ref){type, offset, length, -1, complete};
    return 1;
}

/* The runtime writes a section's header as 24 zero bytes first and overwrites it once the
 * payload is complete: a zero header is a section the writer never finished. */
static int is_placeholder(const uint8_t *h)
{
    for (unsigned i = 0; i < HP_FMT_SECTION_HEADER_SIZE; i++)
        if (h[i]) return 0;
    return 1;
}

/* Walks the sections; stops quietly at a section cut short by the end of the file or left
 * unfinished by the writer (zero header). */
static int scan_sections(reader *r)
{
    size_t off = HP_FMT_FILE_HEADER_SIZE;
    while (off < r->len) {
        size_t left = r->len - off, index = r->p->nsections;
        hp_fmt_section sh;
        if (left < HP_FMT_SECTION_HEADER_SIZE) {
            r->truncated = 1;
            return 1;
        }
        if (is_placeholder(r->data + off)) { /* the writer was stopped inside this section */
            r->truncated = 1;
            return add_section(r, 0, off, left - HP_FMT_SECTION_HEADER_SIZE, 0);
        }
        const char *msg = hp_fmt_parse_section_header(r->data + off, left, &sh);
        if (msg) return fail(r, "section %zu at offset %zu: %s", index, off, msg);
        if (sh.length > left - HP_FMT_SECTION_HEADER_SIZE) {
            r->truncated = 1;
            return add_section(r, sh.type, off, sh.length, 0);
        }
        const uint8_t *payload = r->data + off + HP_FMT_SECTION_HEADER_SIZE;
        if (hp_crc32(0, payload, (size_t)sh.length) != sh.payload_crc)
            return fail(r, "section %zu (%s) checksum mismatch at offset %zu", index,
                        hp_section_type_name(sh.type), off);
        if (!add_section(r, sh.type, off, sh.length, 1)) return 0;
        off += HP_FMT_SECTION_HEADER_SIZE + (size_t)sh.length;
    }
    return 1;
}

/* 1 and the record size a payload of this type must be a multiple of (*fixed: its exact size);
 * 0 for free-form payloads (INFO, MODULES, SUMMARY, unknown types). */
static int payload_shape(uint32_t type, uint64_t *unit, int *fixed)
{
    *fixed = 0;
    switch (type) {
    case HP_SEC_FUNCS: *unit = HP_REC_FUNC_SIZE; return 1;
    case HP_SEC_CALLPAIRS: *unit = HP_REC_CALLPAIR_SIZE; return 1;
    case HP_SEC_BLOCKMAP: *unit = HP_REC_BLOCK_SIZE; return 1;
    case HP_SEC_BLOCKS: *unit = HP_REC_COUNT_SIZE; return 1;
    case HP_SEC_EDGES: *unit = HP_REC_EDGE_SIZE; return 1;
    case HP_SEC_THREAD: *unit = 16; *fixed = 1; return 1;
    case HP_SEC_GROUP_END: *unit = 24; *fixed = 1; return 1;
    default: return 0;
    }
}

static int check_shapes(reader *r)
{
    for (size_t i = 0; i < r->p->nsections; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        uint64_t unit;
        int fixed;
        if (!s->complete) continue;
        if (s->type == HP_SEC_SUMMARY && s->length < 8)
            return fail(r, "section %zu (summary) at offset %" PRIu64 " is too short", i, s->offset);
        if (!payload_shape(s->type, &unit, &fixed)) continue;
        if (fixed ? s->length != unit : s->length % unit != 0)
            return fail(r, "section %zu (%s) at offset %" PRIu64 " has a bad length %" PRIu64
                        " (%s %" PRIu64 ")", i, hp_section_type_name(s->type), s->offset, s->length,
                        fixed ? "expected" : "not a multiple of", unit);
    }
    return 1;
}

/* Numbers the groups; sections after the last GROUP_END keep group -1. Returns the index of the
 * first section of the last complete group in *first and of its GROUP_END in *end. */
static void assign_groups(reader *r, size_t *first, size_t *end)
{
    hp_profile *p = r->p;
    size_t start = 0;
    int g = 0;
    for (size_t i = 0; i < p->nsections; i++) {
        if (p->sections[i].type != HP_SEC_GROUP_END || !p->sections[i].complete) continue;
        for (size_t j = start; j <= i; j++) p->sections[j].group = g;
        *first = start;
        *end = i;
        start = i + 1;
        g++;
    }
    p->ngroups = (size_t)g;
    p->have_group = g > 0;
}

static int is_data_section(uint32_t type)
{
    return type != HP_SEC_INFO && type != HP_SEC_MODULES && type != HP_SEC_BLOCKMAP;
}

static void warn_about_tail(reader *r)
{
    hp_profile *p = r->p;
    int tail_data = 0;
    for (size_t i = 0; i < p->nsections; i++)
        if (p->sections[i].group < 0 && is_data_section(p->sections[i].type)) tail_data = 1;
    if (r->truncated)
        add_warning(r, "%s: the last section is unfinished (cut short, or its header never written)", p->name);
    if (tail_data || (r->truncated && p->have_group))
        add_warning(r, "%s: profile ends with an incomplete group (program killed while writing?)", p->name);
    if (!p->have_group)
        add_warning(r, "%s: profile holds no complete group of counts (program killed early?)", p->name);
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
static int set_info(reader *r, char *k, char *v)
{
    hp_profile *p = r->p;
    hp_pair_item *it = hp_pairmap_get(&r->infokeys, hash_string(k), 0);
    if (!it) return free(k), free(v), out_of_memory(r);
    if (it->v1 && strcmp(p->info[it->v1 - 1].key, k) == 0) {
        free(p->info[it->v1 - 1].value);
        p->info[it->v1 - 1].value = v;
        free(k);
        return 1;
    }
    if (!reserve((void **)&p->info, &r->info_cap, p->ninfo, sizeof *p->info))
        return free(k), free(v), out_of_memory(r);
    p->info[p->ninfo++] = (hp_info_kv){k, v};
    if (!it->v1) it->v1 = p->ninfo; /* on a hash collision the first key keeps the slot */
    return 1;
}

static int add_info(reader *r, const uint8_t *line, size_t n)
{
    const uint8_t *eq = memchr(line, '=', n);
    size_t klen = eq ? (size_t)(eq - line) : n;
    char *k = clean_string(line, klen);
    char *v = eq ? clean_string(eq + 1, n - klen - 1) : clean_string(line, 0);
    if (!k || !v) return free(k), free(v), out_of_memory(r);
    return set_info(r, k, v);
}

static int decode_info(reader *r, const uint8_t *in, size_t len)
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

static int add_module(reader *r, const hp_rec_module *rec, const uint8_t *path, const uint8_t *id)
{
    hp_profile *p = r->p;
    for (size_t i = 0; i < p->nmodules; i++)
        if (same_module(&p->modules[i], rec->base, path, rec->path_len)) return 1;
    if (!reserve((void **)&p->modules, &r->modules_cap, p->nmodules, sizeof *p->modules))
        return out_of_memory(r);
    hp_module m = {rec->base, rec->lo, rec->hi, clean_string(path, rec->path_len), NULL, rec->buildid_len};
    m.buildid = malloc(rec->buildid_len ? rec->buildid_len : 1);
    if (!m.path || !m.buildid) {
        free(m.path);
        free(m.buildid);
        return out_of_memory(r);
    }
    if (rec->buildid_len) memcpy(m.buildid, id, rec->buildid_len);
    p->modules[p->nmodules++] = m;
    return 1;
}

static int decode_modules(reader *r, size_t index, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(payload_of(r, s), (size_t)s->length);
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
            return fail(r, "section %zu (modules) at offset %" PRIu64 ": module record at byte %zu runs "
                        "past the end of the section", index, s->offset, at);
        if (!add_module(r, &rec, path, id)) return 0;
    }
    return 1;
}

static int decode_blockmap(reader *r, const hp_section_ref *s)
{
    const uint8_t *in = payload_of(r, s);
    for (uint64_t off = 0; off < s->length; off += HP_REC_BLOCK_SIZE) {
        hp_rec_block rec;
        hp_fmt_get_block(in + off, &rec);
        hp_pair_item *it = hp_pairmap_get(&r->blockmap, rec.guard, 0);
        if (!it) return out_of_memory(r);
        it->v1 = rec.pc;
        it->v2 = rec.flags;
    }
    return 1;
}

static int decode_globals(reader *r)
{
    for (size_t i = 0; i < r->p->nsections; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        if (!s->complete) continue;
        int ok = 1;
        int in_tail = r->p->have_group && s->group < 0;
        if (s->type == HP_SEC_INFO && in_tail) continue; /* belongs to the incomplete group */
        if (s->type == HP_SEC_INFO) ok = decode_info(r, payload_of(r, s), (size_t)s->length);
        else if (s->type == HP_SEC_MODULES) ok = decode_modules(r, i, s);
        else if (s->type == HP_SEC_BLOCKMAP) ok = decode_blockmap(r, s);
        if (!ok) return 0;
    }
    r->p->nblockmap = r->blockmap.count;
    return 1;
}

/* ---- pass 3: the last complete group ---- */

/* Adds (a, b) to the values of key (k1, k2). */
static int accumulate(reader *r, hp_pairmap *m, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b)
{
    hp_pair_item *it = hp_pairmap_get(m, k1, k2);
    if (!it) return out_of_memory(r);
    it->v1 = hp_sat_add(it->v1, a);
    it->v2 = hp_sat_add(it->v2, b);
    return 1;
}

static int decode_records(reader *r, const hp_section_ref *s)
{
    const uint8_t *in = payload_of(r, s);
    uint64_t unit, n;
    int fixed;
    payload_shape(s->type, &unit, &fixed);
    n = s->length / unit;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *rec = in + i * unit;
        int ok = 1;
        if (s->type == HP_SEC_FUNCS) {
            hp_rec_func f;
            hp_fmt_get_func(rec, &f);
            ok = accumulate(r, &r->funcs, f.addr, 0, f.calls, f.backedges);
        } else if (s->type == HP_SEC_CALLPAIRS) {
            hp_rec_callpair c;
            hp_fmt_get_callpair(rec, &c);
            ok = accumulate(r, &r->pairs, c.site, c.callee, c.count, 0);
        } else if (s->type == HP_SEC_BLOCKS) {
            hp_rec_count c;
            hp_fmt_get_count(rec, &c);
            ok = accumulate(r, &r->blocks, c.guard, 0, c.count, 0);
        } else {
            hp_rec_edge e;
            hp_fmt_get_edge(rec, &e);
            ok = accumulate(r, &r->edges, e.from, e.to, e.count, 0);
        }
        if (!ok) return 0;
    }
    return 1;
}

static int decode_thread(reader *r, const hp_section_ref *s)
{
    hp_profile *p = r->p;
    hp_rbuf b = hp_rbuf_make(payload_of(r, s), (size_t)s->length);
    if (!reserve((void **)&p->threads, &r->threads_cap, p->nthreads, sizeof *p->threads))
        return out_of_memory(r);
    p->threads[p->nthreads].tid = hp_get_u64(&b);
    p->threads[p->nthreads].events = hp_get_u64(&b);
    p->nthreads++;
    return 1;
}

static void decode_group_end(reader *r, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(payload_of(r, s), (size_t)s->length);
    r->p->group_seq = hp_get_u64(&b);
    r->p->group_flags = hp_get_u64(&b);
    r->p->exit_status = (int64_t)hp_get_u64(&b);
}

/* ---- data stream summaries ---- */

#define DS_MAX_BUDGET ((size_t)256 << 20) /* a detector needing more memory is not ours */

static int ds_corrupt(reader *r, size_t index, const hp_section_ref *s, const char *why)
{
    return fail(r, "section %zu (summary) at offset %" PRIu64 ": corrupt datastream summary (%s)", index,
                s->offset, why);
}

/* Deserializes one detector into fresh memory; *mem owns it. NULL after fail(). */
static hp_ds_state *ds_load(reader *r, size_t index, const hp_section_ref *s, void **mem)
{
    const uint8_t *blob = payload_of(r, s) + 8;
    size_t len = (size_t)s->length - 8;
    hp_ds_config c;
    if (hp_ds_peek_config(blob, len, &c)) return ds_corrupt(r, index, s, "bad header"), NULL;
    size_t budget = hp_ds_bytes_for(&c);
    if (!budget || budget > DS_MAX_BUDGET) return ds_corrupt(r, index, s, "configuration too large"), NULL;
    *mem = aligned_alloc(64, (budget + 63) / 64 * 64);
    if (!*mem) return out_of_memory(r), NULL;
    hp_ds_state *ds = hp_ds_deserialize(*mem, budget, blob, len);
    if (!ds) free(*mem), *mem = NULL, ds_corrupt(r, index, s, "failed validation");
    return ds;
}

static int decode_summary(reader *r, size_t index, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(payload_of(r, s), 8);
    r->p->nsummaries++;
    if (hp_get_u32(&b) != HP_PROFILE_DATASTREAM) return 1; /* a profile type we do not read */
    void *mem = NULL;
    hp_ds_state *ds = ds_load(r, index, s, &mem);
    if (!ds) return 0;
    r->p->ds.states++;
    if (!r->ds) {
        r->ds = ds, r->ds_mem = mem;
        return 1;
    }
    if (hp_ds_merge(r->ds, ds)) {
        add_warning(r, "%s: section %zu (summary): datastream detector of another configuration skipped",
                    r->p->name, index);
        r->p->ds.states--;
    }
    free(mem);
    return 1;
}

/* The merged detector's hot streams into p->ds. */
static int export_streams(reader *r)
{
    hp_stream_set *set = &r->p->ds;
    if (!r->ds) return 1;
    set->streams = calloc(HP_PROFILE_MAX_STREAMS, sizeof *set->streams);
    if (!set->streams) return out_of_memory(r);
    set->refs_seen = r->ds->refs_seen;
    set->bursts = r->ds->bursts;
    set->nstreams = hp_ds_hot(r->ds, set->streams, HP_PROFILE_MAX_STREAMS);
    return 1;
}

static int decode_group(reader *r, size_t first, size_t end)
{
    for (size_t i = first; i <= end; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        switch (s->type) {
        case HP_SEC_FUNCS: case HP_SEC_CALLPAIRS: case HP_SEC_BLOCKS: case HP_SEC_EDGES:
            if (!decode_records(r, s)) return 0;
            break;
        case HP_SEC_THREAD:
            if (!decode_thread(r, s)) return 0;
            break;
        case HP_SEC_SUMMARY:
            if (!decode_summary(r, i, s)) return 0;
            break;
        case HP_SEC_GROUP_END: decode_group_end(r, s); break;
        default: break;
        }
    }
    return 1;
}

/* ---- turning the maps into arrays ---- */

static int export_funcs_pairs(reader *r)
{
    hp_profile *p = r->p;
    p->funcs = calloc(r->funcs.count + 1, sizeof *p->funcs);
    p->pairs = calloc(r->pairs.count + 1, sizeof *p->pairs);
    if (!p->funcs || !p->pairs) return out_of_memory(r);
    for (size_t i = 0; i < r->funcs.count; i++) {
        const hp_pair_item *it = &r->funcs.items[i];
        p->funcs[i] = (hp_func_stat){it->k1, it->v1, it->v2};
    }
    for (size_t i = 0; i < r->pairs.count; i++) {
        const hp_pair_item *it = &r->pairs.items[i];
        p->pairs[i] = (hp_pair_stat){it->k1, it->k2, it->v1};
    }
    p->nfuncs = r->funcs.count;
    p->npairs = r->pairs.count;
    return 1;
}

static int export_blocks_edges(reader *r)
{
    hp_profile *p = r->p;
    p->blocks = calloc(r->blocks.count + 1, sizeof *p->blocks);
    p->edges = calloc(r->edges.count + 1, sizeof *p->edges);
    if (!p->blocks || !p->edges) return out_of_memory(r);
    for (size_t i = 0; i < r->blocks.count; i++) {
        const hp_pair_item *it = &r->blocks.items[i];
        const hp_pair_item *map = hp_pairmap_find(&r->blockmap, it->k1, 0);
        p->blocks[i] = (hp_block_stat){(uint32_t)it->k1, map ? (uint32_t)map->v2 : 0, map != NULL,
                                       map ? map->v1 : 0, it->v1};
    }
    for (size_t i = 0; i < r->edges.count; i++) {
        const hp_pair_item *it = &r->edges.items[i];
        const hp_pair_item *from = hp_pairmap_find(&r->blockmap, it->k1, 0);
        const hp_pair_item *to = hp_pairmap_find(&r->blockmap, it->k2, 0);
        p->edges[i] = (hp_edge_stat){(uint32_t)it->k1, (uint32_t)it->k2, from && to,
                                     from ? from->v1 : 0, to ? to->v1 : 0, it->v1};
    }
    p->nblocks = r->blocks.count;
    p->nedges = r->edges.count;
    return 1;
}

static void free_maps(reader *r)
{
    hp_pairmap_free(&r->funcs);
    hp_pairmap_free(&r->pairs);
    hp_pairmap_free(&r->blocks);
    hp_pairmap_free(&r->edges);
    hp_pairmap_free(&r->blockmap);
    hp_pairmap_free(&r->infokeys);
    free(r->ds_mem);
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
static void sample_key(reader *r, const char *rest, const char *value)
{
    const char *dot = strchr(rest, '.');
    size_t tlen = dot ? (size_t)(dot - rest) : strlen(rest);
    int type = hp_sample_type_parse(rest, tlen);
    hp_sample_stat *st = type >= 0 ? &r->p->sample[type] : NULL;
    char err[160];
    if (!st) return;
    if (dot && strcmp(dot, ".enabled") == 0) {
        st->enabled = strcmp(value, "1") == 0;
        return;
    }
    hp_bursty_params q = {HP_SAMPLE_DEFAULT_PERIOD, HP_SAMPLE_DEFAULT_BURST, 0, 0};
    if (dot) return;
    if (hp_sample_params_parse(value, strlen(value), &q, err, sizeof err)) {
        add_warning(r, "%s: INFO sample.%.*s: %s", r->p->name, (int)tlen, rest, err);
        return;
    }
    st->known = 1, st->period = q.period, st->burst = q.burst, st->jitter = q.jitter_pct;
}

/* "thread.<tid>.events.<type>" or "thread.<tid>.sampled.<type>" (other thread keys: ignored). */
static void thread_key(reader *r, const char *rest, const char *value)
{
    const char *dot = strchr(rest, '.');
    uint64_t v;
    if (!dot) return;
    int sampled = strncmp(dot, ".sampled.", 9) == 0;
    if (!sampled && strncmp(dot, ".events.", 8) != 0) return;
    const char *name = dot + (sampled ? 9 : 8);
    int type = hp_sample_type_parse(name, strlen(name));
    if (type < 0) return;
    if (parse_count(value, &v)) {
        add_warning(r, "%s: INFO thread.%s: not a count: '%s'", r->p->name, rest, value);
        return;
    }
    uint64_t *sum = sampled ? &r->p->sample[type].sampled : &r->p->sample[type].events;
    *sum = hp_sat_add(*sum, v);
}

static void decode_sampling(reader *r)
{
    hp_profile *p = r->p;
    const char *mode = hp_profile_info(p, "mode");
    if (!mode || strcmp(mode, "bursty") != 0) return;
    p->bursty = 1;
    for (size_t i = 0; i < p->ninfo; i++) {
        const char *k = p->info[i].key, *v = p->info[i].value;
        if (strncmp(k, "sample.", 7) == 0) sample_key(r, k + 7, v);
        else if (strncmp(k, "thread.", 7) == 0) thread_key(r, k + 7, v);
    }
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        if (p->sample[t].sampled > p->sample[t].events)
            add_warning(r, "%s: INFO says more %s events sampled than seen", p->name, hp_sample_type_name(t));
}

double hp_profile_sample_frequency(const hp_profile *p, int type)
{
    if (type < 0 || type >= HP_BURSTY_NTYPES || !p->sample[type].events) return 0.0;
    return (double)p->sample[type].sampled / (double)p->sample[type].events;
}

static int read_all(reader *r)
{
    size_t first = 0, end = 0;
    if (!check_file_header(r) || !scan_sections(r) || !check_shapes(r)) return 0;
    assign_groups(r, &first, &end);
    warn_about_tail(r);
    if (!decode_globals(r)) return 0;
    if (r->p->have_group && !decode_group(r, first, end)) return 0;
    decode_sampling(r);
    return export_funcs_pairs(r) && export_blocks_edges(r) && export_streams(r);
}

hp_profile *hp_profile_read_mem(const uint8_t *data, size_t len, const char *name, char *err, size_t errlen)
{
    reader r = {.data = data, .len = len, .err = err, .errlen = errlen};
    if (errlen) err[0] = 0;
    r.p = calloc(1, sizeof *r.p);
    if (!r.p || !(r.p->name = strdup(name ? name : "profile"))) {
        if (errlen) snprintf(err, errlen, "%s: out of memory", name ? name : "profile");
        free(r.p);
        return NULL;
    }
    r.p->file_size = len;
    int ok = read_all(&r);
    free_maps(&r);
    if (!ok) {
        hp_profile_free(r.p);
        return NULL;
    }
    return r.p;
}

/* Reads the whole file into a malloc'd buffer (works for pipes and /proc files too). */
static uint8_t *slurp(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *b = realloc(buf, cap * 2);
            if (!b) break;
            buf = b;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got == 0) {
            *len = n;
            return buf;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        n += (size_t)got;
    }
    int saved = errno ? errno : ENOMEM;
    free(buf);
    errno = saved;
    return NULL;
}

hp_profile *hp_profile_read_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0;
    errno = 0;
    uint8_t *data = slurp(fd, &len);
    int saved = errno;
    close(fd);
    if (!data) {
        if (errlen) snprintf(err, errlen, "%s: cannot read: %s", path, strerror(saved));
        return NULL;
    }
    hp_profile *p = hp_profile_read_mem(data, len, path, err, errlen);
    free(data);
    return p;
}

void hp_profile_free(hp_profile *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->ninfo; i++) free(p->info[i].key), free(p->info[i].value);
    for (size_t i = 0; i < p->nmodules; i++) free(p->modules[i].path), free(p->modules[i].buildid);
    for (size_t i = 0; i < p->nwarnings; i++) free(p->warnings[i]);
    free(p->info);
    free(p->modules);
    free(p->warnings);
    free(p->sections);
    free(p->funcs);
    free(p->pairs);
    free(p->blocks);
    free(p->edges);
    free(p->threads);
    free(p->ds.streams);
    free(p->name);
    free(p);
}

const char *hp_profile_info(const hp_profile *p, const char *key)
{
    for (size_t i = p->ninfo; i-- > 0;)
        if (strcmp(p->info[i].key, key) == 0) return p->info[i].value;
    return NULL;
}

const hp_module *hp_profile_module_at(const hp_profile *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmodules; i++)
        if (addr >= p->modules[i].lo && addr < p->modules[i].hi) return &p->modules[i];
    return NULL;
}

#define SUM_FIELD(arr, n, field)                                                                   \
    do {                                                                                           \
        uint64_t s_ = 0;                                                                           \
        for (size_t i_ = 0; i_ < (n); i_++) s_ = hp_sat_add(s_, (arr)[i_].field);                  \
        return s_;                                                                                 \
    } while (0)

uint64_t hp_profile_total_calls(const hp_profile *p) { SUM_FIELD(p->funcs, p->nfuncs, calls); }
uint64_t hp_profile_total_backedges(const hp_profile *p) { SUM_FIELD(p->funcs, p->nfuncs, backedges); }
uint64_t hp_profile_total_pairs(const hp_profile *p) { SUM_FIELD(p->pairs, p->npairs, count); }
uint64_t hp_profile_total_blocks(const hp_profile *p) { SUM_FIELD(p->blocks, p->nblocks, count); }
uint64_t hp_profile_total_edges(const hp_profile *p) { SUM_FIELD(p->edges, p->nedges, count); }

/* reader.c — reads a hotprof.data file into an hp_profile (profile.h says what is kept): the
 * framing, the section walk, groups, the tail warnings, and the dispatch of the last group's
 * sections to the per-type decoders (src/analysis/ptype/, aptype.h).
 *
 * Reading is passes over bytes already in memory:
 *   1. scan: check the file header, then walk the sections, checking each header (magic, CRC,
 *      length against what is left of the file) and each payload CRC; a section cut short by
 *      the end of the file, or whose header is still the writer's all-zero placeholder, ends
 *      the walk (the tail of a killed run); anything else is an error. Then every complete
 *      section's payload length is checked against its type (record size, fixed size);
 *   2. global sections (reader_globals.c): MODULES and BLOCKMAP from every complete section, INFO
 *      from every complete section up to the last GROUP_END; then every complete group's
 *      cross-section consistency (reader_check.c: warnings; a corrupt summary is an error);
 *   3. the last complete group: THREAD and GROUP_END here, every other section to the profile
 *      type that owns it (by section type, or by SUMMARY id); then each type's finish;
 *   4. a bursty profile's sampling keys from INFO (reader_globals.c).
 * Nothing here trusts a length it has not compared with what is left. Reading a file or a
 * descriptor into memory (header first, size limit) is reader_file.c.
 */
#define _GNU_SOURCE
#include "analysis/reader.h"
#include "analysis/ptype/aptype.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hp_rd_fail(hp_reader *r, const char *fmt, ...)
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

int hp_rd_oom(hp_reader *r) { return hp_rd_fail(r, "out of memory"); }

int hp_rd_reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 1;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *a = realloc(*arr, ncap * elem);
    if (!a) return 0;
    *arr = a;
    *cap = ncap;
    return 1;
}

void hp_rd_warn(hp_reader *r, const char *fmt, ...)
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

const uint8_t *hp_rd_payload(const hp_reader *r, const hp_section_ref *s)
{
    return r->data + s->offset + HP_FMT_SECTION_HEADER_SIZE;
}

int hp_rd_accumulate(hp_reader *r, hp_pairmap *m, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b)
{
    hp_pair_item *it = hp_pairmap_get(m, k1, k2);
    if (!it) return hp_rd_oom(r);
    it->v1 = hp_sat_add(it->v1, a);
    it->v2 = hp_sat_add(it->v2, b);
    return 1;
}

/* ---- pass 1: file header and section walk ---- */

static int check_file_header(hp_reader *r)
{
    const char *msg = hp_fmt_parse_file_header(r->data, r->len, &r->p->header);
    if (!msg) return 1;
    if (strncmp(msg, "unsupported", 11) == 0) /* the parser has filled in the version */
        return hp_rd_fail(r, "unsupported profile format version %u (this hotprof reads %d)",
                          (unsigned)r->p->header.major, HP_FMT_MAJOR);
    return hp_rd_fail(r, "%s", msg);
}

static int add_section(hp_reader *r, uint32_t type, uint64_t offset, uint64_t length, int complete)
{
    hp_profile *p = r->p;
    if (!hp_rd_reserve((void **)&p->sections, &r->sections_cap, p->nsections, sizeof *p->sections))
        return hp_rd_oom(r);
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
static int scan_sections(hp_reader *r)
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
        if (msg) return hp_rd_fail(r, "section %zu at offset %zu: %s", index, off, msg);
        if (sh.length > left - HP_FMT_SECTION_HEADER_SIZE) {
            r->truncated = 1;
            return add_section(r, sh.type, off, sh.length, 0);
        }
        const uint8_t *payload = r->data + off + HP_FMT_SECTION_HEADER_SIZE;
        if (hp_crc32(0, payload, (size_t)sh.length) != sh.payload_crc)
            return hp_rd_fail(r, "section %zu (%s) checksum mismatch at offset %zu", index,
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
    const hp_ptype *t = hp_ptype_by_section(type);
    *fixed = 0;
    if (t && t->record_size) return *unit = t->record_size, 1;
    switch (type) {
    case HP_SEC_BLOCKMAP: *unit = HP_REC_BLOCK_SIZE; return 1;
    case HP_SEC_THREAD: *unit = 16; *fixed = 1; return 1;
    case HP_SEC_GROUP_END: *unit = 24; *fixed = 1; return 1;
    default: return 0;
    }
}

static int check_shapes(hp_reader *r)
{
    for (size_t i = 0; i < r->p->nsections; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        uint64_t unit;
        int fixed;
        if (!s->complete) continue;
        if (s->type == HP_SEC_SUMMARY && s->length < 8)
            return hp_rd_fail(r, "section %zu (summary) at offset %" PRIu64 " is too short", i, s->offset);
        if (!payload_shape(s->type, &unit, &fixed)) continue;
        if (fixed ? s->length != unit : s->length % unit != 0)
            return hp_rd_fail(r, "section %zu (%s) at offset %" PRIu64 " has a bad length %" PRIu64 " (%s %" PRIu64
                              ")", i, hp_section_type_name(s->type), s->offset, s->length,
                              fixed ? "expected" : "not a multiple of", unit);
    }
    return 1;
}

/* Numbers the groups; sections after the last GROUP_END keep group -1. Returns the index of the
 * first section of the last complete group in *first and of its GROUP_END in *end. */
static void assign_groups(hp_reader *r, size_t *first, size_t *end)
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

/* A tail is what follows the last GROUP_END: the start of a group the writer did not finish. After
 * a complete group every section belongs to the next group (it starts with MODULES and BLOCKMAP),
 * so any section there is a tail; before the first group, the file's own INFO and MODULES are not. */
static void warn_about_tail(hp_reader *r)
{
    hp_profile *p = r->p;
    int tail_data = 0;
    for (size_t i = 0; i < p->nsections; i++)
        if (p->sections[i].group < 0 && (p->have_group || is_data_section(p->sections[i].type))) tail_data = 1;
    if (r->truncated)
        hp_rd_warn(r, "%s: the last section is unfinished (cut short, or its header never written)", p->name);
    if (tail_data || (r->truncated && p->have_group))
        hp_rd_warn(r, "%s: profile ends with an incomplete group (program killed while writing?)", p->name);
    if (!p->have_group)
        hp_rd_warn(r, "%s: profile holds no complete group of counts (program killed early?)", p->name);
}

/* ---- pass 3: the last complete group ---- */

static int decode_thread(hp_reader *r, const hp_section_ref *s)
{
    hp_profile *p = r->p;
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(r, s), (size_t)s->length);
    if (!hp_rd_reserve((void **)&p->threads, &r->threads_cap, p->nthreads, sizeof *p->threads))
        return hp_rd_oom(r);
    p->threads[p->nthreads].tid = hp_get_u64(&b);
    p->threads[p->nthreads].events = hp_get_u64(&b);
    p->nthreads++;
    return 1;
}

static void decode_group_end(hp_reader *r, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(r, s), (size_t)s->length);
    r->p->group_seq = hp_get_u64(&b);
    r->p->group_flags = hp_get_u64(&b);
    r->p->exit_status = (int64_t)hp_get_u64(&b);
}

/* The profile type that owns a data section (SUMMARY: by its id, counted in nsummaries). */
static const hp_aptype *owner_of(hp_reader *r, const hp_section_ref *s)
{
    if (s->type != HP_SEC_SUMMARY) return hp_aptype_by_section(s->type);
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(r, s), 8);
    r->p->nsummaries++;
    return hp_aptype_by_summary(hp_get_u32(&b)); /* NULL: a profile type we do not read */
}

static int decode_group(hp_reader *r, size_t first, size_t end)
{
    for (size_t i = first; i <= end; i++) {
        const hp_section_ref *s = &r->p->sections[i];
        const hp_aptype *t;
        if (s->type == HP_SEC_THREAD && !decode_thread(r, s)) return 0;
        if (s->type == HP_SEC_GROUP_END) decode_group_end(r, s);
        if ((t = owner_of(r, s)) && t->decode && !t->decode(r, &r->acc[t->id], i, s)) return 0;
    }
    return 1;
}

static int finish_types(hp_reader *r)
{
    for (int i = 0; i < HP_PT_COUNT; i++)
        if (hp_aptypes[i]->finish && !hp_aptypes[i]->finish(r, &r->acc[i])) return 0;
    return 1;
}

static void free_reader(hp_reader *r)
{
    for (int i = 0; i < HP_PT_COUNT; i++) {
        hp_pairmap_free(&r->acc[i].map);
        free(r->acc[i].mem);
    }
    hp_pairmap_free(&r->blockmap);
    hp_pairmap_free(&r->infokeys);
}

static int read_all(hp_reader *r)
{
    size_t first = 0, end = 0;
    if (!check_file_header(r) || !scan_sections(r) || !check_shapes(r)) return 0;
    assign_groups(r, &first, &end);
    warn_about_tail(r);
    if (!hp_rd_decode_globals(r) || !hp_rd_check_groups(r)) return 0;
    if (r->p->have_group && !decode_group(r, first, end)) return 0;
    hp_rd_decode_sampling(r);
    return finish_types(r);
}

hp_profile *hp_profile_read_mem(const uint8_t *data, size_t len, const char *name, char *err, size_t errlen)
{
    hp_reader r = {.data = data, .len = len, .err = err, .errlen = errlen};
    if (errlen) err[0] = 0;
    r.p = calloc(1, sizeof *r.p);
    if (!r.p || !(r.p->name = strdup(name ? name : "profile"))) {
        if (errlen) snprintf(err, errlen, "%s: out of memory", name ? name : "profile");
        free(r.p);
        return NULL;
    }
    r.p->file_size = len;
    int ok = read_all(&r);
    free_reader(&r);
    if (!ok) {
        hp_profile_free(r.p);
        return NULL;
    }
    return r.p;
}

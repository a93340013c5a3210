/* format.c — encoders and checked decoders for the profile-file framing in format.h. Pure: the
 * runtime's writer and the analysis reader both build on it, so they cannot disagree. */
#include "core/format/format.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include <string.h>

void hp_fmt_file_header(uint8_t out[HP_FMT_FILE_HEADER_SIZE], uint64_t seed, uint32_t flags)
{
    hp_wbuf w = hp_wbuf_make(out, HP_FMT_FILE_HEADER_SIZE);
    hp_put_bytes(&w, HP_FMT_MAGIC, 8);
    uint8_t ver[4] = {HP_FMT_MAJOR & 0xff, HP_FMT_MAJOR >> 8, HP_FMT_MINOR & 0xff, HP_FMT_MINOR >> 8};
    hp_put_bytes(&w, ver, 4);
    hp_put_u32(&w, HP_FMT_FILE_HEADER_SIZE);
    hp_put_u64(&w, seed);
    hp_put_u32(&w, flags);
    hp_put_u32(&w, hp_crc32(0, out, 28));
}

void hp_fmt_section_header(uint8_t out[HP_FMT_SECTION_HEADER_SIZE], uint32_t type, uint64_t length,
                           uint32_t payload_crc)
{
    hp_wbuf w = hp_wbuf_make(out, HP_FMT_SECTION_HEADER_SIZE);
    hp_put_u32(&w, HP_FMT_SECTION_MAGIC);
    hp_put_u32(&w, type);
    hp_put_u64(&w, length);
    hp_put_u32(&w, payload_crc);
    hp_put_u32(&w, hp_crc32(0, out, 20));
}

#define PUT3(out, a, b, c)                                                                         \
    do {                                                                                           \
        hp_wbuf w_ = hp_wbuf_make(out, 24);                                                        \
        hp_put_u64(&w_, a);                                                                        \
        hp_put_u64(&w_, b);                                                                        \
        hp_put_u64(&w_, c);                                                                        \
    } while (0)

void hp_fmt_put_func(uint8_t *out, const hp_rec_func *r) { PUT3(out, r->addr, r->calls, r->backedges); }
void hp_fmt_put_callpair(uint8_t *out, const hp_rec_callpair *r) { PUT3(out, r->site, r->callee, r->count); }

static void put_two_u32_u64(uint8_t *out, uint32_t a, uint32_t b, uint64_t c)
{
    hp_wbuf w = hp_wbuf_make(out, 16);
    hp_put_u32(&w, a);
    hp_put_u32(&w, b);
    hp_put_u64(&w, c);
}
void hp_fmt_put_block(uint8_t *out, const hp_rec_block *r) { put_two_u32_u64(out, r->guard, r->flags, r->pc); }
void hp_fmt_put_count(uint8_t *out, const hp_rec_count *r) { put_two_u32_u64(out, r->guard, 0, r->count); }
void hp_fmt_put_edge(uint8_t *out, const hp_rec_edge *r) { put_two_u32_u64(out, r->from, r->to, r->count); }

void hp_fmt_get_func(const uint8_t *in, hp_rec_func *r)
{
    hp_rbuf b = hp_rbuf_make(in, 24);
    r->addr = hp_get_u64(&b);
    r->calls = hp_get_u64(&b);
    r->backedges = hp_get_u64(&b);
}
void hp_fmt_get_callpair(const uint8_t *in, hp_rec_callpair *r)
{
    hp_rbuf b = hp_rbuf_make(in, 24);
    r->site = hp_get_u64(&b);
    r->callee = hp_get_u64(&b);
    r->count = hp_get_u64(&b);
}
void hp_fmt_get_block(const uint8_t *in, hp_rec_block *r)
{
    hp_rbuf b = hp_rbuf_make(in, 16);
    r->guard = hp_get_u32(&b);
    r->flags = hp_get_u32(&b);
    r->pc = hp_get_u64(&b);
}
void hp_fmt_get_count(const uint8_t *in, hp_rec_count *r)
{
    hp_rbuf b = hp_rbuf_make(in, 16);
    r->guard = hp_get_u32(&b);
    r->pad = hp_get_u32(&b);
    r->count = hp_get_u64(&b);
}
void hp_fmt_get_edge(const uint8_t *in, hp_rec_edge *r)
{
    hp_rbuf b = hp_rbuf_make(in, 16);
    r->from = hp_get_u32(&b);
    r->to = hp_get_u32(&b);
    r->count = hp_get_u64(&b);
}

/* Doubles travel as their IEEE-754 bits, little-endian. */
static uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, sizeof u); return u; }
static double f64_from(uint64_t u) { double d; memcpy(&d, &u, sizeof d); return d; }

void hp_fmt_put_subpath(uint8_t *out, const hp_rec_subpath *r)
{
    hp_wbuf w = hp_wbuf_make(out, HP_REC_SUBPATH_FIXED);
    hp_put_u64(&w, r->key);
    hp_put_u64(&w, r->count);
    hp_put_u64(&w, f64_bits(r->weight));
    hp_put_u64(&w, f64_bits(r->p_length));
    hp_put_u32(&w, r->length);
    hp_put_u32(&w, r->nblocks);
}

void hp_fmt_get_subpath(const uint8_t *in, hp_rec_subpath *r)
{
    hp_rbuf b = hp_rbuf_make(in, HP_REC_SUBPATH_FIXED);
    r->key = hp_get_u64(&b);
    r->count = hp_get_u64(&b);
    r->weight = f64_from(hp_get_u64(&b));
    r->p_length = f64_from(hp_get_u64(&b));
    r->length = hp_get_u32(&b);
    r->nblocks = hp_get_u32(&b);
}

void hp_fmt_put_stack(uint8_t *out, const hp_rec_stack *r)
{
    hp_wbuf w = hp_wbuf_make(out, HP_REC_STACK_FIXED);
    hp_put_u64(&w, r->count);
    hp_put_u64(&w, r->tos);
    hp_put_u32(&w, (uint32_t)r->depth | (uint32_t)r->flags << 16);
    hp_put_u32(&w, 0);
}

void hp_fmt_get_stack(const uint8_t *in, hp_rec_stack *r)
{
    hp_rbuf b = hp_rbuf_make(in, HP_REC_STACK_FIXED);
    r->count = hp_get_u64(&b);
    r->tos = hp_get_u64(&b);
    uint32_t df = hp_get_u32(&b);
    r->depth = (uint16_t)(df & 0xffffu);
    r->flags = (uint16_t)(df >> 16);
}

void hp_fmt_put_value(uint8_t *out, const hp_rec_value *r)
{
    hp_wbuf w = hp_wbuf_make(out, HP_REC_VALUE_FIXED);
    hp_put_u64(&w, r->pc);
    hp_put_u64(&w, r->captures);
    hp_put_u64(&w, f64_bits(r->tau));
    hp_put_u32(&w, (uint32_t)r->kind | (uint32_t)r->operand << 8 | (uint32_t)r->nvalues << 16);
    hp_put_u32(&w, 0);
}

void hp_fmt_get_value(const uint8_t *in, hp_rec_value *r)
{
    hp_rbuf b = hp_rbuf_make(in, HP_REC_VALUE_FIXED);
    r->pc = hp_get_u64(&b);
    r->captures = hp_get_u64(&b);
    r->tau = f64_from(hp_get_u64(&b));
    uint32_t k = hp_get_u32(&b);
    r->kind = (uint8_t)(k & 0xffu);
    r->operand = (uint8_t)(k >> 8 & 0xffu);
    r->nvalues = (uint16_t)(k >> 16);
}

void hp_fmt_put_path(uint8_t *out, const hp_rec_path *r)
{
    hp_wbuf w = hp_wbuf_make(out, HP_REC_PATH_FIXED);
    hp_put_u64(&w, r->key);
    hp_put_u64(&w, r->count);
    hp_put_u32(&w, r->length);
    hp_put_u32(&w, r->nblocks);
}

void hp_fmt_get_path(const uint8_t *in, hp_rec_path *r)
{
    hp_rbuf b = hp_rbuf_make(in, HP_REC_PATH_FIXED);
    r->key = hp_get_u64(&b);
    r->count = hp_get_u64(&b);
    r->length = hp_get_u32(&b);
    r->nblocks = hp_get_u32(&b);
}

const char *hp_fmt_parse_file_header(const uint8_t *in, size_t len, hp_fmt_file_info *out)
{
    if (len < HP_FMT_FILE_HEADER_SIZE) return "file is too short to be a hotprof profile";
    if (memcmp(in, HP_FMT_MAGIC, 8) != 0) return "not a hotprof profile (bad magic)";
    hp_rbuf b = hp_rbuf_make(in + 8, HP_FMT_FILE_HEADER_SIZE - 8);
    const uint8_t *ver = hp_get_bytes(&b, 4);
    out->major = (uint16_t)(ver[0] | ver[1] << 8);
    out->minor = (uint16_t)(ver[2] | ver[3] << 8);
    uint32_t header_size = hp_get_u32(&b);
    out->seed = hp_get_u64(&b);
    out->flags = hp_get_u32(&b);
    uint32_t crc = hp_get_u32(&b);
    if (crc != hp_crc32(0, in, 28)) return "profile file header is corrupt (checksum mismatch)";
    if (out->major != HP_FMT_MAJOR) return "unsupported profile format version";
    if (header_size != HP_FMT_FILE_HEADER_SIZE) return "profile file header has a bad size";
    return 0;
}

const char *hp_fmt_parse_section_header(const uint8_t *in, size_t len, hp_fmt_section *out)
{
    if (len < HP_FMT_SECTION_HEADER_SIZE) return "truncated section header";
    hp_rbuf b = hp_rbuf_make(in, HP_FMT_SECTION_HEADER_SIZE);
    uint32_t magic = hp_get_u32(&b);
    out->type = hp_get_u32(&b);
    out->length = hp_get_u64(&b);
    out->payload_crc = hp_get_u32(&b);
    uint32_t crc = hp_get_u32(&b);
    if (magic != HP_FMT_SECTION_MAGIC) return "bad section magic";
    if (crc != hp_crc32(0, in, 20)) return "section header checksum mismatch";
    if (out->length > HP_FMT_MAX_SECTION) return "section length is implausibly large";
    return 0;
}

const char *hp_section_type_name(uint32_t type)
{
    static const char *const names[] = {"?",      "info",    "modules", "funcs",   "callpairs", "blockmap",
                                        "blocks", "edges",   "summary", "thread",  "group_end", "subpaths",
                                        "intervals", "stacks", "values", "paths"};
    return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

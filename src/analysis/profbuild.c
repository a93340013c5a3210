/* profbuild.c — in-memory profile builder (see profbuild.h). Record sections are encoded into a
 * temporary payload with the matching hp_fmt_put_* encoder, then appended with their header. */
#include "analysis/profbuild.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include <stdlib.h>
#include <string.h>

static void append(hp_pbuild *b, const void *p, size_t n)
{
    if (!b->ok) return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) cap *= 2;
        uint8_t *nb = realloc(b->buf, cap);
        if (!nb) {
            b->ok = 0;
            return;
        }
        b->buf = nb;
        b->cap = cap;
    }
    if (n) memcpy(b->buf + b->len, p, n);
    b->len += n;
}

void hp_pbuild_init(hp_pbuild *b, uint64_t seed)
{
    uint8_t h[HP_FMT_FILE_HEADER_SIZE];
    *b = (hp_pbuild){NULL, 0, 0, 1};
    hp_fmt_file_header(h, seed, 0);
    append(b, h, sizeof h);
}

void hp_pbuild_free(hp_pbuild *b)
{
    free(b->buf);
    *b = (hp_pbuild){0};
}

void hp_pbuild_section(hp_pbuild *b, uint32_t type, const void *payload, size_t len)
{
    uint8_t h[HP_FMT_SECTION_HEADER_SIZE];
    hp_fmt_section_header(h, type, len, hp_crc32(0, payload, len));
    append(b, h, sizeof h);
    append(b, payload, len);
}

void hp_pbuild_info(hp_pbuild *b, const char *text) { hp_pbuild_section(b, HP_SEC_INFO, text, strlen(text)); }

void hp_pbuild_module(hp_pbuild *b, uint64_t base, uint64_t lo, uint64_t hi, const char *path,
                      const uint8_t *buildid, uint32_t buildid_len)
{
    size_t plen = strlen(path), n = HP_REC_MODULE_FIXED + plen + buildid_len;
    uint8_t *p = malloc(n);
    if (!p) {
        b->ok = 0;
        return;
    }
    hp_wbuf w = hp_wbuf_make(p, n);
    hp_put_u64(&w, base);
    hp_put_u64(&w, lo);
    hp_put_u64(&w, hi);
    hp_put_u32(&w, (uint32_t)plen);
    hp_put_u32(&w, buildid_len);
    hp_put_bytes(&w, path, plen);
    hp_put_bytes(&w, buildid, buildid_len);
    hp_pbuild_section(b, HP_SEC_MODULES, p, n);
    free(p);
}

/* Encodes n records of `size` bytes with put() and appends them as one section. */
#define RECORD_SECTION(b, type, size, put, r, n)                                                   \
    do {                                                                                           \
        uint8_t *p_ = malloc((n) * (size) + 1);                                                    \
        if (!p_) {                                                                                 \
            (b)->ok = 0;                                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i_ = 0; i_ < (n); i_++) put(p_ + i_ * (size), &(r)[i_]);                       \
        hp_pbuild_section(b, type, p_, (n) * (size));                                              \
        free(p_);                                                                                  \
    } while (0)

void hp_pbuild_funcs(hp_pbuild *b, const hp_rec_func *r, size_t n)
{
    RECORD_SECTION(b, HP_SEC_FUNCS, HP_REC_FUNC_SIZE, hp_fmt_put_func, r, n);
}
void hp_pbuild_callpairs(hp_pbuild *b, const hp_rec_callpair *r, size_t n)
{
    RECORD_SECTION(b, HP_SEC_CALLPAIRS, HP_REC_CALLPAIR_SIZE, hp_fmt_put_callpair, r, n);
}
void hp_pbuild_blockmap(hp_pbuild *b, const hp_rec_block *r, size_t n)
{
    RECORD_SECTION(b, HP_SEC_BLOCKMAP, HP_REC_BLOCK_SIZE, hp_fmt_put_block, r, n);
}
void hp_pbuild_blocks(hp_pbuild *b, const hp_rec_count *r, size_t n)
{
    RECORD_SECTION(b, HP_SEC_BLOCKS, HP_REC_COUNT_SIZE, hp_fmt_put_count, r, n);
}
void hp_pbuild_edges(hp_pbuild *b, const hp_rec_edge *r, size_t n)
{
    RECORD_SECTION(b, HP_SEC_EDGES, HP_REC_EDGE_SIZE, hp_fmt_put_edge, r, n);
}

static void put_u64s(hp_pbuild *b, uint32_t type, const uint64_t *v, size_t n)
{
    uint8_t p[24];
    hp_wbuf w = hp_wbuf_make(p, sizeof p);
    for (size_t i = 0; i < n; i++) hp_put_u64(&w, v[i]);
    hp_pbuild_section(b, type, p, w.len);
}

void hp_pbuild_thread(hp_pbuild *b, uint64_t tid, uint64_t events)
{
    uint64_t v[2] = {tid, events};
    put_u64s(b, HP_SEC_THREAD, v, 2);
}

void hp_pbuild_group_end(hp_pbuild *b, uint64_t seq, uint64_t flags, int64_t exit_status)
{
    uint64_t v[3] = {seq, flags, (uint64_t)exit_status};
    put_u64s(b, HP_SEC_GROUP_END, v, 3);
}

void hp_pbuild_summary(hp_pbuild *b, uint32_t profile_type, const void *blob, size_t len)
{
    uint8_t *payload = malloc(len + 8);
    if (!payload) {
        b->ok = 0;
        return;
    }
    hp_wbuf w = hp_wbuf_make(payload, 8);
    hp_put_u32(&w, profile_type);
    hp_put_u32(&w, 0);
    if (len) memcpy(payload + 8, blob, len);
    hp_pbuild_section(b, HP_SEC_SUMMARY, payload, len + 8);
    free(payload);
}

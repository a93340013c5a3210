/* bytes.h — bounded little-endian encoding and decoding, used by every serializer.
 *
 * hp_wbuf writes into a caller buffer; once a write would overflow, `ok` becomes 0 and all later
 * writes are dropped (check ok once at the end). hp_rbuf reads from untrusted bytes; once a read
 * would run past the end, `ok` becomes 0 and every later read returns 0. Nothing here allocates.
 */
#ifndef HOTPROF_CORE_BYTES_H
#define HOTPROF_CORE_BYTES_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct hp_wbuf { uint8_t *p; size_t cap, len; int ok; } hp_wbuf;
typedef struct hp_rbuf { const uint8_t *p; size_t len, pos; int ok; } hp_rbuf;

static inline hp_wbuf hp_wbuf_make(void *p, size_t cap) { hp_wbuf w = {(uint8_t *)p, cap, 0, 1}; return w; }
static inline hp_rbuf hp_rbuf_make(const void *p, size_t len) { hp_rbuf r = {(const uint8_t *)p, len, 0, 1}; return r; }

static inline void hp_put_bytes(hp_wbuf *w, const void *src, size_t n)
{
    if (!w->ok || w->cap - w->len < n) { w->ok = 0; return; }
    if (n) memcpy(w->p + w->len, src, n);
    w->len += n;
}
static inline void hp_put_u8(hp_wbuf *w, uint8_t v) { hp_put_bytes(w, &v, 1); }
static inline void hp_put_u32(hp_wbuf *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    hp_put_bytes(w, b, 4);
}
static inline void hp_put_u64(hp_wbuf *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    hp_put_bytes(w, b, 8);
}

static inline const uint8_t *hp_get_bytes(hp_rbuf *r, size_t n)
{
    if (!r->ok || r->len - r->pos < n) { r->ok = 0; return NULL; }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}
static inline uint8_t hp_get_u8(hp_rbuf *r) { const uint8_t *b = hp_get_bytes(r, 1); return b ? b[0] : 0; }
static inline uint32_t hp_get_u32(hp_rbuf *r)
{
    const uint8_t *b = hp_get_bytes(r, 4);
    uint32_t v = 0;
    if (b) for (int i = 0; i < 4; i++) v |= (uint32_t)b[i] << (8 * i);
    return v;
}
static inline uint64_t hp_get_u64(hp_rbuf *r)
{
    const uint8_t *b = hp_get_bytes(r, 8);
    uint64_t v = 0;
    if (b) for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}
static inline size_t hp_rbuf_left(const hp_rbuf *r) { return r->ok ? r->len - r->pos : 0; }

#endif

/* trace.c — the trace file codec (trace.h, docs/trace.md): delta/zigzag/varint packing, zstd
 * chunks with CRC-32, a header and an end record. Decoding checks everything before it returns.
 */
#include "sim/trace.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HEADER_FIXED 36u /* magic 8, version, kind, flags, nthreads 4 each, events, limit 8 each; then program */
#define CHUNK_HEAD 28u   /* magic, tid 8, ntuples, raw_len, comp_len, crc (of tid..comp_len and the bytes) */
#define END_BYTES 20u    /* magic, nchunks, events 8, crc */
#define ZSTD_LEVEL 3

static const char *const kind_names[] = {NULL, "values", "edges", "calls"};

const char *hp_trace_kind_name(uint32_t kind) { return kind >= 1 && kind <= 3 ? kind_names[kind] : NULL; }

uint32_t hp_trace_kind_parse(const char *name)
{
    for (uint32_t k = 1; k <= 3; k++)
        if (strcmp(name, kind_names[k]) == 0) return k;
    return 0;
}

/* ---------------------------------------------------------------- packing */

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) { *p++ = (uint8_t)(v | 0x80); v >>= 7; }
    *p++ = (uint8_t)v;
    return p;
}

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p == end) return -1;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) { *v = x; return 0; }
    }
    return -1;
}

static uint64_t zigzag(uint64_t d) { return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63); }
static uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1); }

size_t hp_trace_pack(const hp_trace_tuple *t, size_t n, uint8_t *out)
{
    uint8_t *p = out;
    uint64_t pa = 0, pb = 0;
    for (size_t i = 0; i < n; i++) {
        p = put_varint(p, zigzag(t[i].a - pa));
        p = put_varint(p, zigzag(t[i].b - pb));
        pa = t[i].a, pb = t[i].b;
    }
    return (size_t)(p - out);
}

int hp_trace_unpack(const uint8_t *in, size_t len, hp_trace_tuple *t, size_t n)
{
    const uint8_t *p = in, *end = in + len;
    uint64_t pa = 0, pb = 0, da, db;
    for (size_t i = 0; i < n; i++) {
        if (get_varint(&p, end, &da) || get_varint(&p, end, &db)) return -1;
        pa += unzigzag(da), pb += unzigzag(db);
        t[i].a = pa, t[i].b = pb;
    }
    return p == end ? 0 : -1;
}

/* ---------------------------------------------------------------- writer */

typedef struct pending { uint64_t tid; size_t n; hp_trace_tuple *t; } pending;

struct hp_trace_writer {
    uint32_t kind, flags;
    uint64_t limit, events, nchunks;
    char program[HP_TRACE_PROGRAM_MAX + 1];
    pending *threads;
    size_t nthreads;
    uint8_t *out; /* the chunks, in order */
    size_t out_len, out_cap;
    uint8_t *raw, *comp; /* scratch */
    size_t comp_cap;
};

hp_trace_writer *hp_trace_writer_new(uint32_t kind, const char *program, uint64_t limit)
{
    hp_trace_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->kind = kind, w->limit = limit;
    snprintf(w->program, sizeof w->program, "%s", program ? program : "");
    w->threads = calloc(HP_TRACE_MAX_THREADS, sizeof *w->threads);
    w->raw = malloc((size_t)HP_TRACE_CHUNK_TUPLES * 20);
    w->comp_cap = ZSTD_compressBound((size_t)HP_TRACE_CHUNK_TUPLES * 20);
    w->comp = malloc(w->comp_cap);
    if (!w->threads || !w->raw || !w->comp) { hp_trace_writer_free(w); return NULL; }
    return w;
}

void hp_trace_writer_free(hp_trace_writer *w)
{
    if (!w) return;
    for (size_t i = 0; i < w->nthreads; i++) free(w->threads[i].t);
    free(w->threads), free(w->out), free(w->raw), free(w->comp), free(w);
}

void hp_trace_writer_flag(hp_trace_writer *w, uint32_t flags) { w->flags |= flags; }

static int out_reserve(hp_trace_writer *w, size_t more)
{
    if (w->out_cap - w->out_len >= more) return 0;
    size_t cap = w->out_cap ? w->out_cap : 1 << 16;
    while (cap - w->out_len < more) cap *= 2;
    uint8_t *p = realloc(w->out, cap);
    if (!p) return -1;
    w->out = p, w->out_cap = cap;
    return 0;
}

static int emit_chunk(hp_trace_writer *w, pending *th, char *err, size_t errlen)
{
    size_t raw_len = hp_trace_pack(th->t, th->n, w->raw);
    size_t c = ZSTD_compress(w->comp, w->comp_cap, w->raw, raw_len, ZSTD_LEVEL);
    if (ZSTD_isError(c)) { snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(c)); return -1; }
    if (out_reserve(w, CHUNK_HEAD + c)) { snprintf(err, errlen, "out of memory"); return -1; }
    hp_wbuf b = hp_wbuf_make(w->out + w->out_len, CHUNK_HEAD + c);
    hp_put_u32(&b, HP_TRACE_CHUNK_MAGIC);
    hp_put_u64(&b, th->tid);
    hp_put_u32(&b, (uint32_t)th->n);
    hp_put_u32(&b, (uint32_t)raw_len);
    hp_put_u32(&b, (uint32_t)c);
    hp_put_u32(&b, hp_crc32(hp_crc32(0, b.p + 4, 20), w->comp, c));
    hp_put_bytes(&b, w->comp, c);
    w->out_len += b.len;
    w->events += th->n, w->nchunks++;
    th->n = 0;
    return 0;
}

static pending *thread_of(hp_trace_writer *w, uint64_t tid)
{
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i].tid == tid) return &w->threads[i];
    if (w->nthreads == HP_TRACE_MAX_THREADS) return NULL;
    pending *th = &w->threads[w->nthreads];
    th->t = malloc(HP_TRACE_CHUNK_TUPLES * sizeof *th->t);
    if (!th->t) return NULL;
    th->tid = tid, th->n = 0;
    w->nthreads++;
    return th;
}

int hp_trace_writer_add(hp_trace_writer *w, uint64_t tid, const hp_trace_tuple *t, size_t n, char *err, size_t errlen)
{
    pending *th = thread_of(w, tid);
    if (!th) { snprintf(err, errlen, "more than %u threads, or out of memory", HP_TRACE_MAX_THREADS); return -1; }
    while (n) {
        size_t take = HP_TRACE_CHUNK_TUPLES - th->n;
        if (take > n) take = n;
        memcpy(th->t + th->n, t, take * sizeof *t);
        th->n += take, t += take, n -= take;
        if (th->n == HP_TRACE_CHUNK_TUPLES && emit_chunk(w, th, err, errlen)) return -1;
    }
    return 0;
}

int hp_trace_writer_finish(hp_trace_writer *w, FILE *f, char *err, size_t errlen)
{
    for (size_t i = 0; i < w->nthreads; i++)
        if (w->threads[i].n && emit_chunk(w, &w->threads[i], err, errlen)) return -1;
    uint8_t head[HEADER_FIXED + 4 + HP_TRACE_PROGRAM_MAX + 4], end[END_BYTES];
    size_t plen = strlen(w->program);
    hp_wbuf h = hp_wbuf_make(head, sizeof head);
    hp_put_bytes(&h, HP_TRACE_MAGIC, 8);
    hp_put_u32(&h, HP_TRACE_VERSION);
    hp_put_u32(&h, w->kind);
    hp_put_u32(&h, w->flags);
    hp_put_u32(&h, (uint32_t)w->nthreads);
    hp_put_u64(&h, w->events);
    hp_put_u64(&h, w->limit);
    hp_put_u32(&h, (uint32_t)plen);
    hp_put_bytes(&h, w->program, plen);
    hp_put_u32(&h, hp_crc32(0, head, h.len));
    hp_wbuf e = hp_wbuf_make(end, sizeof end);
    hp_put_u32(&e, HP_TRACE_END_MAGIC);
    hp_put_u32(&e, (uint32_t)w->nchunks);
    hp_put_u64(&e, w->events);
    hp_put_u32(&e, hp_crc32(0, end, 16));
    if (fwrite(head, 1, h.len, f) != h.len || (w->out_len && fwrite(w->out, 1, w->out_len, f) != w->out_len) ||
        fwrite(end, 1, e.len, f) != e.len) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- reader */

void hp_trace_free(hp_trace *t)
{
    for (size_t i = 0; i < t->nthreads; i++) free(t->threads[i].t);
    free(t->threads);
    memset(t, 0, sizeof *t);
}

static hp_trace_thread *reader_thread(hp_trace *t, uint64_t tid, size_t declared)
{
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->threads[i].tid == tid) return &t->threads[i];
    if (t->nthreads == declared) return NULL;
    hp_trace_thread *th = &t->threads[t->nthreads++];
    th->tid = tid;
    return th;
}

static int grow_thread(hp_trace_thread *th, size_t more)
{
    if (th->cap - th->n >= more) return 0;
    size_t cap = th->cap ? th->cap * 2 : 1024;
    while (cap - th->n < more) cap *= 2;
    hp_trace_tuple *p = realloc(th->t, cap * sizeof *p);
    if (!p) return -1;
    th->t = p, th->cap = cap;
    return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto bad; } while (0)

static int decode_header(hp_rbuf *r, hp_trace *out, uint32_t *nthreads, char *err, size_t errlen)
{
    const uint8_t *magic = hp_get_bytes(r, 8);
    if (!magic || memcmp(magic, HP_TRACE_MAGIC, 8) != 0) { snprintf(err, errlen, "not a hotprof trace (bad magic)"); return -1; }
    uint32_t version = hp_get_u32(r);
    out->kind = hp_get_u32(r), out->flags = hp_get_u32(r), *nthreads = hp_get_u32(r);
    out->events = hp_get_u64(r), out->limit = hp_get_u64(r);
    uint32_t plen = hp_get_u32(r);
    const uint8_t *prog = plen <= HP_TRACE_PROGRAM_MAX ? hp_get_bytes(r, plen) : NULL;
    size_t head_len = r->pos;
    uint32_t crc = hp_get_u32(r);
    if (!r->ok || (!prog && plen)) { snprintf(err, errlen, "truncated or corrupt trace header"); return -1; }
    if (crc != hp_crc32(0, r->p, head_len)) { snprintf(err, errlen, "corrupt trace header (checksum mismatch)"); return -1; }
    if (version != HP_TRACE_VERSION) { snprintf(err, errlen, "trace version %u is not supported (this hotprof reads %u)", version, HP_TRACE_VERSION); return -1; }
    if (!hp_trace_kind_name(out->kind) || *nthreads > HP_TRACE_MAX_THREADS) { snprintf(err, errlen, "corrupt trace header (kind %u, %u threads)", out->kind, *nthreads); return -1; }
    if (plen) memcpy(out->program, prog, plen);
    out->program[plen] = 0;
    return 0;
}

static int decode_chunk(hp_rbuf *r, hp_trace *out, uint32_t nthreads, uint8_t **raw, size_t *raw_cap, uint32_t *count,
                        char *err, size_t errlen)
{
    const uint8_t *head = r->p + r->pos;
    uint64_t tid = hp_get_u64(r);
    uint32_t n = hp_get_u32(r), raw_len = hp_get_u32(r), comp_len = hp_get_u32(r), crc = hp_get_u32(r);
    const uint8_t *comp = hp_get_bytes(r, comp_len);
    if (!r->ok) { snprintf(err, errlen, "trace is truncated (a chunk is cut short)"); return -1; }
    if (crc != hp_crc32(hp_crc32(0, head, 20), comp, comp_len)) { snprintf(err, errlen, "corrupt trace chunk at byte %zu (checksum mismatch)", r->pos - comp_len); return -1; }
    if (n == 0 || n > HP_TRACE_CHUNK_TUPLES || raw_len > (size_t)n * 20 || raw_len < (size_t)n * 2) { snprintf(err, errlen, "corrupt trace chunk (sizes)"); return -1; }
    if (*raw_cap < raw_len) {
        uint8_t *p = realloc(*raw, raw_len);
        if (!p) { snprintf(err, errlen, "out of memory"); return -1; }
        *raw = p, *raw_cap = raw_len;
    }
    size_t got = ZSTD_decompress(*raw, raw_len, comp, comp_len);
    if (ZSTD_isError(got) || got != raw_len) { snprintf(err, errlen, "corrupt trace chunk (zstd: %s)", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size"); return -1; }
    hp_trace_thread *th = reader_thread(out, tid, nthreads);
    if (!th) { snprintf(err, errlen, "corrupt trace: more threads than the header's %u", nthreads); return -1; }
    if (grow_thread(th, n)) { snprintf(err, errlen, "out of memory"); return -1; }
    if (hp_trace_unpack(*raw, raw_len, th->t + th->n, n)) { snprintf(err, errlen, "corrupt trace chunk (tuples)"); return -1; }
    th->n += n;
    *count = n;
    return 0;
}

int hp_trace_decode(const void *buf, size_t len, hp_trace *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    hp_rbuf r = hp_rbuf_make(buf, len);
    uint32_t nthreads;
    uint8_t *raw = NULL;
    size_t raw_cap = 0;
    uint64_t nchunks = 0, events = 0;
    if (decode_header(&r, out, &nthreads, err, errlen)) return -1;
    out->threads = calloc(nthreads ? nthreads : 1, sizeof *out->threads);
    if (!out->threads) FAIL("out of memory");
    for (;;) {
        size_t at = r.pos;
        uint32_t magic = hp_get_u32(&r);
        if (!r.ok) FAIL("trace is truncated (no end record: the recording was cut short)");
        if (magic == HP_TRACE_END_MAGIC) {
            uint32_t declared = hp_get_u32(&r);
            uint64_t ev = hp_get_u64(&r);
            uint32_t crc = hp_get_u32(&r);
            if (!r.ok) FAIL("trace is truncated (end record cut short)");
            if (crc != hp_crc32(0, r.p + at, 16)) FAIL("corrupt trace end record (checksum mismatch)");
            if (declared != nchunks || ev != events || ev != out->events) FAIL("corrupt trace: %llu chunks and %llu events read, the end record says %u and %llu", (unsigned long long)nchunks, (unsigned long long)events, declared, (unsigned long long)ev);
            if (r.pos != len) FAIL("corrupt trace: %zu bytes after the end record", len - r.pos);
            break;
        }
        if (magic != HP_TRACE_CHUNK_MAGIC) FAIL("corrupt trace: no chunk at byte %zu", at);
        uint32_t n = 0;
        if (decode_chunk(&r, out, nthreads, &raw, &raw_cap, &n, err, errlen)) goto bad;
        events += n, nchunks++;
    }
    free(raw);
    return 0;
bad:
    free(raw);
    hp_trace_free(out);
    return -1;
}

int hp_trace_read_file(const char *path, hp_trace *out, char *err, size_t errlen)
{
    char why[400];
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "cannot open trace %s: %s", path, strerror(errno)); return -1; }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 1 << 20) {
            size_t ncap = cap ? cap * 2 : 1 << 20;
            uint8_t *p = realloc(buf, ncap);
            if (!p) { fclose(f); free(buf); snprintf(err, errlen, "%s: out of memory", path); return -1; }
            buf = p, cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) { free(buf); snprintf(err, errlen, "cannot read trace %s", path); return -1; }
    int rc = hp_trace_decode(buf, len, out, why, sizeof why);
    free(buf);
    if (rc) snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

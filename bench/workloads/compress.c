/*
 * compress.c - LZ77 + Huffman compressor and decompressor, shaped like gzip.
 *
 * Holds: a generated pseudo-English text (Zipf-like word choice from a random
 * vocabulary); an LZ77 matcher over a 32 KiB window with hash chains on
 * 3-byte prefixes, the match finder and chain limit picked per pass from a
 * level table of function pointers (like zlib's configuration_table: a fast
 * level that tries the newest candidate only, and a thorough one); deflate-style length and distance codes with extra bits;
 * per-block (64 Ki symbols) Huffman codes built with a binary min-heap and
 * made canonical; an MSB-first bit writer; and a decoder that walks the
 * canonical code bit by bit (like zlib's puff) and replays matches.
 *
 * Checks: decompress(compress(text)) == text byte for byte, and the
 * compressed form is smaller than the text. Prints "ok <checksum>" (a hash of
 * the compressed bytes) and exits 0, or an error and exits 1.
 *
 * Usage: compress [size]   size = kilobytes of text (compressed at both levels).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_KB 11264
#define PASSES 2
#define WBITS 15
#define WSIZE (1 << WBITS)
#define WMASK (WSIZE - 1)
#define HBITS 15
#define HSIZE (1 << HBITS)
#define MIN_MATCH 3
#define MAX_MATCH 258
#define NLIT 286
#define NDIST 30
#define MAXBITS 31
#define BLOCK_SYMS 65536
#define END_BLOCK 256

typedef struct { uint16_t len, val; } lzsym;
typedef struct chains chains;
typedef int (*match_fn)(const chains *c, const uint8_t *t, size_t pos, size_t n, int *dist);
typedef struct { const char *name; match_fn find; } level;   /* len 0: literal val; else match (len, dist val) */
typedef struct { uint8_t *buf; size_t cap, n; uint64_t acc; int nbits; } bitwriter;
typedef struct { const uint8_t *buf; size_t n, pos; int bit; } bitreader;
typedef struct { int count[MAXBITS + 1]; int symbol[NLIT]; } huffdec;
typedef struct { uint8_t len[NLIT]; uint32_t code[NLIT]; } huffenc;

static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                       3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                        193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
                                        6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

static uint64_t rng_state = 0x5851f42d4c957f2dull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rnd(unsigned n) { return (unsigned)(rng_next() % n); }

static void die_at(const char *msg, const char *detail)
{
    fprintf(stderr, "compress: %s %s\n", msg, detail);
    exit(1);
}

static void die(const char *msg) { die_at(msg, ""); }

/* ---- input text ---- */
#define VOCAB 3000
static char vocab[VOCAB][12];

static void make_vocab(void)
{
    for (int i = 0; i < VOCAB; i++) {
        int n = 2 + (int)rnd(9);
        for (int k = 0; k < n; k++)
            vocab[i][k] = (char)('a' + rnd(26));
        vocab[i][n] = 0;
    }
}

static size_t make_text(uint8_t *t, size_t n)
{
    size_t pos = 0;
    while (pos + 16 < n) {
        const char *w = vocab[rnd(rnd(VOCAB) + 1)];
        while (*w)
            t[pos++] = (uint8_t)*w++;
        unsigned p = rnd(20);
        t[pos++] = p == 0 ? '.' : p == 1 ? ',' : p == 2 ? '\n' : ' ';
    }
    return pos;
}

/* ---- symbol codes ---- */
static int length_code(int len)
{
    int c = 28;
    while (len_base[c] > len)
        c--;
    return c;
}

static int dist_code(int dist)
{
    int c = 29;
    while (dist_base[c] > dist)
        c--;
    return c;
}

/* ---- LZ77 with hash chains ---- */
struct chains { int head[HSIZE]; int prev[WSIZE]; int max_chain; };

static unsigned hash3(const uint8_t *p)
{
    return ((unsigned)p[0] * 506832829u ^ (unsigned)p[1] * 2654435761u ^ p[2]) >> (32 - HBITS) &
           (HSIZE - 1);
}

static void insert(chains *c, const uint8_t *t, size_t pos)
{
    unsigned h = hash3(t + pos);
    c->prev[pos & WMASK] = c->head[h];
    c->head[h] = (int)pos;
}

static int match_len(const uint8_t *a, const uint8_t *b, int max)
{
    int n = 0;
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

static int longest_match(const chains *c, const uint8_t *t, size_t pos, size_t n, int *dist)
{
    int best = 0, max = n - pos < MAX_MATCH ? (int)(n - pos) : MAX_MATCH;
    int cand = c->head[hash3(t + pos)], limit = (int)pos - WSIZE, last = (int)pos;
    for (int chain = c->max_chain; cand >= 0 && cand > limit && cand < last && chain > 0; chain--) {
        int l = match_len(t + cand, t + pos, max);
        if (l > best) {
            best = l;
            *dist = (int)pos - cand;
            if (l == max)
                break;
        }
        last = cand;
        cand = c->prev[cand & WMASK];
    }
    return best;
}

/* Fast level: only the newest candidate with the same hash. */
static int newest_match(const chains *c, const uint8_t *t, size_t pos, size_t n, int *dist)
{
    int cand = c->head[hash3(t + pos)];
    int max = n - pos < MAX_MATCH ? (int)(n - pos) : MAX_MATCH;
    if (cand < 0 || cand >= (int)pos || (int)pos - cand >= WSIZE)
        return 0;
    *dist = (int)pos - cand;
    return match_len(t + cand, t + pos, max);
}

static const level levels[] = { { "fast", newest_match }, { "best", longest_match } };

static size_t lz77(const uint8_t *t, size_t n, lzsym *out, chains *c, match_fn find)
{
    size_t ns = 0, pos = 0;
    for (int i = 0; i < HSIZE; i++)
        c->head[i] = -1;
    while (pos < n) {
        int dist = 0, len = pos + MIN_MATCH <= n ? find(c, t, pos, n, &dist) : 0;
        if (len >= MIN_MATCH) {
            out[ns++] = (lzsym){ (uint16_t)len, (uint16_t)dist };
            for (size_t end = pos + (size_t)len; pos < end; pos++)
                if (pos + MIN_MATCH <= n)
                    insert(c, t, pos);
        } else {
            out[ns++] = (lzsym){ 0, t[pos] };
            if (pos + MIN_MATCH <= n)
                insert(c, t, pos);
            pos++;
        }
    }
    return ns;
}

/* ---- Huffman code construction (binary min-heap) ---- */
typedef struct { uint32_t freq[2 * NLIT]; int parent[2 * NLIT]; int heap[2 * NLIT]; int n; } hbuild;

static int heap_less(const hbuild *b, int x, int y)
{
    return b->freq[x] < b->freq[y] || (b->freq[x] == b->freq[y] && x < y);
}

static void heap_push(hbuild *b, int node)
{
    int i = b->n++;
    while (i > 0 && heap_less(b, node, b->heap[(i - 1) / 2])) {
        b->heap[i] = b->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    b->heap[i] = node;
}

static int heap_pop(hbuild *b)
{
    int top = b->heap[0], last = b->heap[--b->n], i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= b->n)
            break;
        if (child + 1 < b->n && heap_less(b, b->heap[child + 1], b->heap[child]))
            child++;
        if (!heap_less(b, b->heap[child], last))
            break;
        b->heap[i] = b->heap[child];
        i = child;
    }
    if (b->n > 0)
        b->heap[i] = last;
    return top;
}

static int node_depth(const hbuild *b, int node)
{
    int d = 0;
    while (b->parent[node] >= 0) {
        node = b->parent[node];
        d++;
    }
    return d;
}

static void build_lengths(const uint32_t *freq, int nsym, uint8_t *len)
{
    static hbuild b;
    b.n = 0;
    int used = 0, next = nsym;
    for (int s = 0; s < nsym; s++) {
        b.freq[s] = freq[s];
        b.parent[s] = -1;
        len[s] = 0;
        if (freq[s]) {
            heap_push(&b, s);
            used++;
        }
    }
    if (used == 1)
        len[b.heap[0]] = 1;
    while (b.n > 1) {
        int x = heap_pop(&b), y = heap_pop(&b);
        b.freq[next] = b.freq[x] + b.freq[y];
        b.parent[next] = -1;
        b.parent[x] = b.parent[y] = next;
        heap_push(&b, next++);
    }
    for (int s = 0; s < nsym && used > 1; s++)
        if (freq[s])
            len[s] = (uint8_t)node_depth(&b, s);
}

static void canonical_codes(const uint8_t *len, uint32_t *codes, int nsym)
{
    int bl_count[MAXBITS + 2] = { 0 };
    uint32_t next_code[MAXBITS + 2] = { 0 }, code = 0;
    for (int s = 0; s < nsym; s++)
        bl_count[len[s]]++;
    bl_count[0] = 0;
    for (int bits = 1; bits <= MAXBITS; bits++) {
        code = (code + (uint32_t)bl_count[bits - 1]) << 1;
        next_code[bits] = code;
    }
    for (int s = 0; s < nsym; s++)
        codes[s] = len[s] ? next_code[len[s]]++ : 0;
}

/* ---- bit I/O ---- */
static void put_bits(bitwriter *w, uint32_t value, int n)
{
    w->acc = (w->acc << n) | value;
    w->nbits += n;
    while (w->nbits >= 8) {
        if (w->n >= w->cap)
            die("output buffer overflow");
        w->buf[w->n++] = (uint8_t)(w->acc >> (w->nbits - 8));
        w->nbits -= 8;
    }
}

static void flush_bits(bitwriter *w)
{
    if (w->nbits > 0)
        put_bits(w, 0, 8 - w->nbits);
}

static int get_bit(bitreader *r)
{
    if (r->pos >= r->n)
        die("truncated stream");
    int b = (r->buf[r->pos] >> (7 - r->bit)) & 1;
    if (++r->bit == 8) {
        r->bit = 0;
        r->pos++;
    }
    return b;
}

static uint32_t get_bits(bitreader *r, int n)
{
    uint32_t v = 0;
    while (n-- > 0)
        v = (v << 1) | (uint32_t)get_bit(r);
    return v;
}

/* ---- block encoder ---- */
static void count_block(const lzsym *s, size_t n, uint32_t *lf, uint32_t *df)
{
    memset(lf, 0, sizeof(uint32_t) * NLIT);
    memset(df, 0, sizeof(uint32_t) * NDIST);
    for (size_t i = 0; i < n; i++) {
        if (s[i].len == 0) {
            lf[s[i].val]++;
        } else {
            lf[257 + length_code(s[i].len)]++;
            df[dist_code(s[i].val)]++;
        }
    }
    lf[END_BLOCK]++;
}

static void put_sym(bitwriter *w, const huffenc *e, int sym)
{
    put_bits(w, e->code[sym], e->len[sym]);
}

static void put_match(bitwriter *w, const huffenc *le, const huffenc *de, lzsym s)
{
    int lc = length_code(s.len), dc = dist_code(s.val);
    put_sym(w, le, 257 + lc);
    put_bits(w, (uint32_t)(s.len - len_base[lc]), len_extra[lc]);
    put_sym(w, de, dc);
    put_bits(w, (uint32_t)(s.val - dist_base[dc]), dist_extra[dc]);
}

static void encode_block(bitwriter *w, const lzsym *s, size_t n, int final)
{
    uint32_t lf[NLIT], df[NDIST];
    static huffenc le, de;
    count_block(s, n, lf, df);
    build_lengths(lf, NLIT, le.len);
    build_lengths(df, NDIST, de.len);
    canonical_codes(le.len, le.code, NLIT);
    canonical_codes(de.len, de.code, NDIST);
    put_bits(w, (uint32_t)final, 1);
    for (int i = 0; i < NLIT; i++)
        put_bits(w, le.len[i], 5);
    for (int i = 0; i < NDIST; i++)
        put_bits(w, de.len[i], 5);
    for (size_t i = 0; i < n; i++) {
        if (s[i].len == 0)
            put_sym(w, &le, s[i].val);
        else
            put_match(w, &le, &de, s[i]);
    }
    put_sym(w, &le, END_BLOCK);
}

static size_t compress(const uint8_t *t, size_t n, uint8_t *out, size_t cap, lzsym *syms, chains *c,
                       const level *lv)
{
    size_t ns = lz77(t, n, syms, c, lv->find);
    bitwriter w = { out, cap, 0, 0, 0 };
    for (size_t i = 0; i < ns || i == 0; i += BLOCK_SYMS) {
        size_t len = ns - i < BLOCK_SYMS ? ns - i : BLOCK_SYMS;
        encode_block(&w, syms + i, len, i + len >= ns);
    }
    flush_bits(&w);
    return w.n;
}

/* ---- decoder ---- */
static void build_decoder(huffdec *h, const uint8_t *len, int nsym)
{
    int offs[MAXBITS + 2];
    memset(h->count, 0, sizeof h->count);
    for (int s = 0; s < nsym; s++)
        h->count[len[s]]++;
    offs[1] = 0;
    for (int l = 1; l < MAXBITS; l++)
        offs[l + 1] = offs[l] + h->count[l];
    for (int s = 0; s < nsym; s++)
        if (len[s])
            h->symbol[offs[len[s]]++] = s;
}

static int decode_sym(bitreader *r, const huffdec *h)
{
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= MAXBITS; len++) {
        code |= get_bit(r);
        int count = h->count[len];
        if (code - count < first)
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    die("bad Huffman code");
    return -1;
}

static void read_lengths(bitreader *r, uint8_t *len, int n)
{
    for (int i = 0; i < n; i++)
        len[i] = (uint8_t)get_bits(r, 5);
}

static size_t copy_match(uint8_t *out, size_t pos, size_t cap, int len, int dist)
{
    if ((size_t)dist > pos || pos + (size_t)len > cap)
        die("bad match in stream");
    for (int k = 0; k < len; k++, pos++)
        out[pos] = out[pos - (size_t)dist];
    return pos;
}

static size_t decode_block(bitreader *r, const huffdec *lit, const huffdec *dst, uint8_t *out,
                           size_t pos, size_t cap)
{
    for (;;) {
        int sym = decode_sym(r, lit);
        if (sym < 256) {
            if (pos >= cap)
                die("output overflow");
            out[pos++] = (uint8_t)sym;
        } else if (sym == END_BLOCK) {
            return pos;
        } else {
            int lc = sym - 257;
            int len = len_base[lc] + (int)get_bits(r, len_extra[lc]);
            int dc = decode_sym(r, dst);
            int dist = dist_base[dc] + (int)get_bits(r, dist_extra[dc]);
            pos = copy_match(out, pos, cap, len, dist);
        }
    }
}

static size_t decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    bitreader r = { in, n, 0, 0 };
    static huffdec lit, dst;
    uint8_t ll[NLIT], dl[NDIST];
    size_t pos = 0;
    int final = 0;
    while (!final) {
        final = get_bit(&r);
        read_lengths(&r, ll, NLIT);
        read_lengths(&r, dl, NDIST);
        build_decoder(&lit, ll, NLIT);
        build_decoder(&dst, dl, NDIST);
        pos = decode_block(&r, &lit, &dst, out, pos, cap);
    }
    return pos;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    long kb = argc > 1 ? atol(argv[1]) : DEFAULT_KB;
    if (kb < 1)
        kb = 1;
    size_t cap = (size_t)kb * 1024, zcap = cap + cap / 2 + 4096;
    uint8_t *text = malloc(cap), *z = malloc(zcap), *back = malloc(cap);
    lzsym *syms = malloc(sizeof(lzsym) * cap);
    chains *c = malloc(sizeof *c);
    if (!text || !z || !back || !syms || !c)
        die("out of memory");
    make_vocab();
    size_t n = make_text(text, cap);
    uint64_t h = 0xcbf29ce484222325ull;
    c->max_chain = 128;
    for (int pass = 0; pass < PASSES; pass++) {
        size_t zn = compress(text, n, z, zcap, syms, c, &levels[pass % 2]);
        size_t bn = decompress(z, zn, back, cap);
        const char *name = levels[pass % 2].name;
        if (bn != n || memcmp(back, text, n) != 0)
            die_at("FAILED: decompressed output differs from input at level", name);
        if (zn >= n)
            die_at("FAILED: output is not smaller than input at level", name);
        h = hash_bytes(z, zn, h) ^ zn;
        memset(back, 0, n);
    }
    printf("ok %016llx\n", (unsigned long long)h);
    free(text);
    free(z);
    free(back);
    free(syms);
    free(c);
    return 0;
}

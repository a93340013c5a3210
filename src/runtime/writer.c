/* writer.c — the profile writer: file header, INFO, MODULES and data groups (format.h).
 *
 * Everything here is async-signal-safe: it runs at exit, from hotprof_flush and from the
 * fatal-signal handler. It never calls malloc: records are encoded with format.h's encoders into
 * one static 64 KiB buffer and written with pwrite(). A section is written as a zeroed header
 * placeholder, then its payload (streamed, CRC and length accumulated as it goes), then the real
 * header is pwrite()n over the placeholder. Live counters therefore cannot make a section's CRC
 * disagree with its payload (FUNCS sums the call pairs by callee in an mmap'd scratch table:
 * mmap/munmap are plain system calls), and a process killed mid-section leaves a header the reader
 * rejects (bad magic), i.e. an incomplete last group, which the reader ignores.
 *
 * Bursty mode (rt.h): FUNCS comes from the thread's methods table (sampled calls and back-edges)
 * instead of summing call pairs, and the group INFO also carries the sampling configuration and
 * each thread's per-type events / sampled counts (docs/format.md), read live like the counts.
 * A thread with a hot data stream detector also gets a SUMMARY section (profile type datastream):
 * the detector serialized into an mmap'd scratch buffer under the thread's ds_seq seqlock (retried
 * while the owner processes a trace; see write_datastream), then streamed like any payload.
 *
 * Invariants: one writer at a time (g_writer_owner holds the writing thread's id); after a final
 * group (normal exit or crash) g_done is set and nothing more is written. Another thread's
 * counts are read while it runs: each table is read through its published pointer (rt.h), so a
 * group is a consistent, slightly stale snapshot. The file offset is ours (g_off), not the fd's.
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include "core/format/format.h"
#include "core/control/spec.h"
#include <stdatomic.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WBUF_BYTES (64u * 1024u)

static uint8_t g_buf[WBUF_BYTES];
static size_t g_buf_len;
static int g_fd = -1;
static uint64_t g_off;      /* where the next byte goes */
static int g_io_error;
static uint64_t g_sec_header_off, g_sec_len;
static uint32_t g_sec_type, g_sec_crc;
static uint64_t g_group_seq;
static int g_done;
static int g_writer_owner; /* tid of the writing thread, 0 if none */

/* ---------------------------------------------------------------- text helpers */

HP_NOINST size_t hp_fmt_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do tmp[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

HP_NOINST size_t hp_fmt_hex(char *out, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 2, shift = 60;
    out[0] = '0', out[1] = 'x';
    while (shift > 0 && ((v >> shift) & 15) == 0) shift -= 4;
    for (;; shift -= 4) {
        out[n++] = digits[(v >> shift) & 15];
        if (shift == 0) break;
    }
    return n;
}

HP_NOINST void hp_say(const char *const *parts, size_t n)
{
    static char line[1024]; /* callers hold the writer lock or run single-threaded at exit */
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        if (l > sizeof line - 1 - len) l = sizeof line - 1 - len;
        memcpy(line + len, parts[i], l);
        len += l;
    }
    line[len++] = '\n';
    ssize_t r = write(2, line, len);
    (void)r;
}

/* ---------------------------------------------------------------- raw output */

static HP_NOINST void out_raw(const void *p, size_t n, uint64_t off)
{
    const uint8_t *b = p;
    while (n && !g_io_error) {
        ssize_t w = pwrite(g_fd, b, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { g_io_error = 1; return; }
        b += w, n -= (size_t)w, off += (uint64_t)w;
    }
}

static HP_NOINST void buf_flush(void)
{
    out_raw(g_buf, g_buf_len, g_off);
    g_off += g_buf_len;
    g_buf_len = 0;
}

/* ---------------------------------------------------------------- sections */

static HP_NOINST void sec_begin(uint32_t type)
{
    static const uint8_t zeros[HP_FMT_SECTION_HEADER_SIZE];
    buf_flush();
    g_sec_header_off = g_off;
    out_raw(zeros, sizeof zeros, g_off);
    g_off += sizeof zeros;
    g_sec_type = type;
    g_sec_len = 0;
    g_sec_crc = 0;
}

static HP_NOINST void sec_put(const void *p, size_t n)
{
    const uint8_t *b = p;
    g_sec_crc = hp_crc32(g_sec_crc, b, n);
    g_sec_len += n;
    while (n) {
        if (g_buf_len == WBUF_BYTES) buf_flush();
        size_t k = WBUF_BYTES - g_buf_len < n ? WBUF_BYTES - g_buf_len : n;
        memcpy(g_buf + g_buf_len, b, k);
        g_buf_len += k, b += k, n -= k;
    }
}

static HP_NOINST void sec_end(void)
{
    uint8_t h[HP_FMT_SECTION_HEADER_SIZE];
    buf_flush();
    hp_fmt_section_header(h, g_sec_type, g_sec_len, g_sec_crc);
    out_raw(h, sizeof h, g_sec_header_off);
}

static HP_NOINST void sec_whole(uint32_t type, const void *p, size_t n)
{
    sec_begin(type);
    sec_put(p, n);
    sec_end();
}

/* ---------------------------------------------------------------- start of file */

HP_NOINST int hp_write_start(int fd, const char *info, size_t info_len, uint64_t seed)
{
    uint8_t h[HP_FMT_FILE_HEADER_SIZE];
    g_fd = fd;
    g_off = 0;
    g_buf_len = 0;
    g_io_error = 0;
    hp_fmt_file_header(h, seed, 0);
    out_raw(h, sizeof h, 0);
    g_off = sizeof h;
    sec_whole(HP_SEC_INFO, info, info_len);
    size_t mlen;
    const uint8_t *mods = hp_modules_payload(&mlen);
    sec_whole(HP_SEC_MODULES, mods, mlen);
    return g_io_error ? HP_WRITE_IOERR : HP_WRITE_OK;
}

HP_NOINST void hp_writer_reset_after_fork(int fd)
{
    g_writer_owner = 0;
    g_done = fd < 0;
    g_group_seq = 0;
    g_fd = fd;
}

/* ---------------------------------------------------------------- the writer lock */

static HP_NOINST int writer_acquire(void)
{
    int me = (int)syscall(SYS_gettid);
    for (int waited_ms = 0;; waited_ms++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&g_writer_owner, &expected, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (expected == me || waited_ms >= 3000) return 0; /* crashed inside our own write, or stuck */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static HP_NOINST void writer_release(void) { __atomic_store_n(&g_writer_owner, 0, __ATOMIC_RELEASE); }

/* ---------------------------------------------------------------- group parts */

static HP_NOINST void write_blockmap(void)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g_bmap);
    uint32_t n = HP_LOAD_ACQ(&hp_g_guards);
    sec_begin(HP_SEC_BLOCKMAP);
    for (uint32_t id = 1; m && id <= n && id < m->cap; id++) {
        uint64_t pc = HP_LOAD_RLX(&m->e[id].pc);
        if (!pc) continue;
        hp_rec_block r = {id, (uint32_t)HP_LOAD_RLX(&m->e[id].flags), pc};
        uint8_t rec[HP_REC_BLOCK_SIZE];
        hp_fmt_put_block(rec, &r);
        sec_put(rec, sizeof rec);
    }
    sec_end();
}

static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    if (t->bursty) { /* patched bursts (XRay, call sites) do not run the controller: their
                      * recorded events are the events */
        uint64_t e = hp_bursty_thread_events(t);
        return e ? e : HP_LOAD_RLX(&t->tot.calls) + HP_LOAD_RLX(&t->tot.backedges) +
                           HP_LOAD_RLX(&t->tot.blocks) + HP_LOAD_RLX(&t->tot.loads) + HP_LOAD_RLX(&t->tot.stores);
    }
    return HP_LOAD_RLX(&t->tot.calls) + HP_LOAD_RLX(&t->tot.blocks) + HP_LOAD_RLX(&t->tot.loads) +
           HP_LOAD_RLX(&t->tot.stores) + HP_LOAD_RLX(&t->tot.cmps);
}

enum tab_kind { TAB_PAIRS, TAB_EDGES, TAB_METHODS };

static HP_NOINST void put_func(uint64_t addr, uint64_t calls, uint64_t backedges);

static HP_NOINST void put_slot(enum tab_kind kind, const hp_slot *s, uint64_t k1)
{
    uint8_t rec[24];
    uint64_t v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
    if (kind == TAB_METHODS && (v1 || v2)) {
        put_func(k1, v1, v2);
    } else if (kind == TAB_PAIRS && v1) {
        hp_rec_callpair r = {s->k2, k1, v1};
        hp_fmt_put_callpair(rec, &r);
        sec_put(rec, HP_REC_CALLPAIR_SIZE);
    } else if (kind == TAB_EDGES && v1) {
        hp_rec_edge r = {(uint32_t)(k1 >> 32), (uint32_t)k1, v1};
        hp_fmt_put_edge(rec, &r);
        sec_put(rec, HP_REC_EDGE_SIZE);
    }
}

static HP_NOINST void write_table(uint32_t type, hp_tab *const *tabp, enum tab_kind kind)
{
    hp_tab *t = HP_LOAD_ACQ(tabp);
    sec_begin(type);
    for (uint64_t i = 0; i <= t->mask; i++) {
        uint64_t k1 = HP_LOAD_ACQ(&t->s[i].k1);
        if (k1) put_slot(kind, &t->s[i], k1);
    }
    sec_end();
}

static HP_NOINST void put_func(uint64_t addr, uint64_t calls, uint64_t backedges)
{
    uint8_t rec[HP_REC_FUNC_SIZE];
    hp_rec_func r = {addr, calls, backedges};
    hp_fmt_put_func(rec, &r);
    sec_put(rec, sizeof rec);
}

/* FUNCS: the thread's call pairs summed by callee, in a scratch table mmap'd for the occasion
 * (a syscall, fine in a signal handler). If mmap fails, one record per pair: records of one
 * key add up in a group (format.h), so the file means the same, only longer. */
static HP_NOINST void write_funcs(const hp_thread *t)
{
    if (t->bursty) { /* methods have their own table: one record per function */
        write_table(HP_SEC_FUNCS, &t->methods, TAB_METHODS);
        return;
    }
    hp_tab *pairs = HP_LOAD_ACQ(&t->pairs);
    hp_tab *sum = hp_tab_new(pairs->mask + 1); /* distinct callees <= pairs used <= capacity/2 */
    sec_begin(HP_SEC_FUNCS);
    for (uint64_t i = 0; i <= pairs->mask; i++) {
        const hp_slot *s = &pairs->s[i];
        uint64_t k1 = HP_LOAD_ACQ(&s->k1), v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
        if (!k1 || !(v1 || v2)) continue;
        if (!sum) { put_func(k1, v1, v2); continue; }
        hp_slot *f = hp_tab_get(&sum, k1, 0);
        f->v1 += v1;
        f->v2 += v2;
    }
    for (uint64_t i = 0; sum && i <= sum->mask; i++)
        if (sum->s[i].k1) put_func(sum->s[i].k1, sum->s[i].v1, sum->s[i].v2);
    sec_end();
    if (sum) munmap(sum, sizeof(hp_tab) + (sum->mask + 1) * sizeof(hp_slot));
}

static HP_NOINST void write_blocks(const hp_thread *t)
{
    hp_counts *c = HP_LOAD_ACQ(&t->blocks);
    sec_begin(HP_SEC_BLOCKS);
    for (uint64_t id = 1; id < c->cap; id++) {
        uint64_t n = HP_LOAD_RLX(&c->c[id]);
        if (!n) continue;
        hp_rec_count r = {(uint32_t)id, 0, n};
        uint8_t rec[HP_REC_COUNT_SIZE];
        hp_fmt_put_count(rec, &r);
        sec_put(rec, sizeof rec);
    }
    sec_end();
}

/* ---------------------------------------------------------------- data streams */

/* Serialization scratch: one mapping, grown by mmap (the old one unmapped) and kept; only the
 * writer (g_writer_owner) uses it. */
static uint8_t *g_ds_buf;
static size_t g_ds_cap;

static HP_NOINST uint8_t *ds_scratch(size_t need)
{
    if (need <= g_ds_cap) return g_ds_buf;
    size_t cap = (need + 65535) & ~(size_t)65535;
    uint8_t *b = hp_map(cap);
    if (!b) return NULL;
    if (g_ds_buf) munmap(g_ds_buf, g_ds_cap);
    g_ds_buf = b, g_ds_cap = cap;
    return b;
}

/* One try at a stable serialization of another thread's detector (seqlock t->ds_seq): the
 * length, or 0 if the owner was processing a trace meanwhile (or mmap failed). */
static HP_NOINST size_t ds_try_serialize(const hp_thread *t, const hp_ds_state *ds)
{
    uint64_t seq = HP_LOAD_ACQ(&t->ds_seq);
    if (seq & 1) return 0;
    size_t need = hp_ds_serialized_size(ds);
    uint8_t *buf = ds_scratch(need);
    size_t n = buf ? hp_ds_serialize(ds, buf, need) : 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return HP_LOAD_RLX(&t->ds_seq) == seq ? n : 0;
}

/* SUMMARY (profile type datastream): the thread's hot data stream detector, if it has one. The
 * trace of a burst still in progress is not included. A thread that keeps processing traces
 * through 200 tries (about 0.2 s) is left out of this group, never written torn; so is the
 * writing thread's own detector when the writer interrupted its processing (a fatal signal):
 * waiting for it would never end. */
static HP_NOINST void write_datastream(const hp_thread *t)
{
    const hp_ds_state *ds = HP_LOAD_ACQ(&t->ds);
    if (!ds) return;
    size_t n = 0;
    int max_tries = t == hp_tls ? 1 : 200;
    for (int tries = 0; tries < max_tries && !(n = ds_try_serialize(t, ds)); tries++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (!n) return;
    uint8_t prefix[8];
    hp_wbuf w = hp_wbuf_make(prefix, sizeof prefix);
    hp_put_u32(&w, HP_PROFILE_DATASTREAM);
    hp_put_u32(&w, 0);
    sec_begin(HP_SEC_SUMMARY);
    sec_put(prefix, sizeof prefix);
    sec_put(g_ds_buf, n);
    sec_end();
}

static HP_NOINST void write_thread(const hp_thread *t, uint64_t events)
{
    uint8_t rec[16];
    hp_wbuf w = hp_wbuf_make(rec, sizeof rec);
    hp_put_u64(&w, t->tid);
    hp_put_u64(&w, events);
    sec_whole(HP_SEC_THREAD, rec, sizeof rec);
    write_funcs(t);
    write_table(HP_SEC_CALLPAIRS, &t->pairs, TAB_PAIRS);
    write_blocks(t);
    write_table(HP_SEC_EDGES, &t->edges, TAB_EDGES);
    write_datastream(t);
}

/* "key=value\n" with a decimal value, into the current section. */
static HP_NOINST void info_u64(const char *key, uint64_t v)
{
    char num[24];
    size_t n = hp_fmt_u64(num, v);
    sec_put(key, strlen(key));
    sec_put("=", 1);
    sec_put(num, n);
    sec_put("\n", 1);
}

/* thread.<tid>=calls blocks backedges loads stores compares */
static HP_NOINST void info_thread_line(const hp_thread *t)
{
    char num[24];
    const uint64_t v[6] = {HP_LOAD_RLX(&t->tot.calls), HP_LOAD_RLX(&t->tot.blocks), HP_LOAD_RLX(&t->tot.backedges),
                           HP_LOAD_RLX(&t->tot.loads), HP_LOAD_RLX(&t->tot.stores), HP_LOAD_RLX(&t->tot.cmps)};
    sec_put("thread.", 7);
    sec_put(num, hp_fmt_u64(num, t->tid));
    for (int i = 0; i < 6; i++) {
        sec_put(i ? " " : "=", 1);
        sec_put(num, hp_fmt_u64(num, v[i]));
    }
    sec_put("\n", 1);
}

/* ---------------------------------------------------------------- bursty INFO */

static HP_NOINST size_t cat(char *out, size_t len, size_t cap, const char *s, size_t n)
{
    for (size_t i = 0; i < n && len + 1 < cap; i++) out[len++] = s[i];
    return len;
}
#define CAT_STR(out, len, cap, s) cat(out, len, cap, s, strlen(s))
static HP_NOINST size_t cat_u64(char *out, size_t len, size_t cap, uint64_t v)
{
    char num[24];
    return cat(out, len, cap, num, hp_fmt_u64(num, v));
}

HP_NOINST size_t hp_sample_info(char *out, size_t cap)
{
    size_t n = 0;
    uint32_t on = atomic_load_explicit(&hp_g_bcfg.enabled_mask, memory_order_relaxed);
    for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
        const char *name = hp_sample_type_name(type);
        n = CAT_STR(out, n, cap, "sample."), n = CAT_STR(out, n, cap, name), n = CAT_STR(out, n, cap, "=period=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g_bcfg.period[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, ",burst=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g_bcfg.burst[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, ",jitter=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g_bcfg.jitter_pct[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, "\nsample."), n = CAT_STR(out, n, cap, name), n = CAT_STR(out, n, cap, ".enabled=");
        n = CAT_STR(out, n, cap, (on >> type) & 1 ? "1\n" : "0\n");
    }
    return n;
}

/* hp_bursty_counts read from another thread: the owner's fast path keeps decrementing the
 * countdown, so the pending events are read once and a torn (countdown, armed) pair — the owner
 * inside its slow path — counts as none pending. */
static HP_NOINST void bursty_counts(const hp_thread *t, int type, uint64_t *events, uint64_t *sampled)
{
    uint32_t armed = HP_LOAD_RLX(&t->bs.armed), countdown = HP_LOAD_RLX(&t->bs.countdown);
    *events = HP_LOAD_RLX(&t->bs.t[type].events);
    *sampled = HP_LOAD_RLX(&t->bs.t[type].sampled);
    if ((HP_LOAD_RLX(&t->bs.enabled_mask) >> type & 1) && countdown <= armed) *events += armed - countdown;
}

HP_NOINST uint64_t hp_bursty_thread_events(const hp_thread *t)
{
    uint64_t most = 0, e, s;
    for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
        bursty_counts(t, type, &e, &s);
        if (e > most) most = e;
    }
    return most;
}

/* "thread.<tid>.<what>.<type>=<v>\n" */
static HP_NOINST void info_thread_type(const hp_thread *t, const char *what, const char *type, uint64_t v)
{
    char line[128];
    size_t n = CAT_STR(line, 0, sizeof line, "thread.");
    n = cat_u64(line, n, sizeof line, t->tid);
    n = CAT_STR(line, n, sizeof line, "."), n = CAT_STR(line, n, sizeof line, what);
    if (type) n = CAT_STR(line, n, sizeof line, "."), n = CAT_STR(line, n, sizeof line, type);
    n = CAT_STR(line, n, sizeof line, "=");
    n = cat_u64(line, n, sizeof line, v);
    n = CAT_STR(line, n, sizeof line, "\n");
    sec_put(line, n);
}

/* The sampling configuration as it is now, and per thread its seed and, per type, the boundary
 * events seen while the type was enabled and how many of them were sampled (hp_bursty_counts). */
static HP_NOINST void info_bursty(void)
{
    char buf[1024];
    sec_put(buf, hp_sample_info(buf, sizeof buf));
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g_threads); t; t = t->next) {
        if (!thread_events(t)) continue;
        info_thread_type(t, "seed", NULL, t->seed);
        for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
            const char *name = hp_sample_type_name(type);
            uint64_t e, smp;
            bursty_counts(t, type, &e, &smp);
            info_thread_type(t, "events", name, e);
            info_thread_type(t, "sampled", name, smp);
        }
    }
}

/* Per-group INFO: totals the data sections cannot carry (loads, stores, compares). */
static HP_NOINST void write_group_info(uint64_t seq, uint64_t flags, int64_t status, hp_totals *sum, uint64_t nthreads)
{
    sec_begin(HP_SEC_INFO);
    info_u64("group", seq);
    info_u64("group_flags", flags);
    sec_put("exit_status=", 12);
    if (status < 0) sec_put("-", 1);
    char num[24];
    sec_put(num, hp_fmt_u64(num, (uint64_t)(status < 0 ? -status : status)));
    sec_put("\n", 1);
    info_u64("threads", nthreads);
    info_u64("total.calls", sum->calls);
    info_u64("total.blocks", sum->blocks);
    info_u64("total.backedges", sum->backedges);
    info_u64("total.loads", sum->loads);
    info_u64("total.stores", sum->stores);
    info_u64("total.compares", sum->cmps);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g_threads); t; t = t->next)
        if (thread_events(t)) info_thread_line(t);
    if (HP_LOAD_ACQ(&hp_g_bursty)) info_bursty();
    char pb[768];
    sec_put(pb, hp_pb_info(pb, sizeof pb)); /* patched bursts (XRay or call sites), if any */
    sec_end();
}

static HP_NOINST void write_group_end(uint64_t seq, uint64_t flags, int64_t status)
{
    uint8_t rec[24];
    hp_wbuf w = hp_wbuf_make(rec, sizeof rec);
    hp_put_u64(&w, seq);
    hp_put_u64(&w, flags);
    hp_put_u64(&w, (uint64_t)status);
    sec_whole(HP_SEC_GROUP_END, rec, sizeof rec);
}

static HP_NOINST void add_totals(hp_totals *sum, const hp_thread *t)
{
    sum->calls += HP_LOAD_RLX(&t->tot.calls);
    sum->blocks += HP_LOAD_RLX(&t->tot.blocks);
    sum->backedges += HP_LOAD_RLX(&t->tot.backedges);
    sum->loads += HP_LOAD_RLX(&t->tot.loads);
    sum->stores += HP_LOAD_RLX(&t->tot.stores);
    sum->cmps += HP_LOAD_RLX(&t->tot.cmps);
}

HP_NOINST int hp_write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st)
{
    if (g_fd < 0 || HP_LOAD_ACQ(&g_done)) return HP_WRITE_DONE;
    if (!writer_acquire()) return HP_WRITE_BUSY;
    if (g_done) { writer_release(); return HP_WRITE_DONE; }
    uint64_t seq = g_group_seq++;
    hp_totals sum = {0};
    uint64_t nthreads = 0;
    size_t mlen;
    const uint8_t *mods = hp_modules_payload(&mlen);
    sec_whole(HP_SEC_MODULES, mods, mlen);
    write_blockmap();
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g_threads); t; t = t->next) {
        uint64_t events = thread_events(t);
        if (!events) continue;
        write_thread(t, events);
        add_totals(&sum, t);
        nthreads++;
    }
    write_group_info(seq, flags, status, &sum, nthreads);
    write_group_end(seq, flags, status);
    if (final) {
        HP_STORE_REL(&g_done, 1);
        HP_STORE_REL(&hp_g_stopped, 1);
        hp_threads_set_active(0);
    }
    int rc = g_io_error ? HP_WRITE_IOERR : HP_WRITE_OK;
    if (st) *st = (hp_group_stats){nthreads, sum.calls, sum.blocks};
    writer_release();
    return rc;
}

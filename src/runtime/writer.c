/* writer.c — the profile writer: file header, INFO, MODULES and data groups (format.h).
 *
 * Everything here is async-signal-safe: it runs at exit, from hotprof_flush and from the
 * fatal-signal handler. It never calls malloc: records are encoded with format.h's encoders into
 * one static 64 KiB buffer and written with pwrite(). A section is written as a zeroed header
 * placeholder, then its payload (streamed, CRC and length accumulated as it goes), then the real
 * header is pwrite()n over the placeholder. Live counters therefore cannot make a section's CRC
 * disagree with its payload, and a process killed mid-section leaves a header the reader
 * rejects (bad magic), i.e. an incomplete last group, which the reader ignores.
 *
 * A group: MODULES, each profile type's group sections (pt/pt.h: BLOCKMAP), then per thread with
 * events a THREAD section and each profile type's sections, ITERATING hp_rt_ptypes (this file
 * names no profile type), then the group INFO and GROUP_END. The section primitives reach the
 * types' write functions as an hp_pt_sink. INFO key names come from core/format/info_keys.h.
 *
 * Bursty mode: the group INFO also carries the sampling configuration and each thread's per-type
 * events / sampled counts (docs/format.md), read live like the counts; patched bursts add their
 * "<backend>.*" lines (ctl/bursts.c: hp_pb_info).
 *
 * State: the output buffer, file descriptor, offset, section and group bookkeeping below are
 * this file's own (file-static, not process globals of base.h).
 * Invariants: one writer at a time (hp_threads_lock: thread.c holds the lock word, because an
 * exiting thread's merge takes the same lock); after a final
 * group (normal exit or crash) g_done is set and nothing more is written. Another thread's
 * counts are read while it runs: each table is read through its published pointer (tab.h), so a
 * group is a consistent, slightly stale snapshot. The file offset is ours (g_off), not the fd's.
 * The first failed write (short write, ENOSPC, EFBIG, ...) stops all output; its errno is kept
 * (hp_write_errno) and every later group returns HP_WRITE_IOERR, so the caller reports it.
 */
#define _GNU_SOURCE
#include "runtime/writer.h"
#include "runtime/pt/pt.h"
#include "runtime/ctl/ctl.h"
#include "runtime/ctl/shadow.h"
#include "runtime/ctl/dual.h"
#include "runtime/modules.h"
#include "core/format/info_keys.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include "core/format/format.h"
#include "core/control/spec.h"
#include <stdatomic.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WBUF_BYTES (64u * 1024u)

static uint8_t g_buf[WBUF_BYTES];
static size_t g_buf_len;
static int g_fd = -1;
static uint64_t g_off;      /* where the next byte goes */
static int g_io_error;
static int g_io_errno; /* errno of the first failed write (EIO for a write of 0 bytes) */
static uint64_t g_sec_header_off, g_sec_len;
static uint32_t g_sec_type, g_sec_crc;
static uint64_t g_group_seq;
static int g_done;

HP_NOINST int hp_write_errno(void) { return g_io_error ? g_io_errno : 0; }

/* ---------------------------------------------------------------- raw output */

static HP_NOINST void out_raw(const void *p, size_t n, uint64_t off)
{
    const uint8_t *b = p;
    while (n && !g_io_error) {
        ssize_t w = pwrite(g_fd, b, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            g_io_errno = w < 0 ? errno : EIO;
            g_io_error = 1;
            return;
        }
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
    g_io_errno = 0;
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
    hp_threads_lock_reset();
    g_done = fd < 0;
    g_group_seq = 0;
    g_fd = fd;
}

/* ---------------------------------------------------------------- the writer lock */

/* The lock is thread.c's (hp_threads_lock): an exiting thread's merge into the exited-threads
 * record takes it too, so a group never sees those counts twice or not at all. */
static HP_NOINST int writer_acquire(void) { return hp_threads_lock(); }
static HP_NOINST void writer_release(void) { hp_threads_unlock(); }

/* ---------------------------------------------------------------- group parts */

/* Events of the types that count their own (pt.h thread_events). */
static HP_NOINST uint64_t own_events(const hp_thread *t)
{
    uint64_t n = 0;
    for (const hp_pt *const *pt = hp_rt_ptypes; *pt; pt++)
        if ((*pt)->thread_events) n += (*pt)->thread_events(t);
    return n;
}

static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    if (t->bursty == HP_THREAD_BURSTY) { /* patched bursts (XRay, call sites) do not run the controller: their
                      * recorded events are the events */
        uint64_t e = hp_bursty_thread_events(t);
        return e ? e : HP_LOAD_RLX(&t->tot.calls) + HP_LOAD_RLX(&t->tot.backedges) +
                           HP_LOAD_RLX(&t->tot.blocks) + HP_LOAD_RLX(&t->tot.loads) + HP_LOAD_RLX(&t->tot.stores) +
                           own_events(t);
    }
    return HP_LOAD_RLX(&t->tot.calls) + HP_LOAD_RLX(&t->tot.blocks) + HP_LOAD_RLX(&t->tot.loads) +
           HP_LOAD_RLX(&t->tot.stores) + HP_LOAD_RLX(&t->tot.cmps) +
           (t->timer ? own_events(t) : 0); /* timer mode: a thread's samples are its events */
}

static const hp_pt_sink g_sink = {sec_begin, sec_put, sec_end};

/* THREAD, then each profile type's sections for this thread (pt/pt.h, in table order). */
static HP_NOINST void write_thread(const hp_thread *t, uint64_t events)
{
    uint8_t rec[16];
    hp_wbuf w = hp_wbuf_make(rec, sizeof rec);
    hp_put_u64(&w, t->tid);
    hp_put_u64(&w, events);
    sec_whole(HP_SEC_THREAD, rec, sizeof rec);
    for (const hp_pt *const *pt = hp_rt_ptypes; *pt; pt++)
        if ((*pt)->write_thread) (*pt)->write_thread(t, &g_sink);
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
    sec_put(HP_INFO_THREAD_PREFIX, sizeof HP_INFO_THREAD_PREFIX - 1);
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
    uint32_t on = atomic_load_explicit(&hp_g.bcfg.enabled_mask, memory_order_relaxed);
    for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
        const char *name = hp_sample_type_name(type);
        n = CAT_STR(out, n, cap, HP_INFO_SAMPLE_PREFIX), n = CAT_STR(out, n, cap, name), n = CAT_STR(out, n, cap, "=period=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g.bcfg.period[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, ",burst=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g.bcfg.burst[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, ",jitter=");
        n = cat_u64(out, n, cap, atomic_load_explicit(&hp_g.bcfg.jitter_pct[type], memory_order_relaxed));
        n = CAT_STR(out, n, cap, "\n" HP_INFO_SAMPLE_PREFIX), n = CAT_STR(out, n, cap, name);
        n = CAT_STR(out, n, cap, HP_INFO_ENABLED_SUFFIX "=");
        n = CAT_STR(out, n, cap, (on >> type) & 1 ? "1\n" : "0\n");
    }
    return n;
}

HP_NOINST uint64_t hp_bursty_thread_events(const hp_thread *t)
{
    uint64_t most = 0, e, s;
    for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
        hp_thread_bursty_counts(t, type, &e, &s);
        if (e > most) most = e;
    }
    return most;
}

/* "thread.<tid>.<what>.<type>=<v>\n" */
static HP_NOINST void info_thread_type(const hp_thread *t, const char *what, const char *type, uint64_t v)
{
    char line[128];
    size_t n = CAT_STR(line, 0, sizeof line, HP_INFO_THREAD_PREFIX);
    n = cat_u64(line, n, sizeof line, t->tid);
    n = CAT_STR(line, n, sizeof line, "."), n = CAT_STR(line, n, sizeof line, what);
    if (type) n = CAT_STR(line, n, sizeof line, "."), n = CAT_STR(line, n, sizeof line, type);
    n = CAT_STR(line, n, sizeof line, "=");
    n = cat_u64(line, n, sizeof line, v);
    n = CAT_STR(line, n, sizeof line, "\n");
    sec_put(line, n);
}

/* The sampling configuration as it is now, and per thread its seed and, per type, the boundary
 * events seen while the type was enabled and how many of them were sampled (hp_thread_bursty_counts). */
static HP_NOINST void info_bursty(void)
{
    char buf[1024];
    sec_put(buf, hp_sample_info(buf, sizeof buf));
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        if (!thread_events(t)) continue;
        info_thread_type(t, HP_INFO_THREAD_SEED, NULL, t->seed);
        for (int type = 0; type < HP_BURSTY_NTYPES; type++) {
            const char *name = hp_sample_type_name(type);
            uint64_t e, smp;
            hp_thread_bursty_counts(t, type, &e, &smp);
            info_thread_type(t, HP_INFO_THREAD_EVENTS, name, e);
            info_thread_type(t, HP_INFO_THREAD_SAMPLED, name, smp);
        }
    }
}

/* Per-group INFO: totals the data sections cannot carry (loads, stores, compares). */
static HP_NOINST void write_group_info(uint64_t seq, uint64_t flags, int64_t status, hp_totals *sum, uint64_t nthreads)
{
    sec_begin(HP_SEC_INFO);
    info_u64(HP_INFO_GROUP, seq);
    info_u64(HP_INFO_GROUP_FLAGS, flags);
    sec_put(HP_INFO_EXIT_STATUS "=", sizeof HP_INFO_EXIT_STATUS);
    if (status < 0) sec_put("-", 1);
    char num[24];
    sec_put(num, hp_fmt_u64(num, (uint64_t)(status < 0 ? -status : status)));
    sec_put("\n", 1);
    info_u64(HP_INFO_THREADS, nthreads);
    info_u64(HP_INFO_TOTAL_CALLS, sum->calls);
    info_u64(HP_INFO_TOTAL_BLOCKS, sum->blocks);
    info_u64(HP_INFO_TOTAL_BACKEDGES, sum->backedges);
    info_u64(HP_INFO_TOTAL_LOADS, sum->loads);
    info_u64(HP_INFO_TOTAL_STORES, sum->stores);
    info_u64(HP_INFO_TOTAL_COMPARES, sum->cmps);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next)
        if (thread_events(t)) info_thread_line(t);
    if (HP_LOAD_ACQ(&hp_g.bursty)) info_bursty();
    char pb[2048]; /* timer mode: timer.* and values.* lines */
    sec_put(pb, hp_pb_info(pb, sizeof pb)); /* patched bursts (XRay or call sites), if any */
    sec_put(pb, hp_dual_count_info(pb, sizeof pb)); /* --bursts count: dual.count.* and dual.* */
    sec_put(pb, hp_shadow_info(pb, sizeof pb)); /* shadow mode: shadow.* (ctl/shadow.h) */
    for (const hp_pt *const *pt = hp_rt_ptypes; *pt; pt++)
        if ((*pt)->group_info) sec_put(pb, (*pt)->group_info(pb, sizeof pb));
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

static HP_NOINST int write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st);

/* The writer runs with hp_in_runtime raised: an interrupt of timer mode in it, or in libc under it, is ours. */
HP_NOINST int hp_write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st)
{
    hp_in_runtime++;
    int rc = write_group(flags, status, final, st);
    hp_in_runtime--;
    return rc;
}

static HP_NOINST int write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st)
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
    for (const hp_pt *const *pt = hp_rt_ptypes; *pt; pt++)
        if ((*pt)->write_group) (*pt)->write_group(&g_sink);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
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
        HP_STORE_REL(&hp_g.stopped, 1);
        hp_threads_set_active(0);
    }
    int rc = g_io_error ? HP_WRITE_IOERR : HP_WRITE_OK;
    if (st) *st = (hp_group_stats){nthreads, sum.calls, sum.blocks};
    writer_release();
    return rc;
}

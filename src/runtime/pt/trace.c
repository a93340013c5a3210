/* trace.c — per-thread trace buffers handed to `hotprof run` through an O_APPEND file (trace.h).
 * File-static state (this file's only): the raw file's fd, the event budget, the flags and
 * whether the end record was written (once: at exit or in the fatal-signal handler).
 */
#define _GNU_SOURCE
#include "runtime/pt/trace.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static int g_trace_fd = -1;
static uint64_t g_trace_limit, g_trace_written;
static uint32_t g_trace_flags; /* 1: cut at the limit, 2: a write failed (events lost) */
static int g_trace_finished;   /* the end record is being or was written */

static HP_NOINST void write_all(const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(g_trace_fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { __atomic_fetch_or(&g_trace_flags, 2u, __ATOMIC_RELAXED); return; }
        c += w, n -= (size_t)w;
    }
}

static HP_NOINST void special(uint64_t tid, uint64_t n)
{
    uint64_t rec[2] = {tid, n};
    write_all(rec, sizeof rec);
}

/* Hands buf over (within the budget: past it, the cut flag) and empties it. */
static HP_NOINST void flush(hp_trace_buf *buf, uint64_t tid)
{
    uint64_t n = buf->n;
    if (n && g_trace_fd >= 0) {
        uint64_t before = __atomic_fetch_add(&g_trace_written, n, __ATOMIC_RELAXED);
        uint64_t room = before >= g_trace_limit ? 0 : g_trace_limit - before;
        if (n > room) {
            __atomic_fetch_or(&g_trace_flags, 1u, __ATOMIC_RELAXED);
            n = room;
        }
        if (n) {
            buf->tid = tid, buf->n = n;
            write_all(buf, 16 + n * 16);
        }
    }
    buf->n = 0;
}

static HP_NOINST void fork_child(void)
{
    if (g_trace_fd >= 0) close(g_trace_fd); /* the parent's trace: a child records none */
    g_trace_fd = -1;
}

HP_NOINST int hp_rt_trace_start(const char *path, uint32_t kind, uint64_t limit)
{
    g_trace_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (g_trace_fd < 0) {
        const char *parts[] = {"hotprof: cannot write the trace ", path, ": ", hp_errno_text(errno)};
        hp_say(parts, 4);
        return -1;
    }
    if (!kind) kind = HP_LOAD_ACQ(&hp_g.guards) > 0 ? HP_RT_TRACE_EDGES : HP_RT_TRACE_CALLS;
    g_trace_limit = limit, g_trace_written = 0, g_trace_flags = 0, g_trace_finished = 0;
    special(HP_RAW_KIND, kind);
    pthread_atfork(NULL, NULL, fork_child);
    HP_STORE_REL(&hp_g.trace_kind, kind);
    return 0;
}

HP_NOINST void hp_rt_trace_slow(hp_thread *t, uint64_t a, uint64_t b)
{
    hp_trace_buf *buf = t->trace;
    if (!buf) {
        if (!(buf = hp_map(sizeof *buf))) { __atomic_fetch_or(&g_trace_flags, 2u, __ATOMIC_RELAXED); return; }
        HP_STORE_REL(&t->trace, buf);
    } else {
        flush(buf, t->tid);
    }
    buf->t[0] = a, buf->t[1] = b;
    buf->n = 1;
}

static HP_NOINST void flush_all(void)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_trace_buf *buf = HP_LOAD_ACQ(&t->trace);
        if (buf) flush(buf, t->tid);
    }
}

HP_NOINST void hp_rt_trace_exec(void)
{
    if (g_trace_fd < 0 || HP_LOAD_ACQ(&g_trace_finished)) return;
    flush_all();
    special(HP_RAW_EXEC, __atomic_load_n(&g_trace_flags, __ATOMIC_RELAXED));
}

HP_NOINST const char *hp_rt_trace_kind_name(void)
{
    static const char *const names[] = {"", "values", "edges", "calls"}; /* HP_RT_TRACE_* */
    uint32_t k = HP_LOAD_RLX(&hp_g.trace_kind);
    return k < 4 ? names[k] : "";
}

HP_NOINST void hp_rt_trace_finish(void)
{
    if (g_trace_fd < 0 || __atomic_exchange_n(&g_trace_finished, 1, __ATOMIC_ACQ_REL)) return; /* once: exit or a signal */
    flush_all();
    special(HP_RAW_END, __atomic_load_n(&g_trace_flags, __ATOMIC_RELAXED));
    close(g_trace_fd);
    g_trace_fd = -1;
}

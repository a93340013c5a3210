/* datastream.c — hot data streams (core/ptype: HP_PT_DATASTREAM) in the runtime: each thread's
 * detector (core/summary/datastream.h) — created, fed, its bursts ended — and its SUMMARY
 * section.
 *
 * Recording (called by the hooks' bursty and patch bodies, hooks_bursty.h / hooks_patch.h, on
 * their cold paths): the detector is mmap'd at the thread's first sampled reference and published
 * with release (t->ds.det). A sampled reference appends (pc, addr) to the burst trace (the pc is
 * the hook's return address; the runtime's detector keeps addresses only); a full trace is
 * processed at once. The end of a datastream burst (the flag going off in the controller's slow
 * path, or a new patch window) processes the trace under the thread's seqlock t->ds.seq (odd
 * meanwhile), so that the trace of one burst is one trace for the detector. A hook run by a
 * signal handler while this thread is in here or in the controller's slow path is counted but
 * not traced (t->ds.guard, t->in_slow).
 *
 * Writing: SUMMARY (profile type datastream): the detector serialized into an mmap'd scratch
 * buffer under the owner's seqlock (retried while the owner processes a trace), then streamed
 * like any payload. The trace of a burst still in progress is not included. A thread that keeps
 * processing traces through 200 tries (about 0.2 s) is left out of the group, never written torn;
 * so is the writing thread's own detector when the writer interrupted its processing (a fatal
 * signal): waiting for it would never end.
 *
 * State: the serialization scratch (g_ds_buf) is this file's own, used by the writer only (under
 * the writer's lock). Async-signal-safe: all of it (memory, mmap/munmap, nanosleep).
 */
#define _GNU_SOURCE
#include "runtime/pt/datastream.h"
#include "runtime/pt/pt.h"
#include "core/base/bytes.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"
#include <sys/mman.h>
#include <time.h>

/* ---------------------------------------------------------------- recording */

/* The thread's detector, mapped on its first sampled reference (never on a fast path). */
static HP_NOINST __attribute__((noinline, cold)) hp_ds_state *datastream_create(hp_thread *t)
{
    hp_ds_config c;
    hp_ds_runtime_config(&c);
    size_t n = hp_ds_bytes_for(&c);
    void *mem = n ? hp_map(n) : NULL;
    hp_ds_state *ds = mem ? hp_ds_init(mem, n, &c) : NULL;
    if (!ds) {
        t->ds.failed = 1;
        return NULL;
    }
    HP_STORE_REL(&t->ds.det, ds);
    return ds;
}

/* Processes the buffered trace inside the seqlock the writer checks (t->ds.seq odd meanwhile). */
static HP_NOINST __attribute__((noinline)) void datastream_process(hp_thread *t, hp_ds_state *ds)
{
    HP_STORE_RLX(&t->ds.seq, t->ds.seq + 1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    hp_ds_burst_end(ds);
    HP_STORE_REL(&t->ds.seq, t->ds.seq + 1);
}

HP_NOINST void hp_rt_ds_burst_end(hp_thread *t)
{
    hp_ds_state *ds = t->ds.det;
    if (ds && !t->ds.guard && ds->trace_len) datastream_process(t, ds);
}

HP_NOINST void hp_rt_ds_sample(hp_thread *t, const void *addr, uint64_t pc, int store)
{
    HP_BUMP(store ? &t->tot.stores : &t->tot.loads);
    if (t->in_slow || t->ds.guard || t->ds.failed) return;
    t->ds.guard = 1;
    __asm__ volatile("" ::: "memory");
    hp_ds_state *ds = t->ds.det ? t->ds.det : datastream_create(t);
    if (ds) {
        if (HP_UNLIKELY(ds->trace_len == ds->trace_cap)) datastream_process(t, ds);
        hp_ds_access_pc(ds, pc, (uint64_t)(uintptr_t)addr);
    }
    __asm__ volatile("" ::: "memory");
    t->ds.guard = 0;
}

/* In patch mode a window's trace is otherwise processed at the thread's first hook of the next
 * window. */
HP_NOINST void hp_rt_ds_flush_self(void)
{
    hp_thread *t = hp_tls;
    if (t && t->active && t->bursty == HP_THREAD_BURSTY && HP_LOAD_RLX(&hp_g.patch) && !t->ds.guard && !t->in_slow) hp_rt_ds_burst_end(t);
}

/* ---------------------------------------------------------------- writing */

/* Serialization scratch: one mapping, grown by mmap (the old one unmapped) and kept; only the
 * writer (under its lock) uses it. */
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

/* One try at a stable serialization of another thread's detector (seqlock t->ds.seq): the
 * length, or 0 if the owner was processing a trace meanwhile (or mmap failed). */
static HP_NOINST size_t ds_try_serialize(const hp_thread *t, const hp_ds_state *ds)
{
    uint64_t seq = HP_LOAD_ACQ(&t->ds.seq);
    if (seq & 1) return 0;
    size_t need = hp_ds_serialized_size(ds);
    uint8_t *buf = ds_scratch(need);
    size_t n = buf ? hp_ds_serialize(ds, buf, need) : 0;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return HP_LOAD_RLX(&t->ds.seq) == seq ? n : 0;
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    const hp_ds_state *ds = HP_LOAD_ACQ(&t->ds.det);
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
    o->begin(HP_SEC_SUMMARY);
    o->put(prefix, sizeof prefix);
    o->put(g_ds_buf, n);
    o->end();
}

const hp_pt hp_pt_datastream = {.ptype = HP_PT_DATASTREAM, .write_thread = write_thread};

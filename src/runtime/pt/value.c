/* value.c — how the runtime writes the value profile type: one HP_SEC_VALUES section per thread
 * that has value hot-lists (ctl/interp.h), one hp_rec_value record per (pc, kind, operand) list,
 * each followed by its (value, count) pairs as little-endian u64, highest count first. A thread
 * without an interpreter state or without lists writes nothing. Its events for the writer
 * (thread_events) are the lists it holds. Async-signal-safe (memory only).
 *
 * The interpreter (ctl/interp*.c) exists only in the preloaded libhotprof_rt.so; this file is also in
 * the static runtime linked into `hotprof cc` programs, so it reaches the interpreter through a weak
 * reference (NULL there, where no thread has an interpreter state).
 * The value profiles of exhaustive runs (`--sample value:summary=tnv|gm`, pt/values_hook.c) are
 * written into the same section, after the interpreter's lists (a thread has one or the other).
 */
#include "runtime/pt/pt.h"
#include "runtime/ctl/interp.h"
#include "runtime/pt/pathval.h"
#include "core/base/bytes.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"

extern uint32_t hp_interp_each_value(const struct hp_interp_thread *it, hp_interp_value_fn *fn, void *arg)
    __attribute__((weak));

static HP_NOINST void put_one(void *arg, const hp_rec_value *r, const uint64_t *pairs)
{
    const hp_pt_sink *o = arg;
    uint8_t rec[HP_REC_VALUE_FIXED], pair[HP_REC_VALUE_ENTRY];
    hp_fmt_put_value(rec, r);
    o->put(rec, sizeof rec);
    for (uint32_t i = 0; i < r->nvalues; i++) {
        hp_wbuf w = hp_wbuf_make(pair, sizeof pair);
        hp_put_u64(&w, pairs[2 * i]);
        hp_put_u64(&w, pairs[2 * i + 1]);
        o->put(pair, sizeof pair);
    }
}

static HP_NOINST void count_one(void *arg, const hp_rec_value *r, const uint64_t *pairs)
{
    (void)r;
    (void)pairs;
    ++*(uint64_t *)arg;
}

static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    uint64_t n = 0;
    if (t->interp && hp_interp_each_value) hp_interp_each_value(t->interp, count_one, &n);
    hp_rt_vals_each(t, count_one, &n); /* exhaustive value profiles (pt/values_hook.c) */
    return n;
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    if (thread_events(t) == 0) return;
    o->begin(HP_SEC_VALUES);
    if (t->interp && hp_interp_each_value) hp_interp_each_value(t->interp, put_one, (void *)o);
    hp_rt_vals_each(t, put_one, (void *)o);
    o->end();
}

const hp_pt hp_pt_value = {.ptype = HP_PT_VALUE, .write_thread = write_thread, .thread_events = thread_events};

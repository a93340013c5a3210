/* samples.c — how the runtime writes the samples profile type (--mode timer): each thread's stack
 * table (ctl/timer.h: hp_timer_thread.slots) as one STACKS section of hp_rec_stack records, and
 * the group INFO of timer mode (timer.* keys and the interpreter's values.* keys).
 *
 * The timer's objects are only in libhotprof_rt.so (the static runtime has no timer mode), so the
 * group INFO is reached through a weak reference: NULL in the static runtime, where no thread
 * ever has a t->timer either. The stack table is read with the publication order of timer.h
 * (hash with acquire, then the slot's fields), while its owner may still be adding samples.
 * Async-signal-safe: memory only.
 */
#include "runtime/pt/pt.h"
#include "runtime/ctl/timer.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"

extern size_t hp_timer_group_info(char *out, size_t cap) __attribute__((weak));

static HP_NOINST void put_slot(const hp_stack_slot *s, const hp_pt_sink *o)
{
    uint8_t rec[HP_REC_STACK_FIXED];
    uint16_t depth = s->depth;
    if (depth == 0 || depth > HP_STACK_MAX_DEPTH) return;
    hp_rec_stack r = {HP_LOAD_ACQ(&s->count), s->tos, depth, s->flags};
    hp_fmt_put_stack(rec, &r);
    o->put(rec, sizeof rec);
    for (uint16_t i = 0; i < depth; i++) {
        uint8_t pc[8];
        for (int b = 0; b < 8; b++) pc[b] = (uint8_t)(s->pcs[i] >> (8 * b));
        o->put(pc, 8);
    }
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    const hp_timer_thread *tt = t->timer;
    if (!tt || !HP_LOAD_RLX(&tt->samples)) return;
    o->begin(HP_SEC_STACKS);
    for (uint32_t i = 0; i < tt->nslots; i++) {
        const hp_stack_slot *s = (const hp_stack_slot *)(tt->slots + (size_t)i * tt->stride);
        if (HP_LOAD_ACQ(&s->hash)) put_slot(s, o);
    }
    o->end();
}

static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    return t->timer ? HP_LOAD_RLX(&t->timer->samples) : 0;
}

static HP_NOINST size_t group_info(char *out, size_t cap)
{
    return hp_timer_group_info ? hp_timer_group_info(out, cap) : 0;
}

const hp_pt hp_pt_samples = {.ptype = HP_PT_SAMPLES, .write_thread = write_thread, .thread_events = thread_events,
                             .group_info = group_info};

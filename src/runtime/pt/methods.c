/* methods.c — hot methods (core/ptype: HP_PT_METHODS) in the runtime: FUNCS records, per thread.
 *
 * Exhaustive: a call pair slot counts its callee's calls (v1) and the back-edges of the
 * activations it started (v2); FUNCS sums the thread's pairs by callee in a scratch table mmap'd
 * for the occasion (a syscall, fine in a signal handler). If mmap fails, one record per pair:
 * records of one key add up in a group (format.h), so the file means the same, only longer.
 * Bursty and XRay: the thread's own methods table (t->methods: (sampled) calls v1 and sampled
 * back-edges v2 per function), one record per function.
 *
 * Async-signal-safe: memory and mmap/munmap.
 */
#include "runtime/pt/pt.h"
#include "runtime/pt/topk.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"
#include <sys/mman.h>

static HP_NOINST void put_func(const hp_pt_sink *o, uint64_t addr, uint64_t calls, uint64_t backedges)
{
    uint8_t rec[HP_REC_FUNC_SIZE];
    hp_rec_func r = {addr, calls, backedges};
    hp_fmt_put_func(rec, &r);
    o->put(rec, sizeof rec);
}

static HP_NOINST void put_method(const hp_slot *s, uint64_t k1, const hp_pt_sink *o)
{
    uint64_t v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
    if (v1 || v2) put_func(o, k1, v1, v2);
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    if (t->methods) { /* bursty, XRay: methods have their own table, one record per function */
        o->begin(HP_SEC_FUNCS);
        hp_pt_each_slot(&t->methods, put_method, o);
        o->end();
        return;
    }
    hp_tab *pairs = HP_LOAD_ACQ(&t->pairs);
    hp_tab *sum = hp_tab_new(pairs->mask + 1); /* distinct callees <= pairs used <= capacity/2 */
    o->begin(HP_SEC_FUNCS);
    for (uint64_t i = 0; i <= pairs->mask; i++) {
        const hp_slot *s = &pairs->s[i];
        uint64_t k1 = HP_LOAD_ACQ(&s->k1), v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
        if (!k1 || !(v1 || v2)) continue;
        if (!sum) { put_func(o, k1, v1, v2); continue; }
        hp_slot *f = hp_tab_get(&sum, k1, 0);
        f->v1 += v1;
        f->v2 += v2;
    }
    for (uint64_t i = 0; sum && i <= sum->mask; i++)
        if (sum->s[i].k1) put_func(o, sum->s[i].k1, sum->s[i].v1, sum->s[i].v2);
    o->end();
    if (sum) munmap(sum, hp_tab_bytes(sum));
}

/* Live view: the merged top k across threads (pt/topk.h). */
static HP_NOINST int live_rows(hp_live_row *out, int k) { return hp_topk_merged(HP_TOPK_METHODS, out, k); }

const hp_pt hp_pt_methods = {.ptype = HP_PT_METHODS, .write_thread = write_thread, .live_rows = live_rows};

/* callpairs.c — hot call pairs (core/ptype: HP_PT_CALLPAIRS) in the runtime: CALLPAIRS records
 * from the thread's pairs table (k1 callee, k2 call site, v1 calls; bursty: sampled calls).
 * Async-signal-safe: memory only.
 */
#include "runtime/pt/pt.h"
#include "runtime/pt/topk.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"

static HP_NOINST void put_pair(const hp_slot *s, uint64_t k1, const hp_pt_sink *o)
{
    uint64_t v1 = HP_LOAD_RLX(&s->v1);
    if (!v1) return;
    uint8_t rec[HP_REC_CALLPAIR_SIZE];
    hp_rec_callpair r = {s->k2, k1, v1};
    hp_fmt_put_callpair(rec, &r);
    o->put(rec, sizeof rec);
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    o->begin(HP_SEC_CALLPAIRS);
    hp_pt_each_slot(&t->pairs, put_pair, o);
    o->end();
}

/* Live view: the merged top k across threads (pt/topk.h). */
static HP_NOINST int live_rows(hp_live_row *out, int k) { return hp_topk_merged(HP_TOPK_CALLPAIRS, out, k); }

const hp_pt hp_pt_callpairs = {.ptype = HP_PT_CALLPAIRS, .write_thread = write_thread, .live_rows = live_rows};

/* edges.c — branch edges (core/ptype: HP_PT_EDGES) in the runtime: EDGES records from the
 * thread's edges table (k1 = from guard << 32 | to guard, v1 count).
 * Async-signal-safe: memory only.
 */
#include "runtime/pt/pt.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"

static HP_NOINST void put_edge(const hp_slot *s, uint64_t k1, const hp_pt_sink *o)
{
    uint64_t v1 = HP_LOAD_RLX(&s->v1);
    if (!v1) return;
    uint8_t rec[HP_REC_EDGE_SIZE];
    hp_rec_edge r = {(uint32_t)(k1 >> 32), (uint32_t)k1, v1};
    hp_fmt_put_edge(rec, &r);
    o->put(rec, sizeof rec);
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    o->begin(HP_SEC_EDGES);
    hp_pt_each_slot(&t->edges, put_edge, o);
    o->end();
}

const hp_pt hp_pt_edges = {.ptype = HP_PT_EDGES, .write_thread = write_thread};

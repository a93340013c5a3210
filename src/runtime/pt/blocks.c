/* blocks.c — basic blocks (core/ptype: HP_PT_BLOCKS) in the runtime: per group the BLOCKMAP
 * (guard id -> pc, flags, from hp_g.bmap: blockmap.h), per thread BLOCKS (guard id -> count,
 * from the thread's block array).
 * Async-signal-safe: memory only.
 */
#include "runtime/pt/pt.h"
#include "runtime/blockmap.h"
#include "core/format/format.h"
#include "core/ptype/ptype.h"

static HP_NOINST void write_group(const hp_pt_sink *o)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    uint32_t n = HP_LOAD_ACQ(&hp_g.guards);
    o->begin(HP_SEC_BLOCKMAP);
    for (uint32_t id = 1; m && id <= n && id < m->cap; id++) {
        uint64_t pc = HP_LOAD_RLX(&m->e[id].pc);
        if (!pc) continue;
        hp_rec_block r = {id, (uint32_t)HP_LOAD_RLX(&m->e[id].flags), pc};
        uint8_t rec[HP_REC_BLOCK_SIZE];
        hp_fmt_put_block(rec, &r);
        o->put(rec, sizeof rec);
    }
    o->end();
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    hp_counts *c = HP_LOAD_ACQ(&t->blocks);
    o->begin(HP_SEC_BLOCKS);
    for (uint64_t id = 1; id < c->cap; id++) {
        uint64_t n = HP_LOAD_RLX(&c->c[id]);
        if (!n) continue;
        hp_rec_count r = {(uint32_t)id, 0, n};
        uint8_t rec[HP_REC_COUNT_SIZE];
        hp_fmt_put_count(rec, &r);
        o->put(rec, sizeof rec);
    }
    o->end();
}

const hp_pt hp_pt_blocks = {.ptype = HP_PT_BLOCKS, .write_group = write_group, .write_thread = write_thread};

/* pt.h — the runtime side of profile types: how each type's recorded state is written. One file
 * per type (methods.c, callpairs.c, blocks.c, edges.c, datastream.c) defines one hp_pt entry;
 * hp_rt_ptypes (registry.c) lists them in core/ptype order, and the writer ITERATES that table:
 * it names no type. Adding a type = its file here + one line in registry.c (+ its core/ptype
 * descriptor and analysis/ptype file; docs/runtime.md, Sources).
 *
 * The writer hands each write function a sink: the section primitives it streams through
 * (writer.c owns the output buffer and the file). A function writes whole sections (begin, put...,
 * end) or nothing.
 *
 * Order (file compatibility): within a thread the types' sections follow the table order
 * (FUNCS, CALLPAIRS, BLOCKS, EDGES, SUMMARY datastream); group-level sections (BLOCKMAP) are
 * written before the threads, in table order too.
 *
 * Async-signal-safety: every write function is (memory, mmap/munmap, nanosleep); they run in the
 * writer, which may run in a fatal-signal handler.
 */
#ifndef HOTPROF_RUNTIME_PT_H
#define HOTPROF_RUNTIME_PT_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/thread.h"

typedef struct hp_pt_sink {
    void (*begin)(uint32_t section_type);
    void (*put)(const void *p, size_t n);
    void (*end)(void);
} hp_pt_sink;

/* n u32 values into the sink as little-endian bytes, in chunks (block sequences of subpaths and paths). */
static inline __attribute__((no_instrument_function)) void hp_pt_put_u32s(const hp_pt_sink *o, const uint32_t *v,
                                                                          uint32_t n)
{
    uint8_t buf[4 * 64];
    for (uint32_t i = 0; i < n; i += 64) {
        uint32_t k = n - i < 64 ? n - i : 64;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t x = v[i + j];
            buf[4 * j] = (uint8_t)x, buf[4 * j + 1] = (uint8_t)(x >> 8);
            buf[4 * j + 2] = (uint8_t)(x >> 16), buf[4 * j + 3] = (uint8_t)(x >> 24);
        }
        o->put(buf, 4 * k);
    }
}

/* One row of a type's live top list (the shared-memory view `hotprof top` reads, and
 * hotprof_snapshot_topk): the key, a second key where the type has one, the count (sampled,
 * exact or estimated: the type says which) and, for types whose members are code sequences, the
 * pcs of up to HP_LIVE_PCS of its blocks (first block first). */
#define HP_LIVE_PCS 16
typedef struct hp_live_row {
    uint64_t key;   /* methods: function; callpairs: callee; subpath: its encoding */
    uint64_t key2;  /* callpairs: call site (return address); subpath: length; else 0 */
    double value;   /* count: recorded (methods: heat), or the subpath's estimated executions */
    uint32_t npcs;  /* pcs[] filled */
    uint32_t pad;
    uint64_t pcs[HP_LIVE_PCS];
} hp_live_row;

typedef struct hp_pt {
    int ptype;  /* enum hp_ptype_id (core/ptype/ptype.h) */
    /* Group-level sections, before the threads (NULL: none). */
    void (*write_group)(const hp_pt_sink *o);
    /* This thread's sections (NULL: none). */
    void (*write_thread)(const hp_thread *t, const hp_pt_sink *o);
    /* Its k hottest members now, highest first, into out; returns how many (NULL: no live view).
     * Runs in an ordinary thread (not a signal handler); must not stop or slow the recording
     * threads beyond a short lock the sampler itself takes rarely. */
    int (*live_rows)(hp_live_row *out, int k);
    /* Its group INFO lines ("key=value\n", keys of core/format/info_keys.h) into out (at most cap - 1
     * bytes); returns the length (NULL: none). Async-signal-safe like the write functions. */
    size_t (*group_info)(char *out, size_t cap);
    /* Events this type recorded for thread t outside the shared counters (NULL: none): the
     * writer writes a thread that has some (a subpath-only bursty run has no other). */
    uint64_t (*thread_events)(const hp_thread *t);
} hp_pt;

extern const hp_pt hp_pt_methods, hp_pt_callpairs, hp_pt_blocks, hp_pt_edges, hp_pt_datastream,
    hp_pt_subpath, hp_pt_intervals, hp_pt_samples, hp_pt_value, hp_pt_path;
/* Every runtime profile type, in core/ptype id order, NULL-terminated. */
extern const hp_pt *const hp_rt_ptypes[];

/* Shared by the table types (methods, callpairs, edges): each live slot of *tabp, through put. */
void hp_pt_each_slot(hp_tab *const *tabp, void (*put)(const hp_slot *s, uint64_t k1, const hp_pt_sink *o),
                     const hp_pt_sink *o);

#endif

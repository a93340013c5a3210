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

typedef struct hp_pt {
    int ptype;  /* enum hp_ptype_id (core/ptype/ptype.h) */
    /* Group-level sections, before the threads (NULL: none). */
    void (*write_group)(const hp_pt_sink *o);
    /* This thread's sections (NULL: none). */
    void (*write_thread)(const hp_thread *t, const hp_pt_sink *o);
} hp_pt;

extern const hp_pt hp_pt_methods, hp_pt_callpairs, hp_pt_blocks, hp_pt_edges, hp_pt_datastream, hp_pt_intervals;
/* Every runtime profile type, in core/ptype id order, NULL-terminated. */
extern const hp_pt *const hp_rt_ptypes[];

/* Shared by the table types (methods, callpairs, edges): each live slot of *tabp, through put. */
void hp_pt_each_slot(hp_tab *const *tabp, void (*put)(const hp_slot *s, uint64_t k1, const hp_pt_sink *o),
                     const hp_pt_sink *o);

#endif

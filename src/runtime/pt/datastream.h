/* datastream.h — the recording side of hot data streams (pt/datastream.c), called by the hooks'
 * bursty and patch bodies (slow paths only) and by init's exit destructor.
 */
#ifndef HOTPROF_RUNTIME_PT_DATASTREAM_H
#define HOTPROF_RUNTIME_PT_DATASTREAM_H
#include <stdint.h>
#include "runtime/thread.h"

/* A load or store seen while the datastream type samples: counts it and appends it to the
 * thread's detector trace (created on the first one). Cold: never on a fast path. */
void hp_rt_ds_sample(hp_thread *t, const void *addr, uint64_t pc, int store);
/* The datastream type's burst ended on this thread: process its trace (unless a signal handler
 * interrupted sampling on this thread: then it continues into the next burst). */
void hp_rt_ds_burst_end(hp_thread *t);
/* Patch mode: processes the calling thread's pending trace (exit destructor). */
void hp_rt_ds_flush_self(void);

#endif

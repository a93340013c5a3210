/* interp.h — value sampling's interpreter (ctl/interp*.c): after a timer interrupt, advance the
 * interrupted context through the next L instructions as though the CPU had executed them, and
 * capture per instruction the values written to destination registers, memory operands' effective
 * addresses and the values loaded or stored, into the thread's per-(pc, kind, operand) hot-lists
 * (value-sampling-dcpi.txt §2.1.3-2.3). Two engines: out-of-line execution in a per-thread scratch
 * page (HP_ENGINE_OOL) and the trap flag (HP_ENGINE_TF).
 *
 * Called by the timer controller (ctl/timer.c), written out by pt/value.c.
 * Async-signal-safety: hp_interp_on_sample runs in a signal handler: no malloc, no locks, no stdio;
 * it only touches the thread's own preallocated state. hp_interp_start runs once at init (not in
 * a handler); hp_interp_thread_new at a thread's start (mmap only).
 */
#ifndef HOTPROF_RUNTIME_CTL_INTERP_H
#define HOTPROF_RUNTIME_CTL_INTERP_H
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

struct hp_thread;
struct hp_rec_value;

/* HP_ENGINE_CHECK (test-only): the trap-flag engine that also runs each instruction out of line
 * on a copy first and counts differences (values.check.*; docs/value-sampling.md). */
enum hp_interp_engine { HP_ENGINE_OOL = 0, HP_ENGINE_TF = 1, HP_ENGINE_CHECK = 2 };

typedef struct hp_interp_config {
    uint32_t length;  /* L: instructions interpreted per interpretation (1..64) */
    uint32_t every;   /* K: interpret at every K-th interrupt of a thread (>= 1) */
    int engine;       /* enum hp_interp_engine */
    uint32_t debias;  /* 0, or step a random 0..debias-1 instructions before capturing (§5) */
    uint64_t seed;    /* the run seed (random debias steps) */
    const char *module; /* a customization module's path (include/hotprof/module.h), or NULL */
} hp_interp_config;

/* Once at init, before any timer fires: 0, or -1 with a one-line reason in err (Capstone missing,
 * a bad config). Installs what the engine needs (the TF engine's SIGTRAP handler). */
int hp_interp_start(const hp_interp_config *c, char *err, size_t errlen);
/* The calling thread's interpreter state (mmap'd; NULL on failure: that thread only samples PCs).
 * Called by ctl/timer.c when it sets up a thread, outside any signal handler. */
struct hp_interp_thread *hp_interp_thread_new(void);
/* A state handed to another thread (thread.c recycles exited threads' states): call from the new
 * thread, outside any handler. Re-reads the thread's fs base (fs-relative addresses); clear = 1
 * also empties its hot-lists (after the writer has written them for the old thread). */
void hp_interp_thread_rebind(struct hp_interp_thread *it, int clear);
/* From the timer's signal handler, on an interrupt that should be interpreted (the K-th): interpret
 * from uc's context. May modify uc (the TF engine sets the trap flag; the OOL engine leaves the
 * program's state exactly as it was, or advanced exactly as the CPU would have advanced it). */
void hp_interp_on_sample(struct hp_thread *t, ucontext_t *uc);
/* Group INFO lines (HP_INFO_VALUES* keys, "key=value\n") into out (at most cap - 1 bytes);
 * returns the length. Async-signal-safe. 0 when value sampling is off. */
size_t hp_interp_info(char *out, size_t cap);
/* ns this process spent interpreting so far (all threads), for timer.handler_ns. */
uint64_t hp_interp_ns(void);
/* For pt/value.c (the writer; any thread, a fatal-signal handler too): each of it's hot-lists,
 * as its VALUES record fixed part r and r->nvalues (value, count) pairs, highest count first.
 * Reads the owner's table without stopping it (a list being updated reads approximately).
 * Async-signal-safe. Returns the number of lists. */
typedef void hp_interp_value_fn(void *arg, const struct hp_rec_value *r, const uint64_t *pairs);
uint32_t hp_interp_each_value(const struct hp_interp_thread *it, hp_interp_value_fn *fn, void *arg);

#endif

/* thread.h — one thread's whole recording state (hp_thread), its block-count array and shadow
 * stack, and the thread list (thread.c).
 *
 * What it holds:
 *   - hp_counts: a per-thread array of block counts indexed by guard id (blockmap.h for the ids).
 *   - hp_thread: mmap'd on the thread's first event, pushed on hp_g.threads (lock-free) and never
 *     freed or unlinked. When a thread exits (a pthread key destructor), the first
 *     HP_KEEP_EXITED exited threads keep their state; after that an exited thread's counts are
 *     added into one "exited threads" hp_thread (tid 0, no shadow stack, on the list like the
 *     others) and its own are zeroed, both under hp_threads_lock, and the state (all its memory)
 *     is marked recycled and taken by the next new thread: memory is bounded by the live
 *     threads, not by every thread that ever ran. Exception: a state holding what that merge cannot
 *     add (a datastream detector, a trace buffer, interval profiles, timer stacks or value
 *     hot-lists) keeps its thread and is never recycled: in those modes memory grows with the
 *     threads that ran (touched pages only). The fields every mode uses come first (the hooks' fast paths touch only the first
 *     lines); each mode's own state is a sub-struct or a group of fields marked with its mode:
 *       exhaustive  pairs (v1 calls, v2 back-edges of the activations), edges, blocks, tot
 *       bursty      bs (the HPS controller of core/control/bursty.h, countdown in line 1),
 *                   in_slow, seed, methods (sampled calls and back-edges per function); pairs
 *                   v1 = sampled calls; blocks/edges sampled while the edge type is on; totals
 *                   count recorded (sampled) events
 *       datastream  ds: the hot data stream detector (core/summary/datastream.h), created at the
 *                   thread's first sampled reference, its re-entry guard and seqlock (pt/datastream.c)
 *       patch       win: the window this thread's call state is from, and the hooks' own time
 *                   in windows (ctl/bursts.c)
 *       xray        methods (sampled calls with HP_XRAY_BURSTS, every call with HP_XRAY_ALL)
 *       subpath     osp (pt/subpath.h), reached from the block hook when blockflags has HP_BLOCK_OSP
 *       timer       timer (ctl/timer.h: the thread's CPU-time timer, stack samples), interp
 *                   (ctl/interp.h: value hot-lists); both written only by this thread's signal handlers
 *
 * Invariants:
 *   - Only the owning thread writes its hp_thread, its tables and its counts. Other threads (the
 *     profile writer: hotprof_flush, the exit destructor, a fatal-signal handler; snapshots; the
 *     burst control thread) only read. Exception: the exited-threads record is written by
 *     exiting threads, one at a time, holding hp_threads_lock (so the writer never sees it
 *     change); hotprof_topk, which takes no lock, may see an exiting thread's counts twice or
 *     not at all for that moment. The patch-mode sums (win) are never zeroed: they stay
 *     monotonic for ctl/bursts.c when a state is reused.
 *   - A table or array that grows is copied into a fresh mmap'd block, then published with
 *     release semantics; the old block is never unmapped (tab.h).
 *   - Nothing in a hook fast path allocates, locks or calls; slow paths (first event of a thread,
 *     table growth) use only mmap. In bursty mode the controller state is only touched by its
 *     thread; in_slow keeps a signal handler's hooks out of an interrupted slow path.
 *
 * Async-signal-safety: the inline helpers only touch memory; the functions of thread.c are
 * memory and mmap only, except hp_thread_slow on a thread's very first event (it may run the
 * one-time init: init.h).
 */
#ifndef HOTPROF_RUNTIME_THREAD_H
#define HOTPROF_RUNTIME_THREAD_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/base.h"
#include "runtime/tab.h"
#include "core/control/bursty.h"
#include "core/summary/datastream.h"

/* ---------------------------------------------------------------- block arrays */

typedef struct hp_counts { uint64_t cap; uint64_t pad; uint64_t c[]; } hp_counts;

/* ---------------------------------------------------------------- threads */

typedef struct hp_frame {
    uint64_t fn;         /* function of this activation (0 for the thread pseudo-frame) */
    uint64_t site;       /* its call site: (fn, site) is its CALLPAIRS slot */
    uint64_t last_pc;    /* start pc of the last non-entry block executed in it */
    uint64_t *backedges; /* where its back-edges are counted (pair slot v2, or the orphan counter) */
} hp_frame;

/* fn of a landing frame: pushed over the frame a throw landed in, while its out-of-line
 * handler runs (hooks_common.h resync_frame); never a function address, never a call pair. */
#define HP_FRAME_LANDING 1u
#define HP_STACK_FRAMES (1u << 17) /* shadow frames per thread (virtual; touched pages only) */
#define HP_UNWIND_SEARCH 256u      /* frames func_exit searches for its function (longjmp, throw) */
#define HP_RESYNC_SEARCH 64u       /* frames a block searches for its function's frame (after a throw) */

typedef struct hp_totals {
    uint64_t calls, blocks, backedges, loads, stores, cmps;
} hp_totals;

/* datastream: the thread's detector (pt/datastream.c). */
typedef struct hp_thread_ds {
    hp_ds_state *det;  /* mmap'd at the first sampled reference (published with release; NULL until
                        * then or if mmap failed) */
    uint32_t guard;    /* owner: inside datastream sampling (re-entry guard for signal handlers) */
    uint32_t failed;   /* 1: the detector's mmap failed; sampled references are only counted */
    uint64_t seq;      /* even: det is stable; odd: the owner is inside hp_ds_burst_end */
} hp_thread_ds;

/* patch mode: this thread's view of the windows (ctl/bursts.c reads the sums). */
typedef struct hp_thread_win {
    uint32_t epoch;    /* the window (hp_g.pb.epoch) this thread's call state is from */
    uint32_t pad;
    uint64_t hooks;    /* hook calls run inside windows (owner writes, control reads) */
    uint64_t heavy;    /* ... of which call and block hooks (the ones that record) */
    uint64_t timed;    /* ... of which timed with the TSC (one in HP_WIN_TIME_EVERY) */
    uint64_t tsc;      /* TSC ticks of the timed ones (bursts.c: the hooks' share of a window) */
} hp_thread_win;

typedef struct hp_thread {
    uint32_t active;      /* 0: hooks return at once (stopped, off, forked child) */
    uint32_t prev_guard;  /* guard of the last block, for edges (0 = none yet) */
    uint32_t bursty;      /* HP_THREAD_BURSTY: bursty mode; HP_THREAD_TRACING: exhaustive with a
                           * trace (pt/trace.h); 0: exhaustive (fixed at creation) */
    uint32_t in_slow;     /* bursty: inside the controller's slow path (re-entry guard) */
    uint32_t blockflags;  /* what the block hook does besides exhaustive counting (fixed at creation):
                           * bursty (HP_BLOCK_BURSTY), subpaths (HP_BLOCK_OSP), a trace (HP_BLOCK_TRACE),
                           * a shadow's frame adoption (HP_BLOCK_ADOPT, set when the shadow starts);
                           * 0: exhaustive only */
    uint32_t pad_;
    uint64_t depth;       /* real frames on the shadow stack (may exceed HP_STACK_FRAMES-1) */
    hp_frame *stack;      /* [0] is the pseudo-frame; real frames are 1..depth */
    hp_bursty_state bs;   /* bursty: the HPS controller (core/control/bursty.h); countdown in line 1 */
    hp_counts *blocks;    /* per guard id executions */
    hp_tab *pairs;        /* k1 = callee, k2 = call site, v1 = calls, v2 = back-edges in them
                           * (bursty: v1 = sampled calls of the call-pair type, v2 unused) */
    hp_tab *edges;        /* k1 = from << 32 | to, v1 = count */
    hp_tab *methods;      /* bursty and XRay only: k1 = function, v1 = (sampled) calls, v2 = sampled
                           * back-edges; NULL otherwise (FUNCS then sums the pairs) */
    uint64_t seed;        /* bursty: this thread's controller seed (run seed, thread index) */
    hp_totals tot;
    uint64_t orphan_backedges; /* back-edges seen outside any tracked frame */
    hp_frame overflow;    /* stands for every frame deeper than the shadow stack */
    uint64_t frameless_fn, frameless_depth; /* last block function found on no frame, and where */
    hp_thread_ds ds;      /* datastream */
    hp_thread_win win;    /* patch mode */
    struct hp_thread_osp *osp; /* subpaths (pt/subpath.h): mmap'd at the thread's first block; NULL
                                * until then and without subpaths; kept when the state is recycled */
    struct hp_trace_buf *trace; /* --record-trace: this thread's buffer (pt/trace.c), NULL until used */
    struct hp_iv_state *iv[2];  /* interval profiles (pt/intervals.c): value, edges; NULL until used */
    uint32_t iv_failed;         /* bit per stream: its state could not be mapped */
    uint32_t iv_busy;           /* inside hp_rt_iv_add: a signal handler's tuples are dropped */
    struct hp_timer_thread *timer;   /* --mode timer: this thread's timer and stack samples (ctl/timer.h) */
    struct hp_interp_thread *interp; /* --values L/K: the interpreter's state and value hot-lists (ctl/interp.h) */
    struct hp_path_thread *path;     /* paths (pt/pathval.h): mmap'd at the first path block; NULL until then */
    struct hp_vals_thread *vals;     /* exhaustive values (pt/pathval.h): mmap'd at the first value */
    uint64_t tid;
    struct hp_thread *next; /* global list link, immutable once published */
    /* recycling (thread.c): none of these is read by a hook */
    uint32_t recycled;    /* 1: an exited thread's state, counts zeroed, free for a new thread */
    uint32_t exit_rounds; /* key destructor calls seen (the merge waits for the second) */
    void *altstack;       /* this state's signal stack (64 KiB), reused with it */
} hp_thread;

/* hp_thread.bursty: the mode branch the hooks take (hooks.c). */
#define HP_THREAD_BURSTY 1u
#define HP_THREAD_TRACING 2u
#define HP_THREAD_VALUES 3u  /* exhaustive with value profiles: compare/load hooks call pt/pathval.h */

/* Exited threads that keep their own state (and THREAD record); the counts of later ones are
 * merged into one record (tid 0) and their state is reused by new threads (thread.c). */
#define HP_KEEP_EXITED 64u

/* hp_thread.blockflags bits. */
#define HP_BLOCK_BURSTY 1u
#define HP_BLOCK_OSP 2u
#define HP_BLOCK_TRACE 4u
#define HP_BLOCK_PATH 8u     /* exhaustive with paths: the block hook calls hp_rt_path_block */
#define HP_BLOCK_ADOPT 16u /* a shadow (ctl/shadow_child.c): a block met with no frame adopts one (hooks_exhaustive.h) */

/* The calling thread's state: NULL before its first event, then its hp_thread or a shared
 * inactive one (thread.c; initial-exec TLS). */
extern __thread hp_thread *hp_tls;
/* > 0 while this thread runs the runtime's own slow work (the profile writer, the exit destructor):
 * timer mode counts an interrupt there as its own (timer.own), not as a sample of the program.
 * Thread-local, next to hp_tls (thread.c). */
extern __thread int hp_in_runtime;
/* --bursts count on two-version code (ctl/dual.h, docs/dual.md): boundary events until this thread's
 * next controller slow path, decremented by the per-site trampolines (`subq $1, %fs:OFF`: initial-exec
 * TLS at a fixed %fs offset) and by the count-mode hooks; <= 0 sends every site into the instrumented
 * copy (a burst, or a thread's first event). hp_dual_synced: 0 until the thread's first count-mode
 * hook loaded it from the thread's controller. Thread-local, next to hp_tls (thread.c). */
extern __thread int64_t hp_dual_countdown;
extern __thread uint32_t hp_dual_synced;

/* Slow path of every hook: the thread's state if it should record, else NULL. The one place
 * below init that calls hp_rt_ensure_init (init.h). */
hp_thread *hp_thread_slow(void);
hp_counts *hp_blocks_grow(hp_thread *t, uint32_t id);
void hp_frames_rebind(hp_thread *t);
void hp_threads_set_active(uint32_t active);
void hp_threads_reset_counts(void);
/* The lock of whole-list snapshots: the writer holds it while it writes a group, an exiting
 * thread while it moves its counts into the exited-threads record. Waits up to 3 s; 0 if not
 * taken (held by this thread already: a crash inside the writer, or stuck). Async-signal-safe. */
int hp_threads_lock(void);
void hp_threads_unlock(void);
void hp_threads_lock_reset(void); /* fork child: the holder did not survive */
/* The path / value flags thread t needs for the profiles hp_g.pathval enables: HP_BLOCK_PATH in
 * blockflags, and bursty = HP_THREAD_VALUES for an exhaustive thread (bursty 0; a tracing or bursty
 * thread is left alone). Called by thread creation after the mode flags are set, and by a shadow
 * child after it made its thread exhaustive. Memory only; the state itself is mapped lazily. */
void hp_rt_pathval_thread_setup(hp_thread *t);
/* pt/path.c: t's estimated native time (TSC cycles) of what it recorded, from sampled gaps between
 * its hooks (pathval.h: hp_rt_gaps); 0 without --sample path. Shadow mode's coverage (ctl/). */
uint64_t hp_rt_native_cycles(const hp_thread *t);
uint64_t hp_rt_gap_pct(const hp_thread *t, unsigned pct); /* the pct-th percentile of its gaps (cycles) */
/* Bursty mode: one type's boundary events (pending ones included) and sampled events of t, read
 * from any thread. */
void hp_thread_bursty_counts(const hp_thread *t, int type, uint64_t *events, uint64_t *sampled);
/* The detector's configuration in this runtime (the same for every thread, so states merge). */
void hp_ds_runtime_config(hp_ds_config *c);

static inline HP_NOINST hp_frame *hp_top_frame(hp_thread *t)
{
    return t->depth < HP_STACK_FRAMES ? &t->stack[t->depth] : &t->overflow;
}

#define HP_WIN_TIME_EVERY 64u /* one call/block hook in 64 is timed in a window (rdtsc ~20 ns here) */

#endif

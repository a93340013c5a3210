/* rt.h — libhotprof_rt internals shared by the runtime's files (not installed, not public).
 *
 * What it holds:
 *   - hp_tab: a per-thread open-addressing hash table (linear probing, power-of-two capacity,
 *     load <= 1/2) of 32-byte slots {k1, k2, v1, v2}, living in one mmap'd block. k1 == 0 marks
 *     an empty slot, so every key stored here has a nonzero k1 (a callee, or an edge key whose
 *     "from" guard is nonzero). Hot methods are not a table of their own: a call pair slot also
 *     counts the back-edges of the activations it started, and the writer sums pairs by callee
 *     into FUNCS records (one hash lookup per call instead of two).
 *   - hp_counts: a per-thread array of block counts indexed by guard id; hp_bmap: the global
 *     guard id -> {pc, flags} map filled by __sanitizer_cov_pcs_init.
 *   - hp_thread: one thread's whole state (tables, shadow stack, totals), mmap'd on the thread's
 *     first event, pushed on a lock-free list and never freed.
 *   - Bursty mode (HOTPROF_MODE=bursty): each hp_thread also holds an hp_bursty_state (the HPS
 *     controller of core/bursty.h) driven by the shared hp_g_bcfg. Methods then get their own
 *     table (t->methods: sampled calls and back-edges per function) because methods and call pairs
 *     are sampled independently; t->pairs holds sampled call-pair counts, t->blocks/t->edges the
 *     blocks and edges sampled while the edge type is on. Totals count recorded (sampled) events.
 *     Loads and stores sampled by the datastream type go to t->ds (core/datastream.h), created
 *     at the thread's first sampled reference; each end of a datastream burst processes its trace
 *     (hp_ds_burst_end) under t->ds_seq, a seqlock the writer uses to serialize a stable state.
 *
 * Invariants:
 *   - Only the owning thread writes its hp_thread, its tables and its counts. Other threads (the
 *     profile writer: hotprof_flush, the exit destructor, a fatal-signal handler) only read.
 *   - A table or array that grows is copied into a fresh mmap'd block, then the new pointer is
 *     published with release semantics; the old block is never unmapped, so a concurrent reader
 *     always walks a complete, consistent array (it may miss the latest increments, never more).
 *   - A new slot's values are written before its k1 (release store): a reader that sees k1 sees
 *     the slot's key and counts.
 *   - Nothing in a hook fast path allocates, locks or calls; slow paths (first event of a
 *     thread, table growth) use only mmap. In bursty mode the controller state is only touched by
 *     its thread; t->in_slow keeps a signal handler's hooks out of an interrupted slow path.
 *
 * Every function of the runtime is marked HP_NOINST (no_instrument_function). The runtime is
 * never compiled with -finstrument-functions or -fsanitize-coverage (see Makefile), but the mark
 * keeps it safe if someone adds those flags to CFLAGS.
 *
 * Async-signal-safety: the inline helpers here only touch memory; hp_tab_slow_get and the grow
 * functions call mmap (a plain system call), so they are async-signal-safe in practice.
 */
#ifndef HOTPROF_RUNTIME_RT_H
#define HOTPROF_RUNTIME_RT_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/bursty.h"
#include "core/summary/datastream.h"
#include "core/control/window_plan.h"

#define HP_NOINST __attribute__((no_instrument_function))
#define HP_API __attribute__((visibility("default"), no_instrument_function))
#define HP_LIKELY(x) __builtin_expect(!!(x), 1)
#define HP_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define HP_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define HP_LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define HP_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define HP_STORE_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/* Owner-only increment that other threads may read concurrently: one plain add on x86.
 * A function, not a macro, so that its argument (often a table lookup) is evaluated once. */
static inline __attribute__((no_instrument_function)) void hp_bump(uint64_t *p)
{
    HP_STORE_RLX(p, HP_LOAD_RLX(p) + 1);
}
#define HP_BUMP(p) hp_bump(p)

/* ---------------------------------------------------------------- tables */

typedef struct hp_slot { uint64_t k1, k2, v1, v2; } hp_slot;

typedef struct hp_tab {
    uint64_t mask;  /* capacity - 1 */
    uint32_t shift; /* 64 - log2(capacity), for multiplicative hashing */
    uint32_t pad;
    uint64_t used;  /* occupied slots (owner only) */
    uint64_t pad2;
    hp_slot s[];
} hp_tab;

#define HP_TAB_INITIAL 64u

static inline HP_NOINST uint64_t hp_tab_hash(const hp_tab *t, uint64_t k1, uint64_t k2)
{
    return ((k1 ^ (k2 * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull) >> t->shift;
}

/* Inserts (k1, k2) with zero counts; grows *tabp first when needed. NULL only if mmap fails. */
hp_slot *hp_tab_slow_get(hp_tab **tabp, uint64_t k1, uint64_t k2);
hp_tab *hp_tab_new(uint64_t capacity);

/* The slot of (k1, k2), inserting it if absent. k1 must be nonzero. */
static inline HP_NOINST hp_slot *hp_tab_get(hp_tab **tabp, uint64_t k1, uint64_t k2)
{
    hp_tab *t = *tabp;
    for (uint64_t i = hp_tab_hash(t, k1, k2);; i = (i + 1) & t->mask) {
        hp_slot *s = &t->s[i];
        if (HP_LIKELY(s->k1 == k1 && s->k2 == k2)) return s;
        if (s->k1 == 0) return hp_tab_slow_get(tabp, k1, k2);
    }
}

/* ---------------------------------------------------------------- block arrays */

typedef struct hp_counts { uint64_t cap; uint64_t pad; uint64_t c[]; } hp_counts;
/* pc and flags from the pc-table; fn = the pc of the entry block of the function the block is
 * in (pc-table lists each function's entry block first, and its pc is the function's address,
 * i.e. what -finstrument-functions passes as this_fn). */
typedef struct hp_bentry { uint64_t pc, flags, fn, pad; } hp_bentry;
typedef struct hp_bmap { uint64_t cap; uint64_t pad; hp_bentry e[]; } hp_bmap;

extern hp_bmap *hp_g_bmap;         /* published with release; read with acquire */
extern uint32_t hp_g_guards;       /* highest guard id assigned so far */

/* ---------------------------------------------------------------- threads */

typedef struct hp_frame {
    uint64_t fn;         /* function of this activation (0 for the thread pseudo-frame) */
    uint64_t site;       /* its call site: (fn, site) is its CALLPAIRS slot */
    uint64_t last_pc;    /* start pc of the last non-entry block executed in it */
    uint64_t *backedges; /* where its back-edges are counted (pair slot v2, or the orphan counter) */
} hp_frame;

#define HP_STACK_FRAMES (1u << 17) /* shadow frames per thread (virtual; touched pages only) */
#define HP_UNWIND_SEARCH 256u      /* frames func_exit searches for its function (longjmp, throw) */
#define HP_RESYNC_SEARCH 64u       /* frames a block searches for its function's frame (after a throw) */

typedef struct hp_totals {
    uint64_t calls, blocks, backedges, loads, stores, cmps;
} hp_totals;

typedef struct hp_thread {
    uint32_t active;      /* 0: hooks return at once (stopped, off, forked child) */
    uint32_t prev_guard;  /* guard of the last block, for edges (0 = none yet) */
    uint32_t bursty;      /* 1: bursty mode (fixed at creation) */
    uint32_t in_slow;     /* bursty: inside the controller's slow path (re-entry guard) */
    uint64_t depth;       /* real frames on the shadow stack (may exceed HP_STACK_FRAMES-1) */
    hp_frame *stack;      /* [0] is the pseudo-frame; real frames are 1..depth */
    hp_bursty_state bs;   /* bursty: the HPS controller (core/bursty.h); countdown in line 1 */
    hp_counts *blocks;    /* per guard id executions */
    hp_tab *pairs;        /* k1 = callee, k2 = call site, v1 = calls, v2 = back-edges in them
                           * (bursty: v1 = sampled calls of the call-pair type, v2 unused) */
    hp_tab *edges;        /* k1 = from << 32 | to, v1 = count */
    hp_tab *methods;      /* bursty only: k1 = function, v1 = sampled calls, v2 = sampled back-edges */
    uint64_t seed;        /* bursty: this thread's controller seed (run seed, thread index) */
    hp_totals tot;
    uint64_t orphan_backedges; /* back-edges seen outside any tracked frame */
    hp_frame overflow;    /* stands for every frame deeper than the shadow stack */
    uint64_t frameless_fn, frameless_depth; /* last block function found on no frame, and where */
    hp_ds_state *ds;      /* bursty: hot data stream detector, mmap'd at the first sampled reference
                           * (published with release; NULL until then or if mmap failed) */
    uint32_t ds_guard;    /* owner: inside datastream_sample (re-entry guard for signal handlers) */
    uint32_t ds_failed;   /* 1: the detector's mmap failed; sampled references are only counted */
    uint32_t window;      /* patch mode: the window (hp_pb_epoch) this thread's call state is from */
    uint32_t pad_window;
    uint64_t win_hooks;   /* patch mode: hook calls run inside windows (owner writes, control reads) */
    uint64_t win_heavy;   /* ... of which call and block hooks (the ones that record) */
    uint64_t win_timed;   /* ... of which timed with the TSC (one in HP_WIN_TIME_EVERY) */
    uint64_t win_tsc;     /* TSC ticks of the timed ones (bursts.c: the hooks' share of a window) */
    uint64_t ds_seq;      /* even: ds is stable; odd: the owner is inside hp_ds_burst_end */
    uint64_t tid;
    struct hp_thread *next; /* global list link, immutable once published */
} hp_thread;

extern __thread hp_thread *hp_tls;
extern hp_thread *hp_g_threads;     /* list head, lock-free push, never popped */

/* Slow path of every hook: the thread's state if it should record, else NULL. */
hp_thread *hp_thread_slow(void);
hp_counts *hp_blocks_grow(hp_thread *t, uint32_t id);
void hp_frames_rebind(hp_thread *t);
void hp_threads_set_active(uint32_t active);
void hp_threads_reset_counts(void);
/* In a fork child: release the guard and module locks (their holders did not survive). */
void hp_locks_reset_after_fork(void);

static inline HP_NOINST hp_frame *hp_top_frame(hp_thread *t)
{
    return t->depth < HP_STACK_FRAMES ? &t->stack[t->depth] : &t->overflow;
}

/* ---------------------------------------------------------------- global control */

extern int hp_g_recording; /* set once init decided to record (mode != off) */
extern int hp_g_bursty;    /* set by init (before hp_g_recording) in HOTPROF_MODE=bursty */
extern hp_bursty_config hp_g_bcfg; /* bursty: the process-wide controller configuration */
/* The controller seed of the thread created index-th (0, 1, ...): derived from the run seed. */
uint64_t hp_thread_seed(uint64_t index);
extern int hp_g_stopped;   /* final group written or fork child: hooks record nothing */

int hp_rt_ensure_init(void); /* 1 if this process records, 0 if not, -1 if called inside init */
void *hp_map(size_t bytes);  /* mmap anonymous, zeroed; NULL on failure */

/* ---------------------------------------------------------------- modules (modules.c) */

/* Rebuild the cumulative module list (every module seen so far). Not signal-safe. */
void hp_modules_refresh(void);
/* The encoded MODULES payload of the last refresh (async-signal-safe). */
const uint8_t *hp_modules_payload(size_t *len);
void hp_modules_lock_reset(void); /* fork child only */
void hp_main_exe_path(char *out, size_t cap);

/* ---------------------------------------------------------------- data streams (hooks.c) */

/* The detector's configuration in this runtime (the same for every thread, so states merge). */
void hp_ds_runtime_config(hp_ds_config *c);
/* Patch mode: processes the calling thread's pending data stream trace (exit destructor). */
void hp_ds_flush_self(void);

/* ---------------------------------------------------------------- writer (writer.c) */

/* Bursty mode: a thread's events (the largest per-type exposure of its controller). */
uint64_t hp_bursty_thread_events(const hp_thread *t);
/* Bursty mode: the INFO lines of the current sampling configuration ("sample.<type>=period=N,
 * burst=M,jitter=J" and "sample.<type>.enabled=0|1" per type) into out; returns their length.
 * Reads the shared config without waiting (async-signal-safe). */
size_t hp_sample_info(char *out, size_t cap);

typedef struct hp_group_stats { uint64_t threads, calls, blocks; } hp_group_stats;
enum { HP_WRITE_OK = 0, HP_WRITE_BUSY = -1, HP_WRITE_DONE = -2, HP_WRITE_IOERR = -3 };

/* Writes the file header, INFO and MODULES to fd (async-signal-safe). 0 on success. */
int hp_write_start(int fd, const char *info, size_t info_len, uint64_t seed);
/* Writes one group; final != 0 also makes it the last one. Async-signal-safe. */
int hp_write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st);
void hp_writer_reset_after_fork(int fd);

/* ---------------------------------------------------------------- patched bursts (bursts.c) */

/* A way to make hooks run (on) and not run at all (off): XRay sleds (xray.c) or the compiler's
 * hook call sites (sites.c). Called by the control thread only. */
typedef struct hp_pb_backend {
    const char *prefix;                      /* INFO key prefix: "xray" or "patch" */
    void (*on)(void);
    void (*off)(void);
    void (*tick)(void);                      /* between windows, every ~1 ms (may be NULL) */
    /* Called by the hook that takes a window's last unit, in the program's thread: turn the
     * hooks off now if that is cheap and safe there (never blocks; may do nothing). NULL: no. */
    void (*off_now)(void);
    size_t (*info)(char *out, size_t cap);   /* extra INFO lines (may be NULL; signal-safe) */
} hp_pb_backend;

typedef hp_window_plan hp_pb_schedule; /* core/window_plan.h: W, S', every k-th window per type */

extern int64_t hp_pb_left;   /* units left in the current window (<= 0: none) */
extern uint32_t hp_pb_mask;  /* types recording now (0 outside windows) */
extern uint32_t hp_pb_epoch; /* current window number: threads reset their call state on a change */

uint64_t hp_now_ns(void);    /* CLOCK_MONOTONIC (vDSO) */
int hp_pb_take(void);        /* a boundary event in a window: 1 if it took a unit (record it) */
/* The schedule of the enabled types among the `types` bits; -1 if none of them is enabled. */
int hp_pb_schedule_from_config(hp_pb_schedule *s, uint32_t min_window, uint32_t types);
/* Init: starts the control thread over b for the enabled types among `types` (-1: none/failed). */
int hp_pb_start(const hp_pb_backend *b, uint32_t min_window, uint32_t types);
size_t hp_pb_info(char *out, size_t cap); /* "<prefix>.*" INFO lines (async-signal-safe) */

#define HP_WIN_TIME_EVERY 64u /* one call/block hook in 64 is timed in a window (rdtsc ~20 ns here) */

/* ---------------------------------------------------------------- XRay bursts (xray.c) */

extern int hp_g_xray; /* 1: time-driven XRay bursts record methods (INFO mode=xray) */
int hp_xray_present(void);                   /* the program has XRay sleds */
int hp_xray_probe(int quiet);                /* init, bursty mode: sets hp_g_xray if usable */
void hp_xray_start(void);                    /* init, output open: handler + control thread */

/* ---------------------------------------------------------------- patched call sites (sites.c) */

extern int hp_g_patch; /* 1: bursty mode over patched hook call sites (INFO mode=patch) */
/* Init, bursty mode: 1 (and hp_g_patch set) if call sites can be patched here (HOTPROF_BURSTS). */
int hp_sites_probe(int quiet);
void hp_sites_start(void);                   /* init, output open: SIGTRAP handler + control thread */
/* A hook ran outside a window: remember its call site (the 5 bytes before ret, if they are a
 * direct call to hook or to a PLT stub of it) so the control thread turns it off. Signal-safe. */
void hp_sites_note(uint64_t ret, uint64_t hook);

/* ---------------------------------------------------------------- small async-safe text */

size_t hp_fmt_u64(char *out, uint64_t v);       /* decimal, no NUL; returns length */
size_t hp_fmt_hex(char *out, uint64_t v);       /* 0x..., no NUL */
void hp_say(const char *const *parts, size_t n); /* write the parts to stderr in one write */

#endif

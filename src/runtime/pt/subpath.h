/* subpath.h — the recording side of online subpath profiling (pt/subpath_rec.c): the per-thread
 * state the hooks touch and the functions they call (core/control/osp.h has the arithmetic).
 *
 * Modes (hp_g.osp, set by init from the `subpath` clause of HOTPROF_SAMPLE):
 *   HP_OSP_RT_EXACT  --mode exhaustive: every block goes to the exhaustive counter; each thread
 *                    counts every subpath of length 2^n <= maxlen in its own table (k1 = key,
 *                    k2 = length, v1 = executions, v2 = 1 + arena offset of its sequence);
 *                    the writer merges the threads' tables.
 *   HP_OSP_RT_LIVE   bursty mode with live hooks: every block hook decrements the thread's skip
 *                    (inline, hooks_osp.h); the blocks of a sample are appended inline too, and a
 *                    complete sample goes to hp_rt_osp_block, which offers it to the ONE process
 *                    hot-list (core/summary/osplist.h) under a spin lock taken only then.
 *   HP_OSP_RT_PATCH  bursty mode over patched call sites (pt/subpath_win.c): no hook runs between
 *                    windows; in a window with the subpath bit each thread records one subpath
 *                    (patch_block calls hp_rt_osp_window_block), and the control thread weights
 *                    it when the window closes (hp_rt_osp_window_end) by the blocks its interval
 *                    stood for and offers it to the hot-list.
 *   HP_OSP_RT_COUNT  --bursts count on a dual build (pt/subpath_cnt.c, core/control/osp_count.h):
 *                    the trampolines' one countdown (ctl/dual.h) also runs to the thread's next
 *                    subpath trigger; the count slow path (hooks_dual.h) calls
 *                    hp_rt_osp_count_event, and while a subpath burst is on the block hooks
 *                    (instrumented copies) feed hp_rt_osp_count_block; a return out of the
 *                    burst's first frame (the caller may be clean code) cuts it.
 * A thread's state is mmap'd at its first block and stays with its hp_thread when the state is
 * recycled for a new thread (its exact counts keep counting for the process; the sampler and the
 * counter's ring restart: `tid` says whose they are).
 *
 * Async-signal-safety: memory and mmap; `busy` keeps a signal handler's hooks out of an
 * interrupted update on the same thread (their blocks are not counted); the list lock is a
 * bounded spin (a sample that cannot take it is dropped and counted in `dropped`).
 */
#ifndef HOTPROF_RUNTIME_PT_SUBPATH_H
#define HOTPROF_RUNTIME_PT_SUBPATH_H
#include <stdint.h>
#include "runtime/thread.h"
#include "core/control/osp.h"
#include "core/control/osp_count.h"
#include "runtime/ctl/dual.h"
#include <x86intrin.h>

enum { HP_OSP_RT_NONE = 0, HP_OSP_RT_EXACT = 1, HP_OSP_RT_LIVE = 2, HP_OSP_RT_PATCH = 3, HP_OSP_RT_COUNT = 4 };
/* hp_thread_osp.cmode (count mode): not count / no subpath burst / in a burst (block hooks record)
 * / pre-armed: one of the next HP_OSP_PREARM events triggers; the thread runs instrumented already
 * so that the frames of those events do too (blocks after a callee's return into them can be
 * seen), blocks not recorded. Odd values: the inline block path returns at once. */
#define HP_OSP_PREARM 4 /* fft: blocks seen 93% of exact with 1, 97% with 4; cost: 4 events a trigger */
/* Events pre-armed before a trigger: none when return sites are live (ctl/dual.h: a burst's return
 * into a clean caller goes on in its instrumented copy, which is what pre-arming was for; fft and
 * lexgen: blocks and top-10 errors unchanged, 6-7% less run time), else HP_OSP_PREARM. */
static inline uint64_t hp_rt_osp_prearm(void) { return hp_dual_return_sites_live() ? 0 : HP_OSP_PREARM; }
enum { HP_OSP_C_NONE = 0, HP_OSP_C_IDLE = 1, HP_OSP_C_BURST = 2, HP_OSP_C_PRE = 3 };


typedef struct hp_osp_arena { uint64_t cap; uint32_t ids[]; } hp_osp_arena;

typedef struct hp_thread_osp {
    hp_osp_sampler s;      /* live: skip, length, ids being recorded (first fields: the inline path) */
    uint32_t live;         /* 1: HP_OSP_RT_LIVE (the inline path may skip and append) */
    uint32_t busy;         /* inside hp_rt_osp_block (re-entry guard) */
    uint32_t cmode;        /* count: HP_OSP_C_* (the inline path returns at once when IDLE) */
    uint32_t cexited;      /* count: the frame at cbase returned (the next burst needs a new base) */
    uint64_t cbase;        /* count: depth of the burst's first frame, the pre-armed event's (an exit
                            * at or below it cuts: its caller may be a clean copy) */
    uint64_t carmed;       /* count: events that elapse at the next slow path (>= 1) */
    uint64_t cbs;          /* count: events left to the HPS controller's slow path (>= 1) */
    uint64_t cprearm;      /* count: hp_rt_osp_prearm() as of the last slow path (set_mode's, per block) */
    double ctau, cest;     /* count: the list's tau at the last offer; blocks estimated (sum of S per start) */
    uint64_t cevents;      /* count: boundary events elapsed (exact, to the last slow path) */
    double cevents_est;    /* count: the same estimated from the triggers (sum of S per trigger) */
    struct hp_osp_count *cs; /* count: the segment sampler (mmap'd with the state) */
    uint64_t tid;          /* the thread the sampler and ring belong to */
    uint64_t drawn_skip;   /* live: the skip of the cycle in progress (blocks seen = sum of cycles) */
    uint64_t blocks;       /* block events seen (exact: every one; live: completed cycles) */
    uint64_t samples, rejected;
    hp_osp_exact *x;       /* exact: the counter */
    hp_tab *counts;        /* exact: (key, length) -> executions, 1 + sequence offset */
    hp_osp_arena *arena;   /* exact: sequences (grown by copy, published with release) */
    uint64_t arena_used;
    uint64_t collisions;   /* exact, enc=exact: a key met with a different sequence */
    /* patch (pt/subpath_win.c): written by the owner in a window, read by the control thread */
    uint32_t wepoch;       /* the window the fields below are from */
    uint32_t pdone;        /* = wepoch once s.ids[0..s.length) holds that window's sample */
    uint64_t wblocks;      /* blocks seen in window wepoch */
    uint64_t stamp;        /* TSC at the end of the last block hook, if it was picked (else 0) */
    uint64_t gap_tsc, gaps;/* window wepoch: TSC ticks between a picked hook's end and the next
                            * block hook's start (the program's own time), and how many */
    uint64_t pick;         /* xorshift state: which hooks stamp their end (1 in HP_OSP_GAP_EVERY) */
    double est_blocks;     /* patch: blocks the windows' intervals stood for (control thread) */
    double pool_tsc, pool_gaps; /* patch: gaps pooled over the last windows (control thread) */
    uint64_t cpu_open, cpu_close; /* patch: the thread's CPU time at the window's opening and at
                            * the close of the last window it ran in (control thread; 0: none) */
} hp_thread_osp;

/* The writing side's view (pt/subpath.c): the settings; a copy of the hot-list taken under its
 * lock, its pointers moved into the copy (NULL: no list, the lock not taken, or mmap failed;
 * unmap with munmap(copy, hp_rt_osp_params()->mem)); the samples dropped for a busy lock. */
const hp_osp_params *hp_rt_osp_params(void);
struct hp_osp_list *hp_rt_osp_list_copy(void);
uint64_t hp_rt_osp_dropped(void);
/* The block after the inline path (hooks_osp.h): creates the state, counts (exact), completes a
 * sample (live). Cold relative to the skip. */
void hp_rt_osp_block(hp_thread *t, uint32_t id);
/* Shared with pt/subpath_win.c: the thread's state (created, or taken over for a new thread;
 * NULL if it cannot be mapped); the length law; a complete sample ids[0..L) with the weight it
 * stands for and p(L) offered to the hot-list (weight=cost rejection, key, lock; ids may be
 * canonicalized in place); 1 if it was offered (*tau: the list's threshold after it). */
hp_thread_osp *hp_rt_osp_state(hp_thread *t);
const hp_osp_lawp *hp_rt_osp_law(void);
int hp_rt_osp_offer(hp_thread_osp *o, uint32_t *ids, uint32_t L, double weight, double p, hp_rng *rng, double *tau);
/* Patch mode (pt/subpath_win.c): a block in a window with the subpath bit (hooks_patch.h; 1:
 * the hook is to end with hp_rt_osp_stamp), and the control thread's end of window w (an
 * hp_pb_window_fn, ctl/ctl.h). */
int hp_rt_osp_window_block(hp_thread *t, uint32_t id);
void hp_rt_osp_window_open(uint32_t w);
uint64_t hp_rt_osp_window_end(uint32_t w, uint64_t off_ns, uint64_t on_ns, double share, double tsc_per_ns);
/* The TSC in program order (rdtsc alone may run before earlier instructions complete, or after
 * later ones start: a block's time would hide in the hooks around it). */
static inline uint64_t hp_rt_osp_tsc(void)
{
    _mm_lfence();
    uint64_t c = __rdtsc();
    _mm_lfence();
    return c;
}
/* The last thing a block hook does when hp_rt_osp_window_block returned 1: stamp its end. */
static inline void hp_rt_osp_stamp(hp_thread *t) { t->osp->stamp = hp_rt_osp_tsc(); }
/* Count mode (pt/subpath_cnt.c): `elapsed` boundary events (the last one now) reached the count
 * slow path; returns 1 while a subpath burst is on (the countdown then stays at 0). The state of
 * t (created, or owned, with cbs from the controller's countdown and carmed 1; NULL if it cannot
 * be mapped). A block of a burst; an exit hook at depth <= cbase (a burst is cut, a pre-armed
 * thread needs a new base); the subpaths dropped by cuts. */
int hp_rt_osp_count_event(hp_thread_osp *o, uint64_t elapsed); /* returns the new cmode */
hp_thread_osp *hp_rt_osp_count_state(hp_thread *t);
void hp_rt_osp_count_block(hp_thread_osp *o, uint32_t id);
void hp_rt_osp_count_exit(hp_thread_osp *o);
/* The same exit, returning to a call with a live return site: nothing to cut; the burst's base
 * moves down to the caller (depth: the exiting frame's). */
void hp_rt_osp_count_return(hp_thread_osp *o, uint64_t depth);
uint64_t hp_rt_osp_count_cuts(const hp_thread_osp *o);
/* init: the process's OSP from the parsed clause (mode HP_OSP_RT_*, the run seed). 0 if the
 * hot-list could not be mapped (then OSP is off). */
int hp_rt_osp_setup(const hp_osp_params *p, int mode, uint64_t seed);

#endif

/* hooks_exhaustive.h — the hook bodies of exhaustive mode (included by hooks.c only):
 *   func_enter(fn, site): pair(fn, site)++ (the writer sums pairs into per-function calls), push
 *                  a shadow frame {fn, site, last_pc = 0} whose back-edges count in that pair.
 *   func_exit(fn): pop to the topmost frame of fn within HP_UNWIND_SEARCH frames (frames skipped
 *                  by longjmp or a C++ throw are dropped with it); an unmatched exit is ignored.
 *                  (Shared by every mode that runs exit hooks: exit_pop.)
 *   trace_pc_guard(g): blocks[*g]++, edge(prev, *g)++, and the back-edge rule (hooks_common.h).
 *   load/store/cmp/switch/div/gep hooks: count into the thread totals.
 *   adopt_frame (shadows only, blockflags HP_BLOCK_ADOPT): a frame for a block met with none.
 * Static inline: no call on the fast path. Async-signal-safe: memory only (mmap on growth).
 */
#ifndef HOTPROF_RUNTIME_HOOKS_EXHAUSTIVE_H
#define HOTPROF_RUNTIME_HOOKS_EXHAUSTIVE_H
#include "runtime/hooks_common.h"

static inline HP_NOINST void exhaustive_enter(hp_thread *t, uint64_t fn, uint64_t site)
{
    hp_tab *before = t->pairs;
    hp_slot *pair = hp_tab_get(&t->pairs, fn, site);
    HP_BUMP(&pair->v1);
    HP_BUMP(&t->tot.calls);
    if (HP_UNLIKELY(t->pairs != before)) hp_frames_rebind(t);
    push_frame(t, fn, site, &pair->v2);
}

static HP_NOINST __attribute__((noinline, cold)) void func_exit_search(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth;
    if (d >= HP_STACK_FRAMES) { t->depth = d - 1; return; } /* untracked overflow frames */
    uint64_t lowest = d > HP_UNWIND_SEARCH ? d - HP_UNWIND_SEARCH : 1;
    for (uint64_t k = d; k >= lowest; k--)
        if (t->stack[k].fn == fn) { t->depth = k - 1; return; }
    /* no frame of fn: an exit whose enter we never saw; leave the stack alone */
}

/* The pop of every mode (exhaustive, bursty, and patch inside a window). */
static inline HP_NOINST void exit_pop(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth;
    if (HP_LIKELY(d - 1 < HP_STACK_FRAMES - 1 && t->stack[d].fn == fn)) {
        t->depth = d - 1;
        return;
    }
    if (d) func_exit_search(t, fn);
}

/* Returns 1 if the block was a taken back-edge (the path profile ends a path there). */
static inline HP_NOINST int exhaustive_block(hp_thread *t, uint32_t id)
{
    uint32_t prev = t->prev_guard;
    if (!count_block(t, prev, id)) return 0;
    t->prev_guard = id;
    hp_frame *fr = backedge_frame(t, id);
    if (fr) {
        HP_BUMP(fr->backedges);
        HP_BUMP(&t->tot.backedges);
    }
    return fr != NULL;
}

/* A shadow (shadow mode, ctl/shadow_child.c) starts inside activations whose func_enter it never
 * saw: a non-entry block met with no frame at all adopts a frame for its function, whose
 * back-edges count in the call pair (fn, 0) (v1 stays 0: no call is invented), so that loops
 * already running when the shadow started count for their function. Only shadows set
 * HP_BLOCK_ADOPT: normal exhaustive threads never come here. */
static HP_NOINST __attribute__((noinline, cold)) void adopt_frame_slow(hp_thread *t, uint32_t id)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    if (!m || id >= m->cap || !m->e[id].fn || (m->e[id].flags & 1)) return;
    uint64_t fn = m->e[id].fn;
    hp_tab *before = t->pairs;
    hp_slot *pair = hp_tab_get(&t->pairs, fn, 0);
    if (HP_UNLIKELY(t->pairs != before)) hp_frames_rebind(t);
    push_frame(t, fn, 0, &pair->v2);
}

static inline HP_NOINST void adopt_frame(hp_thread *t, uint32_t id)
{
    if (HP_UNLIKELY(t->depth == 0)) adopt_frame_slow(t, id);
}

#endif

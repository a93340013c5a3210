/* hooks_common.h — what every mode's hook bodies share (included by hooks.c only): the fast
 * thread check, the shadow-stack push, the back-edge rule and block counting.
 *
 * The back-edge rule: a non-entry block whose start pc is at or below the top frame's last block
 * pc is a taken back-edge of that frame's function; entry blocks (pc-table flag bit 0) never
 * count and do not move the frame. Blocks with no frame pushed use the thread pseudo-frame. A
 * block whose function (known from the pc-table) is a few frames below the top drops the frames
 * above it: they were unwound without exit hooks (clang's -finstrument-functions calls no exit
 * hook when an exception unwinds); that block is where the longjmp or throw landed and counts no
 * back-edge (an out-of-line landing pad gets a landing frame until its handler rejoins the body:
 * resync_frame).
 *
 * Blocks of two-version code (pc-table flag 2, HP_BLOCK_FLAG_DUAL, plugin/hotprof_dual.cpp) keep the
 * frame bookkeeping but never count a back-edge here: their loop latches call
 * __hotprof_dual_backedge (hooks_dual.h), so back-edges are the compiler's, not the address rule's.
 *
 * Everything here is static inline (or a static noinline cold path): no function pointers and
 * no calls on a fast path. Async-signal-safe: memory only (mmap on growth).
 */
#ifndef HOTPROF_RUNTIME_HOOKS_COMMON_H
#define HOTPROF_RUNTIME_HOOKS_COMMON_H
#include "runtime/thread.h"
#include "runtime/blockmap.h"

/* A thread's first event creates its state; an inactive state (off, stopped, fork child) never
 * becomes active again, so it returns without a call. */
#define FAST_THREAD(t)                                                                             \
    hp_thread *t = hp_tls;                                                                         \
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) return

static inline HP_NOINST void push_frame(hp_thread *t, uint64_t fn, uint64_t site, uint64_t *backedges)
{
    uint64_t d = t->depth + 1;
    t->depth = d;
    if (HP_LIKELY(d < HP_STACK_FRAMES)) {
        hp_frame *fr = &t->stack[d];
        fr->fn = fn;
        fr->site = site;
        fr->last_pc = 0;
        fr->backedges = backedges;
    }
}

/* The block's function is not the top frame's. If its frame is a little further down, the
 * frames above it were left without an exit hook (a C++ exception, longjmp): drop them. The
 * block is then where the non-local jump landed, not a branch from the frame's last block, and
 * counts no back-edge (NULL):
 *   - at or below the frame's last pc (setjmp's second return, an inline landing pad): it simply
 *     becomes the frame's last pc;
 *   - above it (an out-of-line landing pad or catch, laid out after the function's body): a
 *     landing frame (fn HP_FRAME_LANDING, site = the frame's last pc before the throw) goes on
 *     top, so the handler's blocks come here too: forward ones move it; the first backward jump
 *     leaves the handler and pops it: above that saved pc it rejoins the body after the throwing
 *     call (no back-edge), at or below it is a loop back-edge of the frame.
 * If it has no frame (a function built without call hooks), the block counts against the top
 * frame. */
static HP_NOINST __attribute__((noinline, cold)) hp_frame *resync_frame(hp_thread *t, uint64_t fn, uint64_t pc)
{
    uint64_t d = t->depth; /* 1 <= d < HP_STACK_FRAMES: checked by the caller */
    hp_frame *top = &t->stack[d];
    if (top->fn == HP_FRAME_LANDING && t->stack[d - 1].fn == fn) { /* in a handler of the frame below */
        if (pc > top->last_pc) {
            top->last_pc = pc;
            return NULL;
        }
        t->depth = d - 1;
        if (pc <= top->site) return &t->stack[d - 1]; /* a back-edge to the throw point or before */
        t->stack[d - 1].last_pc = pc;                 /* rejoined the body after the throwing call */
        return NULL;
    }
    if (t->frameless_fn == fn && t->frameless_depth == d) return top; /* searched already */
    uint64_t lowest = d > HP_RESYNC_SEARCH ? d - HP_RESYNC_SEARCH : 1;
    for (uint64_t k = d - 1; k >= lowest; k--) {
        hp_frame *fr = &t->stack[k];
        if (fr->fn != fn) continue;
        if (pc > fr->last_pc) { /* k + 1 <= d: a dropped frame's place */
            hp_frame *land = &t->stack[k + 1];
            land->fn = HP_FRAME_LANDING;
            land->site = fr->last_pc;
            land->last_pc = pc;
            land->backedges = &t->orphan_backedges;
            t->depth = k + 1;
        } else {
            fr->last_pc = pc;
            t->depth = k;
        }
        return NULL;
    }
    t->frameless_fn = fn;
    t->frameless_depth = d;
    return top;
}

/* The back-edge rule: updates the top frame's last block pc and returns the frame if this block
 * is a taken back-edge in it, else NULL. */
#define HP_BLOCK_FLAG_DUAL 2u /* pc-table flag: a block of two-version code */

static inline HP_NOINST hp_frame *backedge_frame(hp_thread *t, uint32_t id)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    if (HP_UNLIKELY(!m || id >= m->cap)) return NULL;
    const hp_bentry *e = &m->e[id];
    uint64_t pc = e->pc;
    if (!pc || (e->flags & 1)) return NULL; /* unknown pc, or a function entry block */
    hp_frame *fr = hp_top_frame(t);
    if (HP_UNLIKELY(fr->fn != e->fn) && t->depth - 1 < HP_STACK_FRAMES - 1 && !(fr = resync_frame(t, e->fn, pc)))
        return NULL; /* landed in a frame below after a longjmp or throw */
    uint64_t last = fr->last_pc;
    fr->last_pc = pc;
    if (e->flags & HP_BLOCK_FLAG_DUAL) return NULL; /* two-version code: the latch hook counts back-edges */
    return pc <= last ? fr : NULL; /* back to its own start or below: a taken back-edge */
}

/* Counts block id (and the edge from prev) in the thread's arrays; 0 if the array cannot grow. */
static inline HP_NOINST int count_block(hp_thread *t, uint32_t prev, uint32_t id)
{
    hp_counts *c = t->blocks;
    if (HP_UNLIKELY(id >= c->cap) && (c = hp_blocks_grow(t, id))->cap <= id) return 0;
    HP_BUMP(&c->c[id]);
    HP_BUMP(&t->tot.blocks);
    if (HP_LIKELY(prev && id)) HP_BUMP(&hp_tab_get(&t->edges, (uint64_t)prev << 32 | id, 0)->v1);
    return 1;
}

/* A block's pc through the guard map (0 if unknown): edge tuples of traces and interval profiles. */
static inline HP_NOINST uint64_t hp_block_pc(uint32_t id)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    return m && id < m->cap ? m->e[id].pc : 0;
}

#endif

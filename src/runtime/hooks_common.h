/* hooks_common.h — what every mode's hook bodies share (included by hooks.c only): the fast
 * thread check, the shadow-stack push, the back-edge rule and block counting.
 *
 * The back-edge rule: a non-entry block whose start pc is at or below the top frame's last block
 * pc is a taken back-edge of that frame's function; entry blocks (pc-table flag bit 0) never
 * count and do not move the frame. Blocks with no frame pushed use the thread pseudo-frame. A
 * block whose function (known from the pc-table) is a few frames below the top drops the frames
 * above it: they were unwound without exit hooks (clang's -finstrument-functions calls no exit
 * hook when an exception unwinds).
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
 * frames above it were left without an exit hook (a C++ exception, longjmp): drop them. If it
 * has no frame (a function built without call hooks), the block counts against the top frame. */
static HP_NOINST __attribute__((noinline, cold)) hp_frame *resync_frame(hp_thread *t, uint64_t fn)
{
    uint64_t d = t->depth; /* 1 <= d < HP_STACK_FRAMES: checked by the caller */
    if (t->frameless_fn == fn && t->frameless_depth == d) return &t->stack[d]; /* searched already */
    uint64_t lowest = d > HP_RESYNC_SEARCH ? d - HP_RESYNC_SEARCH : 1;
    for (uint64_t k = d - 1; k >= lowest; k--)
        if (t->stack[k].fn == fn) {
            t->depth = k;
            return &t->stack[k];
        }
    t->frameless_fn = fn;
    t->frameless_depth = d;
    return &t->stack[d];
}

/* The back-edge rule: updates the top frame's last block pc and returns the frame if this block
 * is a taken back-edge in it, else NULL. */
static inline HP_NOINST hp_frame *backedge_frame(hp_thread *t, uint32_t id)
{
    hp_bmap *m = HP_LOAD_ACQ(&hp_g.bmap);
    if (HP_UNLIKELY(!m || id >= m->cap)) return NULL;
    const hp_bentry *e = &m->e[id];
    uint64_t pc = e->pc;
    if (!pc || (e->flags & 1)) return NULL; /* unknown pc, or a function entry block */
    hp_frame *fr = hp_top_frame(t);
    if (HP_UNLIKELY(fr->fn != e->fn) && t->depth - 1 < HP_STACK_FRAMES - 1) fr = resync_frame(t, e->fn);
    uint64_t last = fr->last_pc;
    fr->last_pc = pc;
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

#endif

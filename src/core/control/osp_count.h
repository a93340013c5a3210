/* osp_count.h — OSP subpath samples placed by a count of boundary events (count-triggered
 * segment sampling; docs/osp.md "count", `--bursts count` on dual builds, issues 9 and 14).
 *
 * A *segment* is the run of blocks after one boundary event (a call entry or a loop back-edge) up
 * to the next. Each event is a *trigger* independently with probability 1/S: the gap between two
 * triggers is 1 + a geometric skip of mean S - 1 (memoryless), drawn at each trigger with the S
 * of that moment. Every block of a segment that follows a trigger *starts* one subpath whose
 * length L is drawn from the length law; the subpath is the next L blocks, and may run past the
 * segment's end (further segments are then seen, but start nothing). A subpath completes when its
 * L-th block is seen; the burst is over when no segment is starting and nothing is pending.
 *
 * Unbiased without knowing any block rate: a block position starts a sample iff the event before
 * it triggered, probability exactly 1/S, independent of the program; a sample of length L has
 * probability p(L). A sample carries weight S (its trigger's), so for a subpath s of length L
 *   E[ sum of the weights of the samples of s ] = starts(s) x p(L)
 * and weight / p(L) estimates the executions of s. S may change between triggers (it adapts to
 * the hot-list's tau, §2.3.4): each sample carries the S its trigger was drawn with. Blocks
 * before a thread's first event start nothing; a cut (hp_osp_count_cut: the blocks that follow
 * cannot be seen) drops the pending subpaths and is counted.
 * Correlation: the starts of one segment share their trigger. A subpath gets at most one sample
 * per start position, so its samples are independent across events; within one segment a key can
 * recur only by rotation (enc=exact/xor: up to L starts of one loop), which the Chernoff bounds
 * (independent samples) do not model.
 *
 * Invariants: npend <= HP_OSP_MAXLEN (a pending subpath started within the last maxlen blocks);
 * ring[i % HP_OSP_RING] holds block i of the burst for the last HP_OSP_RING blocks; left >= 1.
 * Pure C11, no allocation: the state is the caller's (about 24 KB).
 */
#ifndef HOTPROF_CORE_CONTROL_OSP_COUNT_H
#define HOTPROF_CORE_CONTROL_OSP_COUNT_H
#include <stdint.h>
#include "core/control/osp.h"

typedef struct hp_osp_pend { uint64_t start; uint32_t length, pad; double weight; } hp_osp_pend;

typedef struct hp_osp_count {
    uint64_t left;      /* events to the next trigger (the one that brings it to 0 triggers) */
    double wstart;      /* weight of the starts of the current segment (its trigger's S) */
    uint32_t starting;  /* 1: the segment after a trigger: its blocks start subpaths */
    uint32_t npend;
    uint64_t pos;       /* blocks seen in bursts (ring index) */
    uint64_t starts;    /* subpaths started */
    uint64_t cuts;      /* pending subpaths dropped by hp_osp_count_cut */
    hp_rng rng;
    uint32_t ring[HP_OSP_RING];
    hp_osp_pend pend[HP_OSP_MAXLEN];
    uint32_t seq[HP_OSP_MAXLEN];
} hp_osp_count;

/* A complete sample: its blocks, length, weight (S) and p(L). */
typedef void (*hp_osp_count_fn)(void *ctx, uint32_t *ids, uint32_t length, double weight, double p);

/* A fresh state whose first trigger is drawn with mean period S (>= 1). */
void hp_osp_count_init(hp_osp_count *c, uint64_t seed, double S);
/* `elapsed` >= 1 boundary events, the last one now (never past the trigger: elapsed <= left).
 * Ends the starting segment; if this event triggers, the next segment starts subpaths and the
 * next gap is drawn with mean S. Returns 1 while the burst is on (blocks must be shown). */
int hp_osp_count_events(hp_osp_count *c, uint64_t elapsed, double S);
/* 1 while blocks must be shown (a segment is starting or a subpath is pending). */
static inline int hp_osp_count_on(const hp_osp_count *c) { return c->starting || c->npend; }
/* A block seen in a burst: starts a subpath if the segment is starting, completes those whose
 * length is reached (done(ctx, ...) for each; ids is scratch the callee may reorder). */
void hp_osp_count_block(hp_osp_count *c, uint32_t id, const hp_osp_lawp *law, hp_osp_count_fn done, void *ctx);
/* The blocks that follow cannot be seen (a return into clean code): pending subpaths and the
 * starting segment end; returns how many subpaths were dropped. */
uint32_t hp_osp_count_cut(hp_osp_count *c);

#endif

/* pathval.h — the recording side of the path and value profiles of exhaustive runs (and of the
 * shadows of shadow mode): settings, per-thread state, and the calls the hooks make.
 * docs/paths.md and docs/value-reports.md say what is recorded.
 *
 *   paths   a thread whose blockflags has HP_BLOCK_PATH runs exhaustive_block, then
 *           hp_rt_path_block(t, id, backedge): the block is appended to the thread's current
 *           path (and its running key, core/ptype/path.h); a taken back-edge ends the path
 *           before the block, reaching maxlen ends it after; an ended path is counted in the
 *           thread's table (k1 = key, k2 = length, v1 = count, v2 = 1 + arena offset of its
 *           sequence, 0 when the bounded arena was full: counted in `unkept`).
 *   values  a thread whose bursty is HP_THREAD_VALUES runs the exhaustive bodies, and its compare
 *           and load hooks also call hp_rt_val_add(t, pc, kind, operand, value): the value goes to
 *           the site (pc, kind, operand)'s TNV table (core/summary/tnv.h) or Gibbons-Matias list
 *           (core/summary/value_gm.h); a bounded site table per thread, values of sites past the
 *           cap counted in `dropped`.
 * State is mmap'd on a thread's first path block / first value (NULL until then, or if mmap
 * failed) and stays with its hp_thread when the state is recycled for a new thread.
 *
 * Flags: hp_g.pathval (HP_PV_RT_* bits, from hp_rt_pathval_start, stored by init before anything
 * records) tells hp_rt_pathval_thread_setup (thread.c; declared in thread.h so that thread.c and
 * ctl/ can call it) which flags a thread needs.
 *
 * Invariants: only the owning thread writes its state; the writer reads slots through published
 * pointers (k1 / pc stored last with release). Async-signal-safety: memory and mmap; `busy`
 * keeps a signal handler's hooks out of an interrupted update (their events are not recorded).
 */
#ifndef HOTPROF_RUNTIME_PT_PATHVAL_H
#define HOTPROF_RUNTIME_PT_PATHVAL_H
#include <stdint.h>
#include "runtime/thread.h"
#include "core/control/pathval_spec.h"

struct hp_rec_value;

/* Init, once, before any thread records: keeps the settings; returns the HP_PV_RT_* bits they
 * enable. The caller stores them in hp_g.pathval where this process records them (exhaustive
 * mode: init); shadow mode keeps them for its children, each of which stores them and then calls
 * hp_rt_pathval_thread_setup on its thread (the parent records nothing). */
uint32_t hp_rt_pathval_start(const hp_pv_params *p);
const hp_pv_params *hp_rt_pathval_params(void);

/* The block hook's path step (after exhaustive_block: backedge = 1 if it counted a taken back-edge). */
void hp_rt_path_block(hp_thread *t, uint32_t id, int backedge);
/* Two-version code's latch hook (hooks.c, __hotprof_dual_backedge) on a thread with HP_BLOCK_PATH:
 * the blocks of cloned functions count no back-edge in exhaustive_block (their address rule is
 * off), so the taken back-edge is noted here and ends the path before the next block (the header). */
void hp_rt_path_backedge(hp_thread *t);
/* The program's own time between hooks, sampled (shadow mode's coverage estimate, docs/shadow.md):
 * one segment starts at the end of each path block and each value; every GAP_EVERY-th is timed
 * (rdtsc) until the next hook starts (a path block, a value, a call or return of a thread with
 * values). Gaps go into a histogram of HP_GAP_BUCKET-cycle buckets; its 10th percentile is taken
 * as the hooks' fixed part (call, return, the checks before the timing; rdtsc is not serializing,
 * so the minimum is no estimate of it) and subtracted from every gap; the mean of the rest times
 * the segments is hp_rt_native_cycles (thread.h). A gap above GAP_MAX cycles (a preemption, a
 * signal, a fault) is dropped. The state lives in the thread's path state: without --sample path
 * nothing is timed. */
#define HP_GAP_BUCKETS 1024u
#define HP_GAP_BUCKET 1u /* one cycle: a native segment is a few cycles, as is a bucket's rounding */
typedef struct hp_rt_gaps {
    uint64_t open, segments, n;
    uint64_t big_sum, big_n;         /* gaps past the histogram (and below GAP_MAX) */
    uint32_t hist[HP_GAP_BUCKETS];   /* gaps by HP_GAP_BUCKET cycles */
} hp_rt_gaps;
void hp_rt_gap_close(hp_thread *t); /* a value hook starts */
void hp_rt_gap_open(hp_thread *t);  /* a value hook ends */
/* A compare operand or loaded value at pc (the hook's return address). */
void hp_rt_val_add(hp_thread *t, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value);

/* Each value site of t as a record and its (value, count) pairs, highest count first (at most
 * HP_VALUE_MAX_ENTRIES; counts > 0 and summing to at most captures); returns the sites. */
typedef void hp_rt_val_fn(void *arg, const struct hp_rec_value *r, const uint64_t *pairs);
uint32_t hp_rt_vals_each(const hp_thread *t, hp_rt_val_fn *fn, void *arg);
/* The group INFO lines of both profiles (pathval.*, path.*, values.*; hp_pt.group_info contract). */
size_t hp_rt_pathval_info(char *out, size_t cap);
/* Totals over every thread, for INFO. */
void hp_rt_path_totals(uint64_t *paths, uint64_t *unkept, uint64_t *dropped);
void hp_rt_vals_totals(uint64_t *sites, uint64_t *dropped);

#endif

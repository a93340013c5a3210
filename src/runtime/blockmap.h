/* blockmap.h — the process-wide coverage guard map: guard id -> {pc, flags, fn} (hp_g.bmap), and
 * the assignment of guard ids (hp_g.guards), filled by the ABI entry points
 * __sanitizer_cov_trace_pc_guard_init and __sanitizer_cov_pcs_init (hooks.c) through the
 * functions here.
 *
 * Guard ids are global (1..N, assigned under a spin lock); pcs_init fills the entries of the
 * guards of the preceding guard_init call. pc and flags come from the pc-table; fn = the pc of
 * the entry block of the function the block is in (pc-table lists each function's entry block
 * first, and its pc is the function's address, i.e. what -finstrument-functions passes as
 * this_fn).
 *
 * Invariants: the map grows by copy + release publish (the old block stays mapped), so hooks and
 * the writer read it with acquire and never see a torn array; an entry's pc is stored last.
 * Async-signal-safety: readers are; guard_init/pcs_init take the spin lock (constructors only).
 */
#ifndef HOTPROF_RUNTIME_BLOCKMAP_H
#define HOTPROF_RUNTIME_BLOCKMAP_H
#include <stdint.h>
#include "runtime/base.h"

typedef struct hp_bentry { uint64_t pc, flags, fn, pad; } hp_bentry;
typedef struct hp_bmap { uint64_t cap; uint64_t pad; hp_bentry e[]; } hp_bmap;

/* Assigns ids to the zero guards in [start, stop) and makes room for them. 1 if it did
 * anything (a new instrumented module: the caller refreshes the module list). */
int hp_blockmap_guard_init(uint32_t *start, uint32_t *stop);
/* Fills the entries of the last guard_init's guards from its pc-table. */
void hp_blockmap_pcs_init(const uintptr_t *pcs_beg, const uintptr_t *pcs_end);
/* Fork child: release the guard lock (its holder did not survive). */
void hp_blockmap_lock_reset(void);

#endif

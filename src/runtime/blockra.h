/* blockra.h — block hooks named by their return address (plugin/dual_blockra.h): the return
 * address -> guard map of every module whose instrumented copies call __hotprof_blkra_thunk.
 *
 * A module's records (section __hotprof_blkra) are pairs of 32-bit offsets, each relative to its
 * own field: {return address of a hook call, the block's guard}. __hotprof_blkra_init (hooks.c)
 * registers them once per module (every object of a link calls it with the same section) in a
 * fixed array of module slots reserved by an atomic counter (no lock: constructors of a dlopen in
 * one thread and a fork in another cannot leave one held): the records and their range. The
 * first lookup in a module builds its open-addressing table (keys: return addresses, 0 = empty;
 * values: guard pointers; load <= 1/2), so a run that never enters an instrumented copy pays
 * nothing at start-up (tcc: 20 492 records); a lookup that finds the table being built (another
 * thread, or the frame a signal interrupted) scans the records instead. __hotprof_blkra_fini
 * clears the slot's range before the module's pages go, so a later module at the same addresses
 * is never answered from it.
 *
 * Invariants: a built table never changes; its memory is never freed (a lookup racing a fini
 * reads a table that stays mapped). hp_blockra_guard is lock-free and async-signal-safe (mmap
 * is its only system call).
 * The table functions (build, find) are pure and unit-tested (tests/unit/test_blockra.c).
 */
#ifndef HOTPROF_RUNTIME_BLOCKRA_H
#define HOTPROF_RUNTIME_BLOCKRA_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_blockra_rec { int32_t ra, guard; } hp_blockra_rec; /* offsets from each field */

/* The table's size (a power of two, at least twice the record count) for n records. */
uint64_t hp_blockra_cap(size_t n);
/* Fills keys[cap] / vals[cap] (zeroed, cap from hp_blockra_cap) from the records [start, stop).
 * A return address recorded twice keeps its first guard. */
void hp_blockra_build(const hp_blockra_rec *start, const hp_blockra_rec *stop, uint64_t *keys, uint32_t **vals,
                      uint64_t cap);
/* The guard of return address ra in a built table, or NULL. */
uint32_t *hp_blockra_find(const uint64_t *keys, uint32_t *const *vals, uint64_t cap, uint64_t ra);

/* Registers a module's records (again: nothing). 0, or -1 if no slot is left (its hooks then
 * record nothing: hp_blockra_guard answers NULL). */
int hp_blockra_register(const hp_blockra_rec *start, const hp_blockra_rec *stop);
/* Forgets the module whose records these are (its destructor). */
void hp_blockra_unregister(const hp_blockra_rec *start, const hp_blockra_rec *stop);
/* The guard of the hook call returning to ra in any registered module, or NULL. */
uint32_t *hp_blockra_guard(uint64_t ra);
/* Module slots in use (tests). */
uint32_t hp_blockra_modules(void);

#endif

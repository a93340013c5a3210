/* valuelist.h — per-site value lists as compilers keep them for value profiling (a baseline).
 *
 * One list per instrumented site holds up to `slots` (value, count) entries in insertion order.
 * An update adds to a value already listed, or appends while there is room. When the list is
 * full the two runtimes differ (both taken from their sources):
 *   LLVM compiler-rt (InstrProfilingValue.c, instrumentTargetValueImpl; 24 values per site by
 *   default, INSTR_PROF_DEFAULT_NUM_VAL_PER_SITE): find the first entry with the smallest count;
 *   if its count <= weight, overwrite it with (value, weight); else subtract weight from it.
 *   GCC libgcov (libgcov.h, gcov_topn_add_value; GCOV_TOPN_MAXIMUM_TRACKED_VALUES = 32):
 *   find the first entry with the smallest count; decrement it by one; if it is now < weight,
 *   overwrite it with (value, weight). GCC also counts calls (the TOPN "all" counter).
 * Weight 0 updates are ignored (LLVM returns early on CountValue 0; the interface's weight is
 * at least 1 everywhere hotprof calls it).
 *
 * Guarantee (deterministic): counts only grow by the value's own weight and an entry starts at
 * the weight of a real occurrence, so count <= true count (lower = count), and
 * true count <= total - (sum of the other listed counts) (upper). Merge is not supported
 * (the runtimes merge offline in their profile tools): merge() returns -1.
 */
#ifndef HOTPROF_CORE_VALUELIST_H
#define HOTPROF_CORE_VALUELIST_H
#include <stddef.h>
#include <stdint.h>
#include "core/summary/summary.h"
#include "core/summary/valuetable.h"

enum hp_valuelist_policy { HP_VALUELIST_LLVM = 1, HP_VALUELIST_GCC = 2 };
#define HP_VALUELIST_LLVM_SLOTS 24
#define HP_VALUELIST_GCC_SLOTS 32
#define HP_VALUELIST_MAX_SLOTS 255

typedef struct hp_valuelist hp_valuelist;
typedef hp_value_count hp_valuelist_entry; /* see valuetable.h */

size_t hp_valuelist_bytes(uint32_t slots);
hp_valuelist *hp_valuelist_init(void *mem, size_t budget, int policy, uint32_t slots);
void hp_valuelist_update(hp_valuelist *vl, uint64_t value, uint64_t weight);
/* Entries in list order; returns how many are in use. */
uint32_t hp_valuelist_entries(const hp_valuelist *vl, const hp_valuelist_entry **out);
uint64_t hp_valuelist_calls(const hp_valuelist *vl); /* updates seen (GCC's "all" counter) */

extern const hp_summary_vt hp_valuelist_llvm_vt;
extern const hp_summary_vt hp_valuelist_gcc_vt;

#endif

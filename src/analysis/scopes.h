/* scopes.h — the function scopes holding an address (the subprogram and the inlined subroutines
 * nested in it) and the compile unit holding it, from indexes built once, for symbolize.c.
 *
 * Why an index: libdw's dwarf_getscopes walks a unit's whole DIE tree on every call, and a unit
 * without .debug_aranges (clang's default) can only be found by asking every unit in turn. On a
 * program with one large unit (QuickJS's quickjs.c) `hotprof report` took 5.4 s instead of 37 ms
 * (bench/export). Here a module gets, on first use, a sorted table of its units' address ranges;
 * a unit gets, on the first address that falls in it, one walk of its DIE tree into a table of the
 * address ranges of its subprograms (sorted) and, per subprogram, of the inlined subroutines nested
 * in it (each with its parent, so the inline chain is a walk up). A lookup is two binary searches
 * and a scan of one function's inlined ranges.
 *
 * Invariants: names and files returned point into libdw's data and stay valid until the Dwfl is
 * ended; out of memory leaves a module or unit unindexed (lookups in it find nothing), never a
 * wrong answer; the index borrows the Dwfl_Modules and must be freed before dwfl_end.
 */
#ifndef HOTPROF_ANALYSIS_SCOPES_H
#define HOTPROF_ANALYSIS_SCOPES_H
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>

#define HP_SCOPE_CHAIN_MAX 16 /* inlined functions kept per address (the outermost ones) */

typedef struct hp_scope_hit {
    int ninlined;                            /* inlined subroutines holding the address (0: none) */
    const char *inlined[HP_SCOPE_CHAIN_MAX]; /* their names, outermost first (at most the max) */
    int call_line;                           /* where the outermost one is called, 0 unknown */
    int decl_line;                           /* the innermost scope's declaration line, 0 unknown */
    const char *decl_file;                   /* its declaration file, NULL unknown */
} hp_scope_hit;

typedef struct hp_scope_index hp_scope_index;

/* NULL only when memory runs out. */
hp_scope_index *hp_scope_index_new(void);
void hp_scope_index_free(hp_scope_index *x);

/* The unit of mod holding addr (a process address): 1 with *cudie and *bias set, else 0. */
int hp_scope_unit(hp_scope_index *x, Dwfl_Module *mod, uint64_t addr, Dwarf_Die *cudie, Dwarf_Addr *bias);
/* The function scopes holding addr: 1 with *hit filled when a subprogram holds it, else 0. */
int hp_scope_find(hp_scope_index *x, Dwfl_Module *mod, uint64_t addr, hp_scope_hit *hit);

#endif

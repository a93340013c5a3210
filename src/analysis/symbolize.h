/* symbolize.h — turns addresses recorded in a profile into function, file and line.
 *
 * hp_sym_open() reports every module of the profile to elfutils' libdwfl (offline, at the load
 * bias recorded for it), compares the build-id recorded at run time with the file's, and keeps a
 * warning (once per module) when they differ or the file cannot be opened. hp_sym_lookup()
 * resolves one address: the function (from DWARF-less symbol tables too; C++ names demangled
 * when a demangler can be found at run time, see hp_sym_demangler_available()), its start, the
 * module, the source file and line, and (from the DWARF scopes holding the address) the function
 * inlined there, if any. A line-table line 0 (code the compiler attributes to no line: XRay sleds,
 * code moved by inlining) falls back to the declaration line of the innermost function holding the
 * address (DW_AT_decl_line; line_from_decl says so), or without one (-gline-tables-only) the line
 * of the function's first instruction. Results are cached: looking an address up twice is cheap,
 * and the returned pointer stays valid until hp_sym_close().
 *
 * Invariant: the symbolizer borrows the profile's module array; the profile must outlive it.
 */
#ifndef HOTPROF_ANALYSIS_SYMBOLIZE_H
#define HOTPROF_ANALYSIS_SYMBOLIZE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/profile.h"

typedef struct hp_symbol {
    uint64_t addr;
    const char *function;   /* NULL when unknown */
    const char *symbol;     /* the function's symbol as in the object (mangled); NULL when unknown */
    uint64_t func_start;    /* meaningful when function != NULL */
    const hp_module *module;/* the recorded module holding addr, or NULL */
    const char *file;       /* source file, NULL when unknown */
    int line;               /* 0 when unknown */
    int line_from_decl;     /* 1: the line table said 0, `line` is the function's declaration line
                               (or the line of its first instruction when DWARF has no declaration) */
    const char *inlined;    /* the functions inlined at addr, outermost first, joined by " → ";
                               NULL when addr is not in inlined code */
    int inlined_at;         /* the line of `function` where the outermost inlined call is, 0 unknown */
} hp_symbol;

typedef struct hp_symbolizer hp_symbolizer;

/* NULL only when memory runs out. Modules that cannot be used become warnings. */
hp_symbolizer *hp_sym_open(const hp_module *modules, size_t nmodules);
void hp_sym_close(hp_symbolizer *s);
const hp_symbol *hp_sym_lookup(hp_symbolizer *s, uint64_t addr);
/* The start of the function holding addr from the symbol table only (no DWARF: cheap), or addr
 * itself when no function is known. Equal for two addresses of one function. */
uint64_t hp_sym_function_start(hp_symbolizer *s, uint64_t addr);

/* A printable name for addr: the function, else "module+0xOFF", else "0xADDR". */
void hp_sym_name(const hp_symbol *sym, char *buf, size_t n);
/* name plus, when addr lies in inlined code, " → [inlined NAME] line N" (N: inlined_at). */
void hp_sym_name_inline(const hp_symbol *sym, char *buf, size_t n);
/* The line shown for a pc: the line table's, else (0) the function's declaration line decl_line;
 * *from_decl = 1 when the fallback was taken. */
int hp_sym_pick_line(int table_line, int decl_line, int *from_decl);
/* "file:line" (file shortened to its last two path components), or "" when unknown. */
void hp_sym_where(const hp_symbol *sym, char *buf, size_t n);

/* A malloc'd readable form of a symbol name: demangled if it is a C++ name ("_Z...") and a
 * demangler was found, else a copy. NULL only when memory runs out. */
char *hp_sym_demangle(hp_symbolizer *s, const char *name);
/* The function a symbol names, as hp_sym_demangle gives it, except that the instrumented copies
 * of a two-version function F (plugin/hotprof_dual.cpp: local "F.hotprof", "F.hotprof.loop",
 * "F.hotprof.loop.N") are named F. */
char *hp_sym_function_name(hp_symbolizer *s, const char *symbol);

size_t hp_sym_nwarnings(const hp_symbolizer *s);
const char *hp_sym_warning(const hp_symbolizer *s, size_t i);
/* 1 once a mangled C++ name was met and no __cxa_demangle could be found: names are mangled. */
int hp_sym_left_mangled(const hp_symbolizer *s);

#endif

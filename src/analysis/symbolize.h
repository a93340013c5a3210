/* symbolize.h — turns addresses recorded in a profile into function, file and line.
 *
 * hp_sym_open() reports every module of the profile to elfutils' libdwfl (offline, at the load
 * bias recorded for it), compares the build-id recorded at run time with the file's, and keeps a
 * warning (once per module) when they differ or the file cannot be opened. hp_sym_lookup()
 * resolves one address: the function (from DWARF-less symbol tables too; C++ names demangled
 * when a demangler can be found at run time, see hp_sym_demangler_available()), its start, the
 * module, the source file and line. Results are cached: looking an address up twice is cheap,
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
} hp_symbol;

typedef struct hp_symbolizer hp_symbolizer;

/* NULL only when memory runs out. Modules that cannot be used become warnings. */
hp_symbolizer *hp_sym_open(const hp_module *modules, size_t nmodules);
void hp_sym_close(hp_symbolizer *s);
const hp_symbol *hp_sym_lookup(hp_symbolizer *s, uint64_t addr);

/* A printable name for addr: the function, else "module+0xOFF", else "0xADDR". */
void hp_sym_name(const hp_symbol *sym, char *buf, size_t n);
/* "file:line" (file shortened to its last two path components), or "" when unknown. */
void hp_sym_where(const hp_symbol *sym, char *buf, size_t n);

/* A malloc'd readable form of a symbol name: demangled if it is a C++ name ("_Z...") and a
 * demangler was found, else a copy. NULL only when memory runs out. */
char *hp_sym_demangle(hp_symbolizer *s, const char *name);

size_t hp_sym_nwarnings(const hp_symbolizer *s);
const char *hp_sym_warning(const hp_symbolizer *s, size_t i);
/* 1 once a mangled C++ name was met and no __cxa_demangle could be found: names are mangled. */
int hp_sym_left_mangled(const hp_symbolizer *s);

#endif

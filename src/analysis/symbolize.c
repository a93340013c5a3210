/* symbolize.c — address -> {function, start, module, file, line} with libdwfl in offline mode.
 *
 * Each recorded module is reported with dwfl_report_elf(add_p_vaddr = true, base = the load bias
 * the runtime recorded), so an address of the profiled run maps to the same place in the file.
 * The cache is a pairmap from address to an index into `syms`; the strings of a cached symbol
 * are owned by the symbolizer (libdwfl's may move when the Dwfl is closed).
 *
 * Scopes (inlined code, the line-0 fallback) and the unit holding an address come from indexes
 * built once per module and unit (scopes.h): asking libdw per address (dwarf_getscopes walks the
 * whole unit) made `report` 145x slower on a program with one large unit.
 *
 * Demangling: hotprof links no C++ runtime. If __cxa_demangle is already in the process, or
 * libstdc++.so.6 can be dlopen()ed, it is used; otherwise names stay mangled and
 * hp_sym_left_mangled() says so, for the report to tell the user.
 */
#define _GNU_SOURCE
#include "analysis/symbolize.h"
#include "analysis/pairmap.h"
#include "analysis/scopes.h"
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* One module's function symbols (defined STT_FUNC), sorted by start: a binary search answers
 * "which function holds addr" without libdwfl's per-call symbol table scan. */
typedef struct func_span { uint64_t start, end; } func_span;
typedef struct func_table {
    Dwfl_Module *mod;
    func_span *v;
    const char **name; /* per span: dwfl_module_addrinfo's answer once it matched the span, else NULL */
    size_t n;
} func_table;

struct hp_symbolizer {
    Dwfl *dwfl;
    hp_scope_index *scopes; /* units and function scopes of the modules, built on first use */
    struct func_table *ftabs; /* per module: its function symbols sorted by address (first use) */
    size_t nftabs;
    const hp_module *modules;
    size_t nmodules;
    hp_pairmap cache; /* addr -> index into syms */
    hp_symbol *syms;
    size_t nsyms, syms_cap;
    char **warnings;
    size_t nwarnings;
    int demangler_state; /* 0 not looked for, 1 found, -1 not found */
    demangle_fn demangle;
    int left_mangled;
};

static void sym_warn(hp_symbolizer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sym_warn(hp_symbolizer *s, const char *fmt, ...)
{
    char **w = realloc(s->warnings, (s->nwarnings + 1) * sizeof *w);
    if (!w) return;
    s->warnings = w;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&w[s->nwarnings], fmt, ap) >= 0) s->nwarnings++;
    va_end(ap);
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static int is_pseudo_module(const char *path)
{
    return path[0] == '[' || strncmp(path, "linux-vdso", 10) == 0 || strncmp(path, "linux-gate", 10) == 0;
}

static void check_build_id(hp_symbolizer *s, Dwfl_Module *mod, const hp_module *m)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    if (!m->buildid_len) return;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    if (n <= 0)
        sym_warn(s, "%s: the file has no build-id, the profile recorded one; symbols may be wrong", m->path);
    else if ((uint32_t)n != m->buildid_len || memcmp(bits, m->buildid, m->buildid_len) != 0)
        sym_warn(s, "%s: build-id differs from the profiled run (file rebuilt since?); symbols may be wrong",
                 m->path);
}

static void report_module(hp_symbolizer *s, const hp_module *m)
{
    if (!m->path[0] || is_pseudo_module(m->path)) return;
    Dwfl_Module *mod = dwfl_report_elf(s->dwfl, m->path, m->path, -1, m->base, true);
    if (!mod) {
        sym_warn(s, "%s: cannot load symbols (%s); its addresses print as module+offset", m->path,
                 dwfl_errmsg(-1));
        return;
    }
    check_build_id(s, mod, m);
}

hp_symbolizer *hp_sym_open(const hp_module *modules, size_t nmodules)
{
    hp_symbolizer *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->modules = modules;
    s->nmodules = nmodules;
    if (!(s->scopes = hp_scope_index_new())) return free(s), NULL;
    s->dwfl = dwfl_begin(&offline_callbacks);
    if (!s->dwfl) {
        sym_warn(s, "cannot start libdwfl (%s); addresses print as numbers", dwfl_errmsg(-1));
        return s;
    }
    dwfl_report_begin(s->dwfl);
    for (size_t i = 0; i < nmodules; i++) report_module(s, &modules[i]);
    dwfl_report_end(s->dwfl, NULL, NULL);
    return s;
}

void hp_sym_close(hp_symbolizer *s)
{
    if (!s) return;
    hp_scope_index_free(s->scopes); /* borrows the Dwfl's modules: before dwfl_end */
    for (size_t i = 0; i < s->nftabs; i++) free(s->ftabs[i].v), free(s->ftabs[i].name);
    free(s->ftabs);
    if (s->dwfl) dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->nsyms; i++) {
        free((char *)s->syms[i].function);
        free((char *)s->syms[i].file);
        free((char *)s->syms[i].inlined);
    }
    for (size_t i = 0; i < s->nwarnings; i++) free(s->warnings[i]);
    free(s->syms);
    free(s->warnings);
    hp_pairmap_free(&s->cache);
    free(s);
}

static demangle_fn find_demangler(hp_symbolizer *s)
{
    if (s->demangler_state == 0) {
        void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (!f) {
            void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
            if (h) f = dlsym(h, "__cxa_demangle");
        }
        s->demangle = (demangle_fn)f;
        s->demangler_state = f ? 1 : -1;
    }
    return s->demangle;
}

/* A malloc'd copy of name, demangled when it is a C++ name and a demangler exists. */
char *hp_sym_demangle(hp_symbolizer *s, const char *name)
{
    if (strncmp(name, "_Z", 2) == 0) {
        demangle_fn demangle = find_demangler(s);
        int status = -1;
        char *d = demangle ? demangle(name, NULL, NULL, &status) : NULL;
        if (d && status == 0) return d;
        free(d);
        if (!demangle) s->left_mangled = 1;
    }
    return strdup(name);
}

#define DUAL_CLONE_SUFFIX ".hotprof"

/* Where a two-version clone's suffix ".hotprof" (end of name, or followed by '.') begins, or NULL. */
static const char *dual_suffix(const char *symbol)
{
    size_t k = sizeof DUAL_CLONE_SUFFIX - 1;
    for (const char *p = strstr(symbol, DUAL_CLONE_SUFFIX); p; p = strstr(p + 1, DUAL_CLONE_SUFFIX))
        if (p > symbol && (p[k] == 0 || p[k] == '.')) return p;
    return NULL;
}

char *hp_sym_function_name(hp_symbolizer *s, const char *symbol)
{
    const char *suffix = dual_suffix(symbol);
    if (!suffix) return hp_sym_demangle(s, symbol);
    char *base = strndup(symbol, (size_t)(suffix - symbol));
    char *name = base ? hp_sym_demangle(s, base) : NULL;
    free(base);
    return name;
}

static const hp_module *recorded_module(const hp_symbolizer *s, uint64_t addr)
{
    for (size_t i = 0; i < s->nmodules; i++)
        if (addr >= s->modules[i].lo && addr < s->modules[i].hi) return &s->modules[i];
    return NULL;
}

/* The line of addr from its unit's line table when libdwfl finds no unit (clang emits no
 * .debug_aranges, and libdw before 0.191 then finds none): the unit comes from the index. */
static const char *source_by_unit_scan(hp_symbolizer *s, Dwfl_Module *mod, uint64_t addr, int *lineno)
{
    Dwarf_Addr bias;
    Dwarf_Die cudie;
    if (!hp_scope_unit(s->scopes, mod, addr, &cudie, &bias)) return NULL;
    Dwarf_Line *line = dwarf_getsrc_die(&cudie, addr - bias);
    if (!line || dwarf_lineno(line, lineno) != 0) return NULL;
    return dwarf_linesrc(line, NULL, NULL);
}

int hp_sym_pick_line(int table_line, int decl_line, int *from_decl)
{
    *from_decl = table_line <= 0 && decl_line > 0;
    return *from_decl ? decl_line : table_line;
}

/* The functions inlined at sym->addr, outermost first and joined by " → ", with the line of the
 * real function where the outermost one is called (scopes.h); a line 0 becomes the innermost
 * function's declaration line (hp_sym_pick_line). */
static void resolve_scopes(hp_symbolizer *s, Dwfl_Module *mod, hp_symbol *sym)
{
    hp_scope_hit hit;
    if (!hp_scope_find(s->scopes, mod, sym->addr, &hit)) return;
    size_t cap = 1, len = 0;
    for (int i = 0; i < hit.ninlined; i++) cap += strlen(hit.inlined[i]) + 5;
    char *text = hit.ninlined ? malloc(cap) : NULL;
    if (text) {
        text[0] = 0;
        for (int i = 0; i < hit.ninlined; i++)
            len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? " \u2192 " : "", hit.inlined[i]);
        sym->inlined = text;
        sym->inlined_at = hit.call_line;
    }
    if (sym->line <= 0) {
        sym->line = hp_sym_pick_line(sym->line, hit.decl_line, &sym->line_from_decl);
        if (sym->line_from_decl && hit.decl_file) free((char *)sym->file), sym->file = strdup(hit.decl_file);
    }
}

/* The source file and line of addr from the line table (*lineno 0 when unknown). */
static const char *source_line(hp_symbolizer *s, Dwfl_Module *mod, uint64_t addr, int *lineno)
{
    Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
    *lineno = 0;
    return line ? dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL) : source_by_unit_scan(s, mod, addr, lineno);
}

/* Without a declaration line (-gline-tables-only emits no subprogram DIEs): the line of the
 * function's first instruction, the nearest thing to it. */
static void entry_line(hp_symbolizer *s, Dwfl_Module *mod, hp_symbol *sym)
{
    int lineno = 0;
    const char *src = source_line(s, mod, sym->func_start, &lineno);
    if (!src || lineno <= 0) return;
    sym->line = hp_sym_pick_line(sym->line, lineno, &sym->line_from_decl);
    if (!sym->file) sym->file = strdup(src);
}

static int cmp_span(const void *a, const void *b)
{
    const func_span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

static void fill_func_table(func_table *t)
{
    int n = dwfl_module_getsymtab(t->mod);
    if (n <= 0 || !(t->v = malloc((size_t)n * sizeof *t->v))) return;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(t->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && addr)
            t->v[t->n++] = (func_span){addr, addr + sym.st_size};
    }
    if (t->n > 1) qsort(t->v, t->n, sizeof *t->v, cmp_span);
    if (!(t->name = calloc(t->n + 1, sizeof *t->name))) t->n = 0;
}

/* The span of the last function starting at or before addr, or (size_t)-1. */
static size_t span_at(const func_table *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static func_table *func_table_of(hp_symbolizer *s, Dwfl_Module *mod)
{
    for (size_t i = 0; i < s->nftabs; i++)
        if (s->ftabs[i].mod == mod) return &s->ftabs[i];
    func_table *v = realloc(s->ftabs, (s->nftabs + 1) * sizeof *v);
    if (!v) return NULL;
    s->ftabs = v;
    func_table *t = &s->ftabs[s->nftabs++];
    *t = (func_table){mod, NULL, NULL, 0};
    fill_func_table(t);
    return t;
}

uint64_t hp_sym_function_start(hp_symbolizer *s, uint64_t addr)
{
    const hp_pair_item *it = hp_pairmap_find(&s->cache, addr, 0);
    if (it && it->v2) return s->syms[it->v1].function ? s->syms[it->v1].func_start : addr;
    Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, addr) : NULL;
    func_table *t = mod ? func_table_of(s, mod) : NULL;
    size_t k = t ? span_at(t, addr) : (size_t)-1;
    if (k == (size_t)-1) return addr;
    const func_span *f = &t->v[k];
    return addr < f->end || f->end == f->start ? f->start : addr;
}

/* dwfl_module_addrinfo (it scans the symbol table on every call), asked once per function: its
 * answer is kept for the span when it names exactly that span (same start and size), and then
 * serves every address inside it. */
static const char *function_at(hp_symbolizer *s, Dwfl_Module *mod, uint64_t addr, uint64_t *start)
{
    func_table *t = func_table_of(s, mod);
    size_t k = t ? span_at(t, addr) : (size_t)-1;
    int in_span = k != (size_t)-1 && addr < t->v[k].end;
    if (in_span && t->name[k]) return *start = t->v[k].start, t->name[k];
    GElf_Off off = 0;
    GElf_Sym es;
    const char *name = dwfl_module_addrinfo(mod, addr, &off, &es, NULL, NULL, NULL);
    if (!name || !name[0]) return NULL;
    *start = addr - off;
    if (in_span && *start == t->v[k].start && es.st_size == t->v[k].end - t->v[k].start) t->name[k] = name;
    return name;
}

static void resolve(hp_symbolizer *s, hp_symbol *sym)
{
    Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, sym->addr) : NULL;
    if (!mod) return;
    uint64_t start = 0;
    const char *name = function_at(s, mod, sym->addr, &start);
    if (name) {
        sym->function = hp_sym_function_name(s, name);
        sym->symbol = name; /* libdwfl's string table: valid until dwfl_end (hp_sym_close) */
        sym->func_start = start;
    }
    int lineno = 0;
    const char *src = source_line(s, mod, sym->addr, &lineno);
    if (src) {
        sym->file = strdup(src);
        sym->line = lineno;
    }
    resolve_scopes(s, mod, sym);
    if (sym->line <= 0 && sym->function && sym->func_start != sym->addr) entry_line(s, mod, sym);
}

const hp_symbol *hp_sym_lookup(hp_symbolizer *s, uint64_t addr)
{
    hp_pair_item *it = hp_pairmap_get(&s->cache, addr, 0);
    if (!it) return NULL;
    if (it->v2) return &s->syms[it->v1];
    if (s->nsyms == s->syms_cap) {
        size_t cap = s->syms_cap ? s->syms_cap * 2 : 64;
        hp_symbol *n = realloc(s->syms, cap * sizeof *n);
        if (!n) return NULL;
        s->syms = n;
        s->syms_cap = cap;
    }
    hp_symbol *sym = &s->syms[s->nsyms];
    *sym = (hp_symbol){.addr = addr, .module = recorded_module(s, addr)};
    resolve(s, sym);
    it->v1 = s->nsyms++;
    it->v2 = 1;
    return sym;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void hp_sym_name(const hp_symbol *sym, char *buf, size_t n)
{
    if (sym->function)
        snprintf(buf, n, "%s", sym->function);
    else if (sym->module && sym->module->path[0])
        snprintf(buf, n, "%s+0x%" PRIx64, base_name(sym->module->path), sym->addr - sym->module->base);
    else
        snprintf(buf, n, "0x%" PRIx64, sym->addr);
}

void hp_sym_name_inline(const hp_symbol *sym, char *buf, size_t n)
{
    hp_sym_name(sym, buf, n);
    size_t len = strlen(buf);
    if (!sym->inlined || len >= n) return;
    if (sym->inlined_at > 0) snprintf(buf + len, n - len, " \u2192 [inlined %s] line %d", sym->inlined, sym->inlined_at);
    else snprintf(buf + len, n - len, " \u2192 [inlined %s]", sym->inlined);
}

/* The last two components of a path: "src/main.c" rather than the whole build directory. */
static const char *short_path(const char *path)
{
    const char *last = strrchr(path, '/');
    if (!last || last == path) return path;
    const char *p = last - 1;
    while (p > path && *p != '/') p--;
    return *p == '/' ? p + 1 : p;
}

void hp_sym_where(const hp_symbol *sym, char *buf, size_t n)
{
    if (sym->file && sym->line > 0)
        snprintf(buf, n, "%s:%d", short_path(sym->file), sym->line);
    else if (sym->file)
        snprintf(buf, n, "%s", short_path(sym->file));
    else if (n)
        buf[0] = 0;
}

size_t hp_sym_nwarnings(const hp_symbolizer *s) { return s->nwarnings; }
const char *hp_sym_warning(const hp_symbolizer *s, size_t i) { return i < s->nwarnings ? s->warnings[i] : NULL; }
int hp_sym_left_mangled(const hp_symbolizer *s) { return s->left_mangled; }

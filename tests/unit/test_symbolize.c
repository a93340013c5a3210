/* test_symbolize.c — the symbolizer on this test binary itself (/proc/self/exe at its real load
 * bias, with its real build-id): a known function resolves to its name, this file and a line
 * inside the function; an address outside every module prints as a number; a module whose file
 * is missing or whose build-id differs gives one warning and module+offset names; C++ names are
 * demangled; a line-table line 0 falls back to the function's declaration line (hp_sym_pick_line;
 * test_readable.sh checks it on a real line-0 pc). */
#define _GNU_SOURCE
#include "analysis/symbolize.h"
#include "test.h"
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { KNOWN_FIRST_LINE = __LINE__ };
__attribute__((noinline, used)) static int known_function(volatile int *x)
{
    int sum = 0;
    for (int i = 0; i < *x; i++) sum += i * *x;
    return sum;
}
enum { KNOWN_LAST_LINE = __LINE__ };

typedef struct self_module { uint64_t base, lo, hi; uint8_t id[64]; uint32_t idlen; } self_module;

static void read_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, self_module *m)
{
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + 12 <= end) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        const uint8_t *desc = p + 12 + ((nh->n_namesz + 3) & ~3u);
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_descsz <= sizeof m->id) {
            memcpy(m->id, desc, nh->n_descsz);
            m->idlen = nh->n_descsz;
        }
        p = desc + ((nh->n_descsz + 3) & ~3u);
    }
}

/* The first object dl_iterate_phdr reports is the main program. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    self_module *m = arg;
    m->base = info->dlpi_addr;
    m->lo = UINT64_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE) read_build_id(info, ph, m);
        if (ph->p_type != PT_LOAD) continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (lo < m->lo) m->lo = lo;
        if (hi > m->hi) m->hi = hi;
    }
    return 1;
}

static char self_path[4096];

static hp_module self_as_module(self_module *sm)
{
    memset(sm, 0, sizeof *sm);
    dl_iterate_phdr(first_object, sm);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    self_path[n > 0 ? n : 0] = 0;
    return (hp_module){sm->base, sm->lo, sm->hi, self_path, sm->id, sm->idlen};
}

TEST(resolves_a_known_function_of_this_test)
{
    self_module sm;
    hp_module m = self_as_module(&sm);
    REQUIRE(sm.idlen > 0);
    hp_symbolizer *s = hp_sym_open(&m, 1);
    REQUIRE(s != NULL);
    CHECK_EQ_U64(hp_sym_nwarnings(s), 0);
    uint64_t addr = (uint64_t)(uintptr_t)&known_function;
    const hp_symbol *sym = hp_sym_lookup(s, addr);
    REQUIRE(sym != NULL && sym->function != NULL);
    CHECK(strcmp(sym->function, "known_function") == 0);
    CHECK_EQ_U64(sym->func_start, addr);
    CHECK(sym->module != NULL && strcmp(sym->module->path, self_path) == 0);
    REQUIRE(sym->file != NULL);
    CHECK(strstr(sym->file, "test_symbolize.c") != NULL);
    CHECK(sym->line >= KNOWN_FIRST_LINE && sym->line <= KNOWN_LAST_LINE);
    const hp_symbol *inside = hp_sym_lookup(s, addr + 4);
    REQUIRE(inside != NULL && inside->function != NULL);
    CHECK(strcmp(inside->function, "known_function") == 0);
    CHECK_EQ_U64(inside->func_start, addr);
    CHECK_EQ_U64(hp_sym_function_start(s, addr + 8), addr); /* symbol table only, not cached */
    CHECK_EQ_U64(hp_sym_function_start(s, addr + 4), addr); /* cached */
    CHECK_EQ_U64(hp_sym_function_start(s, 16), 16);          /* no module: itself */
    CHECK(hp_sym_lookup(s, addr) == sym); /* cached */
    char where[256];
    hp_sym_where(sym, where, sizeof where);
    CHECK(strstr(where, "test_symbolize.c:") != NULL);
    hp_sym_close(s);
}

TEST(line_zero_falls_back_to_the_declaration_line)
{
    int from_decl = -1;
    CHECK_EQ_U64(hp_sym_pick_line(0, 12, &from_decl), 12);
    CHECK_EQ_U64(from_decl, 1);
    CHECK_EQ_U64(hp_sym_pick_line(7, 12, &from_decl), 7); /* a real line wins */
    CHECK_EQ_U64(from_decl, 0);
    CHECK_EQ_U64(hp_sym_pick_line(0, 0, &from_decl), 0); /* nothing to fall back to */
    CHECK_EQ_U64(from_decl, 0);
}

TEST(address_outside_every_module_is_a_number)
{
    self_module sm;
    hp_module m = self_as_module(&sm);
    hp_symbolizer *s = hp_sym_open(&m, 1);
    REQUIRE(s != NULL);
    const hp_symbol *sym = hp_sym_lookup(s, 0x10);
    REQUIRE(sym != NULL);
    CHECK(sym->function == NULL && sym->module == NULL && sym->file == NULL);
    char name[64];
    hp_sym_name(sym, name, sizeof name);
    CHECK(strcmp(name, "0x10") == 0);
    hp_sym_close(s);
}

TEST(missing_module_and_wrong_build_id_warn_once)
{
    self_module sm;
    hp_module mods[2];
    mods[0] = self_as_module(&sm);
    uint8_t wrong[20] = {1, 2, 3};
    mods[0].buildid = wrong;
    mods[0].buildid_len = 20;
    mods[1] = (hp_module){0x10000, 0x10000, 0x20000, "/nonexistent/libgone.so", NULL, 0};
    hp_symbolizer *s = hp_sym_open(mods, 2);
    REQUIRE(s != NULL);
    CHECK_EQ_U64(hp_sym_nwarnings(s), 2);
    CHECK(strstr(hp_sym_warning(s, 0), "build-id differs") != NULL);
    CHECK(strstr(hp_sym_warning(s, 1), "/nonexistent/libgone.so: cannot load symbols") != NULL);
    const hp_symbol *sym = hp_sym_lookup(s, 0x10234);
    REQUIRE(sym != NULL);
    char name[64];
    hp_sym_name(sym, name, sizeof name);
    CHECK(strcmp(name, "libgone.so+0x234") == 0);
    hp_sym_lookup(s, 0x10238);
    CHECK_EQ_U64(hp_sym_nwarnings(s), 2);
    hp_sym_close(s);
}

/* libstdc++.so.6 is installed wherever hotprof builds (clang and gcc need it), so the
 * demangler is found through dlopen although this test links no C++ runtime. */
TEST(cxx_names_are_demangled_and_c_names_kept)
{
    hp_symbolizer *s = hp_sym_open(NULL, 0);
    REQUIRE(s != NULL);
    char *d = hp_sym_demangle(s, "_ZNK2ns3Box5twiceEi");
    char *c = hp_sym_demangle(s, "known_function");
    char *bad = hp_sym_demangle(s, "_Z_not_a_mangled_name");
    REQUIRE(d && c && bad);
    CHECK(strcmp(d, "ns::Box::twice(int) const") == 0);
    CHECK(strcmp(c, "known_function") == 0);
    CHECK(strcmp(bad, "_Z_not_a_mangled_name") == 0);
    CHECK(!hp_sym_left_mangled(s));
    free(d), free(c), free(bad);
    hp_sym_close(s);
}

/* Two-version code: the instrumented clones "F.hotprof", "F.hotprof.loop[.N]" (plugin/
 * hotprof_dual.cpp) are named F, mangled or not; a name where the suffix runs on into other
 * letters ("a.hotprofx"), or that is only the suffix, is kept. */
TEST(dual_clones_are_named_after_their_function)
{
    hp_symbolizer *s = hp_sym_open(NULL, 0);
    REQUIRE(s != NULL);
    char *c = hp_sym_function_name(s, "evaluate.hotprof");
    char *d = hp_sym_function_name(s, "_ZNK2ns3Box5twiceEi.hotprof");
    char *loop = hp_sym_function_name(s, "evaluate.hotprof.loop.6");
    char *mid = hp_sym_function_name(s, "a.hotprofx");
    char *only = hp_sym_function_name(s, ".hotprof");
    REQUIRE(c && d && loop && mid && only);
    CHECK(strcmp(c, "evaluate") == 0);
    CHECK(strcmp(d, "ns::Box::twice(int) const") == 0);
    CHECK(strcmp(loop, "evaluate") == 0);
    CHECK(strcmp(mid, "a.hotprofx") == 0);
    CHECK(strcmp(only, ".hotprof") == 0);
    free(c), free(d), free(loop), free(mid), free(only);
    hp_sym_close(s);
}

int main(void)
{
    volatile int x = 3;
    (void)known_function(&x); /* keep it called */
    RUN(resolves_a_known_function_of_this_test);
    RUN(address_outside_every_module_is_a_number);
    RUN(line_zero_falls_back_to_the_declaration_line);
    RUN(missing_module_and_wrong_build_id_warn_once);
    RUN(cxx_names_are_demangled_and_c_names_kept);
    RUN(dual_clones_are_named_after_their_function);
    return test_main_end();
}

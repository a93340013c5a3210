/* test_scopes.c — the scope index (analysis/scopes.h) against libdw's own answer, exhaustively on
 * this test binary (built -O2 -g with a chain of always-inline functions below, and the analysis
 * library's objects, which inline much): for every unit and every 3rd address of its ranges, the
 * unit found equals the one a scan of all units finds (dwarf_haspc), and the inline chain, the call
 * line of its outermost function and the innermost scope's declaration line and file equal what
 * dwarf_getscopes + dwarf_getscopes_die give (the per-address method the index replaced). */
#define _GNU_SOURCE
#include "analysis/compare.h"
#include "analysis/merge/merge.h"
#include "analysis/report.h"
#include "analysis/scopes.h"
#include "test.h"
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline __attribute__((always_inline)) int leaf_step(int x) { return x * 3 + 1; }
static inline __attribute__((always_inline)) int mid_step(int x) { return leaf_step(x) ^ (x >> 1); }
/* Linked in so that the binary holds many units with much inlined code (the report, compare and
 * merge code of the analysis library and what they pull in). */
static void *volatile linked_in[] = {(void *)hp_report_write, (void *)hp_compare, (void *)hp_merge_profiles};

__attribute__((noinline, used)) static int outer_fn(volatile int *x) { return mid_step(*x) + leaf_step(*x + 1); }

typedef struct oracle_hit {
    int found, call_line, decl_line;
    const char *decl_file;
    char chain[1024];
} oracle_hit;

static int udata(Dwarf_Die *die, int name)
{
    Dwarf_Attribute a;
    Dwarf_Word w = 0;
    if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &w) != 0) return 0;
    return w > 0 && w < (1u << 30) ? (int)w : 0;
}

static const char *name_of(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    return n ? n : "?";
}

/* libdw per address: the innermost subprogram or inlined subroutine, its concrete chain. */
static void oracle(Dwarf_Die *cudie, Dwarf_Addr a, oracle_hit *h)
{
    Dwarf_Die *scopes = NULL, *chain = NULL;
    memset(h, 0, sizeof *h);
    int n = dwarf_getscopes(cudie, a, &scopes), func = -1;
    for (int i = 0; i < n && func < 0; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) func = i;
    }
    if (func >= 0) {
        h->found = 1;
        if (dwarf_decl_line(&scopes[func], &h->decl_line) != 0) h->decl_line = 0;
        h->decl_file = dwarf_decl_file(&scopes[func]);
        if (dwarf_tag(&scopes[func]) == DW_TAG_inlined_subroutine) {
            int m = dwarf_getscopes_die(&scopes[func], &chain), outer = -1;
            for (int i = 0; i < m; i++)
                if (dwarf_tag(&chain[i]) == DW_TAG_inlined_subroutine) outer = i;
            size_t len = 0;
            for (int i = outer; i >= 0; i--)
                if (dwarf_tag(&chain[i]) == DW_TAG_inlined_subroutine)
                    len += (size_t)snprintf(h->chain + len, sizeof h->chain - len, "%s%s", len ? ";" : "", name_of(&chain[i]));
            if (outer >= 0) h->call_line = udata(&chain[outer], DW_AT_call_line);
        }
    }
    free(scopes);
    free(chain);
}

static void joined(const hp_scope_hit *h, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < h->ninlined; i++) len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ";" : "", h->inlined[i]);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

typedef struct tally { size_t addrs, units, inlined, mismatches; } tally;

static void check_address(hp_scope_index *x, Dwfl_Module *mod, Dwarf_Die *cudie, Dwarf_Addr a, Dwarf_Addr mbias, tally *t)
{
    oracle_hit want;
    hp_scope_hit got;
    char chain[1024];
    Dwarf_Die unit;
    Dwarf_Addr bias = 1;
    oracle(cudie, a, &want);
    int found = hp_scope_find(x, mod, a + mbias, &got);
    joined(&got, chain, sizeof chain);
    int same = found == want.found &&
               (!found || (strcmp(chain, want.chain) == 0 && got.call_line == want.call_line &&
                           got.decl_line == want.decl_line &&
                           ((!got.decl_file && !want.decl_file) ||
                            (got.decl_file && want.decl_file && strcmp(got.decl_file, want.decl_file) == 0))));
    int unit_same = hp_scope_unit(x, mod, a + mbias, &unit, &bias) && bias == mbias && dwarf_dieoffset(&unit) == dwarf_dieoffset(cudie);
    if ((!same || !unit_same) && t->mismatches++ < 5)
        fprintf(stderr, "  0x%lx: index found=%d chain '%s' call %d decl %d, libdw found=%d chain '%s' call %d decl %d, unit %s\n",
                (unsigned long)a, found, chain, got.call_line, got.decl_line, want.found, want.chain, want.call_line,
                want.decl_line, unit_same ? "same" : "DIFFERS");
    t->addrs++;
    t->inlined += want.chain[0] != 0;
}

TEST(index_answers_as_libdw_on_every_third_address_of_this_binary)
{
    volatile int v = 5;
    CHECK(outer_fn(&v) != 0 && linked_in[0] != NULL);
    Dwfl *dwfl = dwfl_begin(&callbacks);
    REQUIRE(dwfl != NULL);
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_offline(dwfl, "self", "/proc/self/exe", -1);
    dwfl_report_end(dwfl, NULL, NULL);
    REQUIRE(mod != NULL);
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    REQUIRE(dw != NULL);
    hp_scope_index *x = hp_scope_index_new();
    REQUIRE(x != NULL);
    tally t = {0};
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    uint8_t type;
    while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
        if (type != DW_UT_compile) continue;
        t.units++;
        if (getenv("HP_TEST_VERBOSE")) fprintf(stderr, "  unit %s\n", dwarf_diename(&cudie));
        Dwarf_Addr base, start, end;
        ptrdiff_t off = 0;
        while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0)
            for (Dwarf_Addr a = start; a < end; a += 3) check_address(x, mod, &cudie, a, bias, &t);
    }
    fprintf(stderr, "  %zu units, %zu addresses (%zu in inlined code), %zu mismatches\n", t.units, t.addrs, t.inlined,
            t.mismatches);
    CHECK(t.units > 10 && t.addrs > 10000);
    CHECK(t.inlined > 0); /* the always-inline chain above at least */
    CHECK(t.mismatches == 0);
    hp_scope_index_free(x);
    dwfl_end(dwfl);
}

TEST(outside_every_unit_finds_nothing)
{
    Dwfl *dwfl = dwfl_begin(&callbacks);
    REQUIRE(dwfl != NULL);
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_offline(dwfl, "self", "/proc/self/exe", -1);
    dwfl_report_end(dwfl, NULL, NULL);
    REQUIRE(mod != NULL);
    hp_scope_index *x = hp_scope_index_new();
    REQUIRE(x != NULL);
    hp_scope_hit h;
    Dwarf_Die unit;
    Dwarf_Addr bias;
    CHECK(hp_scope_find(x, mod, 0, &h) == 0 && h.ninlined == 0);
    CHECK(hp_scope_unit(x, mod, ~(uint64_t)0 - 16, &unit, &bias) == 0);
    CHECK(hp_scope_find(NULL, mod, 0, &h) == 0);
    hp_scope_index_free(x);
    hp_scope_index_free(NULL);
    dwfl_end(dwfl);
}

int main(void)
{
    RUN(index_answers_as_libdw_on_every_third_address_of_this_binary);
    RUN(outside_every_unit_finds_nothing);
    return test_main_end();
}

/* cc_hooksets.c — the table of hook sets (see cc_hooksets.h). Function hooks are listed as a
 * placeholder "@calls" that cmd_cc.c replaces by the chosen call-hook flavour:
 * -finstrument-functions-after-inlining (default: the calls the optimized program really makes,
 * same inlining as a native build) or -finstrument-functions (source-level calls, inlined ones too).
 * "@dual:LEVEL" stands for the two-version pass plugin's flags at LEVEL (cmd_cc.c: dual_flags). */
#include "cli/cc_hooksets.h"
#include <string.h>

#define COV_BLOCKS "-fsanitize-coverage=trace-pc-guard,pc-table,no-prune"

const hp_hookset hp_hooksets[] = {
    {"functions", "function entry/exit: hot methods, call pairs",
     {"@calls", NULL}, {"-finstrument-functions", NULL}, NULL, {NULL}},
    {"blocks", "functions + basic blocks: back-edges, block and edge counts",
     {"@calls", COV_BLOCKS, NULL}, {NULL}, "-fsanitize-coverage=trace-pc-guard,pc-table", {NULL}},
    {"memory", "blocks + every load and store",
     {"@calls", COV_BLOCKS ",trace-loads,trace-stores", NULL}, {NULL},
     "-fsanitize-coverage=trace-pc-guard,pc-table,trace-loads,trace-stores", {NULL}},
    {"compares", "blocks + compared values (cmp, switch)",
     {"@calls", COV_BLOCKS ",trace-cmp", NULL}, {NULL}, "-fsanitize-coverage=trace-pc-guard,pc-table", {NULL}},
    {"all", "blocks + memory + compares",
     {"@calls", COV_BLOCKS ",trace-loads,trace-stores,trace-cmp", NULL}, {NULL},
     "-fsanitize-coverage=trace-pc-guard,pc-table,trace-loads,trace-stores", {NULL}},
    /* XRay nop sleds at every function entry/exit, patched in during bursts, or once for an
     * exhaustive run (runtime/ctl/xray.c); linking with -fxray-instrument adds compiler-rt's
     * XRay runtime. Retired (issue 14): cmd_cc.c says so on every build and points to
     * dual-functions; kept for comparisons (bench/xray, bench/fastpath). */
    {"xray", "retired (use dual-functions): XRay sleds patched per burst, hot methods only",
     {"-fxray-instrument", "-fxray-instruction-threshold=1", NULL}, {NULL}, "-fxray-instrument (XRay)",
     {"-fxray-instrument", NULL}},
    /* Two-version code (plugin/hotprof_dual.cpp, docs/dual.md): "@dual:LEVEL" becomes the plugin's
     * flags (cmd_cc.c); "@calls" marks the functions (the plugin takes the attribute off and
     * emits the hooks itself, in the instrumented copy only). */
    {"dual-functions", "two-version code (LLVM plugin): entry/exit, loop back-edges",
     {"@calls", "@dual:functions", NULL}, {NULL}, "the LLVM pass plugin (clang 14)", {NULL}},
    {"dual-blocks", "two-version code: + basic blocks, edges (true loop back-edges)",
     {"@calls", "@dual:blocks", NULL}, {NULL}, "the LLVM pass plugin (clang 14)", {NULL}},
    {"dual-memory", "two-version code: + every load and store",
     {"@calls", "@dual:memory", NULL}, {NULL}, "the LLVM pass plugin (clang 14)", {NULL}},
    {"dual-all", "two-version code: + integer compares (values; what --mode shadow wants)",
     {"@calls", "@dual:all", NULL}, {NULL}, "the LLVM pass plugin (clang 14)", {NULL}},
    {NULL, NULL, {NULL}, {NULL}, NULL, {NULL}},
};

const char *const hp_hookset_default = "blocks";

const hp_hookset *hp_hookset_find(const char *name)
{
    for (const hp_hookset *h = hp_hooksets; h->name; h++)
        if (strcmp(h->name, name) == 0) return h;
    return NULL;
}

/* annotate.h — `hotprof annotate` (perf annotate's layout): one function of a profile with the
 * basic-block counts of its source lines, and optionally of its instructions.
 *
 * samples.c   the same for a timer profile (--mode timer): functions by self samples, a
 *             function's sampled pcs as its "blocks" (counted at exactly their pc), and each
 *             instruction's top values from the value hot-lists;
 * collect.c   the profiled functions (every function with an executed block, by name), finding
 *             one by name, and the per-line and per-block counts of one function;
 * source.c    reading the source file named in DWARF, line by line;
 * asm.c       the function's instructions from its module's ELF file (Capstone), each with the
 *             count of the block it belongs to (a block runs from its pc to the next block's pc);
 * text.c json.c  the two renderings.
 *
 * Counts are the recorded ones (a bursty profile's sampled counts; the header gives the factor
 * that estimates them). Invariants: a function's lines hold every block of the function exactly
 * once, so the line counts sum to the function's total; lines are sorted by (file, line), line 0
 * meaning "no line known"; files[0] is the function's own file (that of its entry).
 */
#ifndef HOTPROF_ANALYSIS_ANNOTATE_ANNOTATE_H
#define HOTPROF_ANALYSIS_ANNOTATE_ANNOTATE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/profile.h"
#include "analysis/symbolize.h"

/* ---- the profiled functions (collect.c) ---- */
typedef struct hp_annot_fn { const char *name; uint64_t start, total; } hp_annot_fn;
typedef struct hp_annot_index { hp_annot_fn *fns; size_t nfns; size_t unnamed; } hp_annot_index;

/* Every function holding an executed mapped block, hottest first (ties by address); `unnamed`
 * counts executed blocks without a function name (a stripped binary). 0, or -1 out of memory. */
int hp_annot_index_build(const hp_profile *p, hp_symbolizer *s, hp_annot_index *ix);
void hp_annot_index_free(hp_annot_index *ix);
/* The function called `symbol`: its exact (demangled) name, or its name without the parameter
 * list ("ns::f" for "ns::f(int)"), or the demangled form of a mangled `symbol`. Returns its index,
 * or -1 with one message in msg (unknown or ambiguous, naming up to 8 close matches). */
long hp_annot_find(const hp_annot_index *ix, hp_symbolizer *s, const char *symbol, char *msg, size_t len);

/* ---- one function ---- */
typedef struct hp_annot_block { uint64_t pc, count; int file, line; } hp_annot_block;
typedef struct hp_annot_line { int file, line; uint64_t count; size_t nblocks; } hp_annot_line;

typedef struct hp_annot_func {
    const char *name;
    uint64_t start, total;
    const hp_module *module;   /* may be NULL */
    const char **files; size_t nfiles; /* borrowed from the symbolizer */
    hp_annot_block *blocks; size_t nblocks; /* sorted by pc; unexecuted blocks have count 0 */
    hp_annot_line *lines; size_t nlines;
    int samples;               /* timer profile: blocks are sampled pcs, counts are samples at that pc */
} hp_annot_func;

/* Sums block counts by (file, line) into *out (sorted, one entry per distinct pair; allocated
 * even when n = 0). 0, or -1 out of memory. Pure: the unit test checks it against a model. */
int hp_annot_sum_lines(const hp_annot_block *b, size_t n, hp_annot_line **out, size_t *nout);
/* The blocks of the function fn (index entry) with their lines. 0, or -1 out of memory. */
int hp_annot_collect(const hp_profile *p, hp_symbolizer *s, const hp_annot_fn *fn, hp_annot_func *f);
void hp_annot_func_free(hp_annot_func *f);

/* ---- source lines (source.c) ---- */
typedef struct hp_annot_source { char *text; char **lines; size_t nlines; } hp_annot_source;
/* 0, or -1 (errno set) if path cannot be read. Lines lose their '\n' (and a '\r' before it). */
int hp_annot_source_read(const char *path, hp_annot_source *src);
const char *hp_annot_source_line(const hp_annot_source *src, int line); /* NULL: out of range */
void hp_annot_source_free(hp_annot_source *src);

/* ---- instructions (asm.c) ---- */
typedef struct hp_annot_insn {
    uint64_t addr;       /* run-time address */
    char text[160];      /* "mnemonic operands" */
    int in_block;        /* 0 before the function's first recorded block */
    int block_start;     /* the instruction is at a recorded block pc */
    uint64_t count;      /* executions of its block (0 when !in_block) */
    const char *file;    /* source file (the symbolizer's string), NULL unknown */
    int line;            /* 0 unknown */
    char values[160];    /* timer profile with values: its hot-lists' top values ("reg rax=0x7 (7) 90%"), or "" */
} hp_annot_insn;
/* Disassembles f from its module's file (build-id checked), assigns block counts and lines.
 * 0, or -1 with one message in err (no module file, rebuilt file, no symbol size, no memory). */
int hp_annot_disasm(const hp_annot_func *f, hp_symbolizer *s, hp_annot_insn **out, size_t *n, char *err,
                    size_t len);
/* insns[i].in_block/block_start/count from the function's blocks (sorted by pc). Pure. With
 * f->samples each instruction gets the samples at exactly its address (in_block = 1,
 * block_start = it was sampled). */
void hp_annot_assign_blocks(const hp_annot_func *f, hp_annot_insn *insns, size_t n);

/* ---- timer profiles (samples.c) ---- */
/* Every function with samples at an interrupted pc, most samples first (ties by address). */
int hp_annot_index_samples(const hp_profile *p, hp_symbolizer *s, hp_annot_index *ix);
/* Shared by both indexes (collect.c): count `count` for sym's function in ix (byaddr maps a
 * function start to its entry); 0, or -1 out of memory. And the order of ix->fns: hottest first,
 * then by address. */
struct hp_pairmap;
int hp_annot_index_add(hp_annot_index *ix, struct hp_pairmap *byaddr, const hp_symbol *sym, uint64_t count);
int hp_annot_fn_cmp(const void *a, const void *b);
/* The index of file in f->files, added if new; -1 out of memory (collect.c). */
int hp_annot_file_index(hp_annot_func *f, const char *file);
/* fn's sampled pcs as its blocks (f->samples = 1), their lines; total = its self samples. */
int hp_annot_collect_samples(const hp_profile *p, hp_symbolizer *s, const hp_annot_fn *fn, hp_annot_func *f);
/* insns[i].values from the profile's value hot-lists at insns[i].addr ("" when none). */
void hp_annot_add_values(const hp_profile *p, hp_annot_insn *insns, size_t n);

/* ---- rendering (text.c, json.c) ---- */
typedef struct hp_annot_opts {
    int asm_view;     /* --asm */
    int colour;       /* ANSI colours for hot lines */
    unsigned context; /* source lines shown around the function's lines */
} hp_annot_opts;

/* Everything a rendering needs; src NULL when the source file cannot be read. */
typedef struct hp_annot_view {
    const hp_profile *p;
    const hp_annot_func *f;
    const hp_annot_source *src;
    const hp_annot_insn *insns; size_t ninsns;
} hp_annot_view;

/* The header line about sampling: "" for exact counts, else sampled + factor (into buf). */
const char *hp_annot_sampling_note(const hp_profile *p, char *buf, size_t len);
double hp_annot_factor(const hp_profile *p); /* 1/frequency of the blocks' sampling, 1 if exact */
int hp_annot_write_text(FILE *out, const hp_annot_view *v, const hp_annot_opts *o);
int hp_annot_write_json(FILE *out, const hp_annot_view *v, const hp_annot_opts *o);

#endif

/* samples.c — `hotprof annotate` on a timer profile (--mode timer, annotate.h): the functions by
 * their self samples (the interrupted pc of each stack), one function's "blocks" made of its
 * sampled pcs (each counted at exactly that pc, so the line counts are the samples of the line),
 * and each instruction's top values from the value hot-lists (analysis/ptype/value.h).
 * Invariant: a timer function's blocks are its distinct sampled pcs, sorted, with counts summing
 * to its total (its self samples); f->samples = 1 marks them for hp_annot_assign_blocks.
 */
#define _GNU_SOURCE
#include "analysis/annotate/annotate.h"
#include "analysis/pairmap.h"
#include "analysis/ptype/value.h"
#include <stdlib.h>
#include <string.h>

int hp_annot_index_samples(const hp_profile *p, hp_symbolizer *s, hp_annot_index *ix)
{
    hp_pairmap byaddr = {0};
    int rc = 0;
    *ix = (hp_annot_index){0};
    for (size_t i = 0; i < p->nstacks && !rc; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, p->stacks[i].pcs[0]);
        if (!sym) rc = -1;
        else if (!sym->function) ix->unnamed++;
        else rc = hp_annot_index_add(ix, &byaddr, sym, p->stacks[i].count);
    }
    hp_pairmap_free(&byaddr);
    if (ix->nfns) qsort(ix->fns, ix->nfns, sizeof *ix->fns, hp_annot_fn_cmp);
    return rc;
}

static int cmp_block(const void *a, const void *b)
{
    const hp_annot_block *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Samples at each distinct pc of the function (pairmap pc -> count). */
static int sampled_pcs(const hp_profile *p, hp_symbolizer *s, uint64_t start, hp_pairmap *pcs)
{
    for (size_t i = 0; i < p->nstacks; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, p->stacks[i].pcs[0]);
        if (!sym) return -1;
        if (!sym->function || sym->func_start != start) continue;
        hp_pair_item *it = hp_pairmap_get(pcs, p->stacks[i].pcs[0], 0);
        if (!it) return -1;
        it->v1 = hp_sat_add(it->v1, p->stacks[i].count);
    }
    return 0;
}

int hp_annot_collect_samples(const hp_profile *p, hp_symbolizer *s, const hp_annot_fn *fn, hp_annot_func *f)
{
    hp_pairmap pcs = {0};
    *f = (hp_annot_func){.name = fn->name, .start = fn->start, .module = hp_profile_module_at(p, fn->start), .samples = 1};
    int rc = sampled_pcs(p, s, fn->start, &pcs);
    if (!rc && !(f->blocks = calloc(pcs.count + 1, sizeof *f->blocks))) rc = -1;
    for (size_t i = 0; !rc && i < pcs.count; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, pcs.items[i].k1);
        int file = sym && sym->file ? hp_annot_file_index(f, sym->file) : -1;
        if (!sym || (sym->file && file < 0)) rc = -1;
        else f->blocks[f->nblocks++] = (hp_annot_block){pcs.items[i].k1, pcs.items[i].v1, file, sym->file ? sym->line : 0};
        f->total = hp_sat_add(f->total, pcs.items[i].v1);
    }
    hp_pairmap_free(&pcs);
    if (rc) return -1;
    qsort(f->blocks, f->nblocks, sizeof *f->blocks, cmp_block);
    /* the function's own file first, as hp_annot_collect has it: that of its entry */
    const hp_symbol *entry = hp_sym_lookup(s, fn->start);
    if (entry && entry->file && f->nfiles && strcmp(f->files[0], entry->file)) {
        int k = hp_annot_file_index(f, entry->file);
        if (k < 0) return -1;
        const char *t = f->files[0];
        f->files[0] = f->files[k], f->files[k] = t;
        for (size_t i = 0; i < f->nblocks; i++)
            f->blocks[i].file = f->blocks[i].file == 0 ? k : f->blocks[i].file == k ? 0 : f->blocks[i].file;
    } else if (entry && entry->file && !f->nfiles && hp_annot_file_index(f, entry->file) < 0) {
        return -1;
    }
    return hp_annot_sum_lines(f->blocks, f->nblocks, &f->lines, &f->nlines);
}

void hp_annot_add_values(const hp_profile *p, hp_annot_insn *insns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t first, k = hp_value_at(p, insns[i].addr, &first), used = 0;
        insns[i].values[0] = 0;
        for (size_t j = 0; j < k && used < sizeof insns[i].values; j++) {
            const hp_value_stat *v = &p->values[first + j];
            char op[16], val[64];
            if (v->kind == HP_VK_RETADDR || !v->nvalues) continue;
            hp_value_operand_name(v->kind, v->operand, op, sizeof op);
            hp_value_format(v->kind, v->values[0].value, val, sizeof val);
            int w = snprintf(insns[i].values + used, sizeof insns[i].values - used, "%s%s%s%s=%s %.0f%%",
                             used ? "; " : "", hp_value_kind_name(v->kind), op[0] ? " " : "", op, val,
                             100 * hp_value_share(v, 0));
            used += w > 0 ? (size_t)w : 0;
        }
    }
}

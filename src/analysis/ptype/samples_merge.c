/* samples_merge.c — `hotprof merge` of the samples type (aptype.h merge_add / merge_write): every
 * input's stacks, each pc rebased into the output's modules (pcs[0] with hp_merge_addr, return
 * addresses and tos with hp_merge_return_addr), appended as records to one STACKS section of the
 * merged thread. Stacks are not summed (the reader sums over records anyway).
 * acc->mem: the records so far (merge/recbuf.c).
 */
#define _GNU_SOURCE
#include "analysis/ptype/samples.h"
#include "analysis/merge/merge.h"
#include "analysis/profbuild.h"
#include <stdlib.h>
#include <string.h>

int hp_samples_merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->nstacks; k++) {
        const hp_stack_stat *st = &p->stacks[k];
        uint8_t *at = hp_merge_recbuf_grow(acc, HP_REC_STACK_FIXED + 8u * st->depth);
        if (!at) return hp_merge_fail(m, "out of memory");
        hp_rec_stack rec = {st->count, st->tos ? hp_merge_return_addr(m, i, st->tos) : 0, st->depth, st->flags};
        hp_fmt_put_stack(at, &rec);
        for (size_t d = 0; d < st->depth; d++)
            hp_merge_put_u64(at + HP_REC_STACK_FIXED + 8 * d, d ? hp_merge_return_addr(m, i, st->pcs[d]) : hp_merge_addr(m, i, st->pcs[d]));
    }
    return 0;
}

int hp_samples_merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_merge_recbuf_write(b, HP_SEC_STACKS, acc);
    return 0;
}

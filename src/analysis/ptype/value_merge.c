/* value_merge.c — `hotprof merge` of the value type (aptype.h merge_add / merge_write): every
 * input's merged hot-lists, each pc (and each retaddr, and each addr value inside a module) rebased into
 * the output's modules, written as records of one VALUES section of the merged thread. A merged
 * hot-list's values carry estimates (count x tau summed), so each is written with tau 1 and count =
 * its estimate rounded (at least 1, capped so that the counts never pass captures): the reader's
 * shares are then those of the input up to rounding.
 * acc->mem: the records so far (merge/recbuf.c).
 */
#define _GNU_SOURCE
#include "analysis/ptype/value.h"
#include "analysis/merge/merge.h"
#include "analysis/profbuild.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rebased_value(hp_merge *m, size_t i, const hp_value_stat *v, uint64_t value)
{
    if (v->kind == HP_VK_RETADDR) return hp_merge_return_addr(m, i, value);
    if (v->kind == HP_VK_ADDR && hp_profile_module_at(m->in[i], value)) return hp_merge_addr(m, i, value);
    return value; /* data on the heap or stack: no module to rebase against */
}

/* The entries' counts: estimates rounded, at least 1, non-increasing, summing to at most captures. */
static size_t counts(const hp_value_stat *v, uint64_t *out)
{
    uint64_t left = v->captures, prev = UINT64_MAX;
    size_t n = 0;
    for (size_t e = 0; e < v->nvalues && e < HP_VALUE_MAX_ENTRIES && left; e++) {
        double est = floor(v->values[e].estimate + 0.5);
        uint64_t c = est < 1 ? 1 : est > (double)left ? left : (uint64_t)est;
        if (c > prev) c = prev;
        out[n++] = prev = c;
        left -= c;
    }
    return n;
}

int hp_value_merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    for (size_t k = 0; k < p->nvalues; k++) {
        const hp_value_stat *v = &p->values[k];
        uint64_t c[HP_VALUE_MAX_ENTRIES];
        size_t n = counts(v, c);
        uint8_t *at = hp_merge_recbuf_grow(acc, HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * n);
        if (!at) return hp_merge_fail(m, "out of memory");
        hp_rec_value rec = {hp_merge_addr(m, i, v->pc), v->captures, 1, v->kind, v->operand, (uint16_t)n};
        hp_fmt_put_value(at, &rec);
        for (size_t e = 0; e < n; e++) {
            hp_merge_put_u64(at + HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * e, rebased_value(m, i, v, v->values[e].value));
            hp_merge_put_u64(at + HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * e + 8, c[e]);
        }
    }
    return 0;
}

int hp_value_merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    hp_merge_recbuf_write(b, HP_SEC_VALUES, acc);
    return 0;
}

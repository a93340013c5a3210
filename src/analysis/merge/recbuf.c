/* recbuf.c — the byte buffer of encoded records that a variable-size type keeps while `hotprof
 * merge` adds its inputs (acc->mem; merge.h): grown by doubling, written as one section at the end.
 * Invariant: acc->mem is NULL or a hp_merge_recbuf whose first len of cap data bytes are records.
 */
#include "analysis/merge/merge.h"
#include "analysis/profbuild.h"
#include <stdlib.h>

typedef struct hp_merge_recbuf { size_t len, cap; uint8_t data[]; } hp_merge_recbuf;

uint8_t *hp_merge_recbuf_grow(hp_apt_acc *acc, size_t n)
{
    hp_merge_recbuf *b = acc->mem;
    if (!b || b->cap - b->len < n) {
        size_t cap = b ? b->cap : 0, len = b ? b->len : 0;
        while (cap - len < n) cap = cap ? 2 * cap : 4096;
        hp_merge_recbuf *g = realloc(b, sizeof *g + cap);
        if (!g) return NULL;
        if (!b) g->len = 0;
        g->cap = cap;
        acc->mem = b = g;
    }
    uint8_t *at = b->data + b->len;
    b->len += n;
    return at;
}

void hp_merge_put_u64(uint8_t *at, uint64_t v)
{
    for (int i = 0; i < 8; i++) at[i] = (uint8_t)(v >> 8 * i);
}

void hp_merge_recbuf_write(hp_pbuild *b, uint32_t section, const hp_apt_acc *acc)
{
    const hp_merge_recbuf *data = acc->mem;
    if (data && data->len) hp_pbuild_section(b, section, data->data, data->len);
}

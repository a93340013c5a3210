/* test_vreport_gen.h — encoders of STACKS and VALUES sections for the value-sampling report tests
 * (unit tests and the e2e generator tests/e2e/vreport_gen.c): records are described as plain
 * arrays and appended as one checksummed section with profbuild.h.
 * Invariant: the bytes written are exactly format.h's layout (fixed part by the codecs, then the
 * u64 LE pcs / (value, count) pairs); no validation here, so tests can also write corrupt records.
 */
#ifndef HOTPROF_TEST_VREPORT_GEN_H
#define HOTPROF_TEST_VREPORT_GEN_H
#include "analysis/profbuild.h"
#include "core/format/format.h"
#include <stdlib.h>
#include <string.h>

typedef struct vg_stack { uint64_t count, tos; uint16_t depth, flags; uint64_t pcs[HP_STACK_MAX_DEPTH]; } vg_stack;
typedef struct vg_value {
    uint64_t pc, captures;
    double tau;
    uint8_t kind, operand;
    uint16_t nvalues;
    uint64_t vals[HP_VALUE_MAX_ENTRIES][2]; /* (value, count) */
} vg_value;

static inline void vg_put_u64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> 8 * i);
}

/* The payload of n stacks into a malloc'd buffer; *len its size. */
static inline uint8_t *vg_stacks_payload(const vg_stack *s, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += HP_REC_STACK_FIXED + 8u * s[i].depth;
    uint8_t *buf = calloc(1, total + 1), *at = buf;
    for (size_t i = 0; buf && i < n; i++) {
        hp_rec_stack r = {s[i].count, s[i].tos, s[i].depth, s[i].flags};
        hp_fmt_put_stack(at, &r);
        at += HP_REC_STACK_FIXED;
        for (uint16_t k = 0; k < s[i].depth; k++, at += 8) vg_put_u64(at, s[i].pcs[k]);
    }
    *len = total;
    return buf;
}

static inline uint8_t *vg_values_payload(const vg_value *v, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * v[i].nvalues;
    uint8_t *buf = calloc(1, total + 1), *at = buf;
    for (size_t i = 0; buf && i < n; i++) {
        hp_rec_value r = {v[i].pc, v[i].captures, v[i].tau, v[i].kind, v[i].operand, v[i].nvalues};
        hp_fmt_put_value(at, &r);
        at += HP_REC_VALUE_FIXED;
        for (uint16_t k = 0; k < v[i].nvalues; k++, at += 16) vg_put_u64(at, v[i].vals[k][0]), vg_put_u64(at + 8, v[i].vals[k][1]);
    }
    *len = total;
    return buf;
}

static inline void vg_stacks(hp_pbuild *b, const vg_stack *s, size_t n)
{
    size_t len;
    uint8_t *p = vg_stacks_payload(s, n, &len);
    hp_pbuild_section(b, HP_SEC_STACKS, p, len);
    free(p);
}

static inline void vg_values(hp_pbuild *b, const vg_value *v, size_t n)
{
    size_t len;
    uint8_t *p = vg_values_payload(v, n, &len);
    hp_pbuild_section(b, HP_SEC_VALUES, p, len);
    free(p);
}

#endif

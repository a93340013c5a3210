/* value.c — the value profile type on the analysis side (aptype.h): decode of VALUES records
 * (format.h hp_rec_value, variable size: kind a known HP_VK_*, tau finite and >= 1, nvalues <=
 * HP_VALUE_MAX_ENTRIES, reserved 0, every count > 0, counts highest first, their sum <= captures,
 * the entries inside the section; anything else refuses the file with one message naming the
 * section, offset and payload byte); the threads' hot-lists merged per (pc, kind, operand):
 * captures add, each value's estimate is the sum of its count x tau over the threads, tau the
 * largest; names and shares (value.h); the registration of the type's hooks (value_report.c,
 * value_merge.c).
 * Invariants: p->values is sorted by (pc, kind, operand), one entry per distinct triple; each
 * entry's values point into p->value_entries, highest estimate first (ties by value).
 */
#define _GNU_SOURCE
#include "analysis/ptype/value.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader ---- */

typedef struct rec_list { size_t n, cap; uint64_t at[]; } rec_list; /* file offsets of the records */

static int bad(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, const char *why)
{
    return hp_rd_fail(r, "section %zu (values) at offset %" PRIu64 ": corrupt value record at payload byte %" PRIu64
                      " (%s)", index, s->offset, off, why);
}

static uint64_t get_u64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static uint32_t get_u32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

/* The (value, count) entries of a record whose fixed part is at in: NULL if well-formed, else why. */
static const char *check_entries(const uint8_t *in, const hp_rec_value *rec)
{
    uint64_t sum = 0, prev = UINT64_MAX;
    for (uint16_t i = 0; i < rec->nvalues; i++) {
        uint64_t c = get_u64(in + HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * i + 8);
        if (c == 0) return "a value with count 0";
        if (c > prev) return "values not highest count first";
        prev = c;
        sum = hp_sat_add(sum, c);
    }
    return sum > rec->captures ? "more values kept than captures" : NULL;
}

static int check_record(hp_reader *r, size_t index, const hp_section_ref *s, uint64_t off, hp_rec_value *rec,
                        uint64_t *size)
{
    const uint8_t *in = hp_rd_payload(r, s) + off;
    if (s->length - off < HP_REC_VALUE_FIXED) return bad(r, index, s, off, "cut short");
    hp_fmt_get_value(in, rec);
    if (rec->kind < HP_VK_REG || rec->kind > HP_VK_MODULE) return bad(r, index, s, off, "unknown value kind");
    if (!isfinite(rec->tau) || !(rec->tau >= 1)) return bad(r, index, s, off, "tau not finite and >= 1");
    if (rec->nvalues > HP_VALUE_MAX_ENTRIES) return bad(r, index, s, off, "more than 64 values");
    if (get_u32(in + 28) != 0) return bad(r, index, s, off, "reserved field not 0");
    *size = HP_REC_VALUE_FIXED + (uint64_t)HP_REC_VALUE_ENTRY * rec->nvalues;
    if (s->length - off < *size) return bad(r, index, s, off, "its values run past the section");
    const char *why = check_entries(in, rec);
    return why ? bad(r, index, s, off, why) : 1;
}

static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_rec_value rec;
    uint64_t size;
    for (uint64_t off = 0; off < s->length; off += size)
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
    return 1;
}

static int remember(hp_apt_acc *acc, uint64_t at)
{
    rec_list *l = acc->mem;
    if (!l || l->n == l->cap) {
        size_t cap = l ? 2 * l->cap : 64;
        rec_list *g = realloc(l, sizeof *g + cap * sizeof g->at[0]);
        if (!g) return 0;
        if (!l) g->n = 0;
        g->cap = cap;
        acc->mem = l = g;
    }
    l->at[l->n++] = at;
    return 1;
}

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    hp_rec_value rec;
    uint64_t size, base = (uint64_t)(hp_rd_payload(r, s) - r->data);
    for (uint64_t off = 0; off < s->length; off += size) {
        if (!check_record(r, index, s, off, &rec, &size)) return 0;
        if (!remember(acc, base + off)) return hp_rd_oom(r);
    }
    r->p->nvalue_sections++;
    return 1;
}

/* ---- merge over threads (finish) ---- */

static double get_f64(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* One record into its triple (triples: (pc, kind << 8 | operand) -> index + 1) and its values
 * (vals: (index, value) -> estimate bits, v2 = 1). 0 out of memory. */
static int merge_record(hp_profile *p, const uint8_t *in, hp_pairmap *triples, hp_pairmap *vals, size_t *n)
{
    hp_rec_value rec;
    hp_fmt_get_value(in, &rec);
    hp_pair_item *t = hp_pairmap_get(triples, rec.pc, (uint64_t)rec.kind << 8 | rec.operand);
    if (!t) return 0;
    if (!t->v1) {
        t->v1 = ++*n;
        p->values[*n - 1] = (hp_value_stat){.pc = rec.pc, .kind = rec.kind, .operand = rec.operand, .tau = 1};
    }
    hp_value_stat *v = &p->values[t->v1 - 1];
    size_t index = t->v1 - 1;
    v->captures = hp_sat_add(v->captures, rec.captures);
    v->tau = fmax(v->tau, rec.tau);
    v->nthreads++;
    for (uint16_t i = 0; i < rec.nvalues; i++) {
        const uint8_t *e = in + HP_REC_VALUE_FIXED + HP_REC_VALUE_ENTRY * i;
        hp_pair_item *it = hp_pairmap_get(vals, index, get_u64(e));
        if (!it) return 0;
        it->v1 = f64_bits(get_f64(it->v1) + (double)get_u64(e + 8) * rec.tau);
    }
    return 1;
}

static int cmp_entry(const void *a, const void *b)
{
    const hp_value_entry *x = a, *y = b;
    if (x->estimate != y->estimate) return x->estimate > y->estimate ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_stat(const void *a, const void *b)
{
    const hp_value_stat *x = a, *y = b;
    if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->operand < y->operand ? -1 : x->operand > y->operand;
}

/* vals -> p->value_entries, grouped per triple, each group sorted. 0 out of memory. */
static int place_entries(hp_profile *p, const hp_pairmap *vals)
{
    size_t *next = calloc(p->nvalues + 1, sizeof *next);
    if (!(p->value_entries = calloc(vals->count + 1, sizeof *p->value_entries)) || !next) return free(next), 0;
    for (size_t i = 0; i < vals->count; i++) p->values[vals->items[i].k1].nvalues++;
    for (size_t i = 0, at = 0; i < p->nvalues; at += p->values[i++].nvalues) next[i] = at;
    for (size_t i = 0; i < vals->count; i++) {
        const hp_pair_item *it = &vals->items[i];
        p->value_entries[next[it->k1]++] = (hp_value_entry){it->k2, get_f64(it->v1)};
    }
    for (size_t i = 0, at = 0; i < p->nvalues; at += p->values[i++].nvalues) {
        p->values[i].values = p->value_entries + at;
        qsort(p->value_entries + at, p->values[i].nvalues, sizeof *p->value_entries, cmp_entry);
    }
    free(next);
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_profile *p = r->p;
    const rec_list *l = acc->mem;
    size_t nrec = l ? l->n : 0, n = 0;
    hp_pairmap triples = {0}, vals = {0};
    int ok = (p->values = calloc(nrec + 1, sizeof *p->values)) != NULL;
    for (size_t i = 0; i < nrec && ok; i++) ok = merge_record(p, r->data + l->at[i], &triples, &vals, &n);
    p->nvalues = n;
    ok = ok && place_entries(p, &vals);
    if (ok && n) qsort(p->values, n, sizeof *p->values, cmp_stat);
    hp_pairmap_free(&triples), hp_pairmap_free(&vals);
    return ok ? 1 : hp_rd_oom(r);
}

static void release(hp_profile *p)
{
    free(p->values);
    free(p->value_entries);
}

static size_t rows(const hp_profile *p) { return p->nvalues; }
static int shown(const hp_profile *p, const hp_report_opts *o) { return p->nvalues > 0 || p->nvalue_sections > 0; }

const hp_aptype hp_aptype_value = {
    .id = HP_PT_VALUE,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .shown = shown,
    .text = hp_value_text,
    .json = hp_value_json,
    .text_totals = hp_value_text_totals,
    .merge_add = hp_value_merge_add,
    .merge_write = hp_value_merge_write,
    .compare_extra = hp_value_compare,
};

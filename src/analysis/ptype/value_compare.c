/* value_compare.c — the value section of `hotprof compare A B` (value.h, compare.h hp_cmp_extra):
 * Diff-Top (shadow-profiling.txt §4.3; core/metrics/shadow.h hp_diff_top). As every section of
 * compare, A is the estimate (sampled or shadow) and B the reference (exhaustive, "perfect").
 * A site is one (pc, kind, operand) hot-list, keyed module-relative (hp_cmp_addr_key) so runs
 * under ASLR match; executions = its captures; the top value = its hot-list's first (highest
 * estimate), top count = that estimate rounded, at most captures. Diff-Top = the mean over the
 * sites in both of |invariance_B - invariance_A| weighted by B's captures (0: identical); also
 * the sites in both, and the share of them whose top value is the same value.
 */
#define _GNU_SOURCE
#include "analysis/ptype/value.h"
#include "core/metrics/shadow.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SITE_TAG 0x76616c7565736974ull /* "valuesit" */

static hp_value_site site_of(const hp_profile *p, const hp_value_stat *v)
{
    int mapped;
    uint64_t key = hp_cmp_pair_key(SITE_TAG, hp_cmp_addr_key(p, v->pc, &mapped), (uint64_t)v->kind << 8 | v->operand);
    hp_value_site s = {key, v->captures, 0, 0};
    if (v->nvalues) {
        double c = floor(v->values[0].estimate + 0.5);
        s.top_value = v->values[0].value;
        s.top_count = c >= (double)v->captures ? v->captures : c < 0 ? 0 : (uint64_t)c;
    }
    return s;
}

static hp_value_site *sites_of(const hp_profile *p)
{
    hp_value_site *s = malloc((p->nvalues + 1) * sizeof *s);
    for (size_t i = 0; s && i < p->nvalues; i++) s[i] = site_of(p, &p->values[i]);
    return s;
}

static int cmp_key(const void *a, const void *b)
{
    const hp_value_site *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Of the sites in both, the share whose top values are equal (sa, sb sorted by key here). */
static double same_top(hp_value_site *sa, size_t na, hp_value_site *sb, size_t nb)
{
    size_t both = 0, same = 0;
    qsort(sa, na, sizeof *sa, cmp_key);
    qsort(sb, nb, sizeof *sb, cmp_key);
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (sa[i].pc < sb[j].pc) { i++; continue; }
        if (sb[j].pc < sa[i].pc) { j++; continue; }
        both++, same += sa[i].top_value == sb[j].top_value;
        i++, j++;
    }
    return both ? (double)same / (double)both : 0;
}

int hp_value_compare(const hp_profile *a, const hp_profile *b, hp_cmp_extra *x, char *refusal, size_t len)
{
    (void)refusal, (void)len;
    if (!a->nvalues || !b->nvalues) return 0;
    hp_value_site *sa = sites_of(a), *sb = sites_of(b), *scratch = malloc((a->nvalues + b->nvalues + 1) * sizeof *scratch);
    int oom = !sa || !sb || !scratch;
    if (!oom) {
        size_t common = 0;
        double d = hp_diff_top(sb, b->nvalues, sa, a->nvalues, scratch, &common);
        memset(x, 0, sizeof *x);
        x->id = "value", x->title = "values (Diff-Top)";
        x->note = "Diff-Top: |invariance of B's top value - A's| weighted by B's executions (0 = identical)";
        x->values[x->nvalues++] = (hp_cmp_extra_value){"diff_top", "Diff-Top", d, 100};
        x->values[x->nvalues++] = (hp_cmp_extra_value){"same_top", "same top value", same_top(sa, a->nvalues, sb, b->nvalues), 100};
        x->common = common;
    }
    free(sa), free(sb), free(scratch);
    return oom ? -1 : 1;
}

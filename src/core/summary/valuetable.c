/* valuetable.c — estimates, top-k and serialized entries of a (value, count) table; see valuetable.h. */
#include "core/summary/valuetable.h"

uint64_t hp_vtab_sum(const hp_value_count *e, uint32_t n)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < n; i++) s = s + e[i].count < s ? UINT64_MAX : s + e[i].count;
    return s;
}

void hp_vtab_fill(uint64_t total, uint64_t value, uint64_t count, uint64_t sum_all, hp_estimate *out)
{
    uint64_t others = sum_all - count;
    out->key = value;
    out->count = count;
    out->lower = count;
    out->upper = total >= others ? total - others : count;
}

void hp_vtab_absent(uint64_t total, uint64_t sum_all, uint64_t value, hp_estimate *out)
{
    out->key = value;
    out->count = out->lower = 0;
    out->upper = total >= sum_all ? total - sum_all : 0;
}

static int before(const hp_estimate *a, const hp_estimate *b)
{
    return a->count > b->count || (a->count == b->count && a->key < b->key);
}

size_t hp_vtab_topk(const hp_value_count *e, uint32_t n, uint64_t total, hp_estimate *out, size_t k)
{
    uint64_t sum = hp_vtab_sum(e, n);
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        hp_estimate v;
        hp_vtab_fill(total, e[i].value, e[i].count, sum, &v);
        if (m == k && (k == 0 || !before(&v, &out[m - 1]))) continue;
        size_t j = m < k ? m++ : m - 1;
        while (j > 0 && before(&v, &out[j - 1])) { out[j] = out[j - 1]; j--; }
        out[j] = v;
    }
    return m;
}

void hp_vtab_write(hp_wbuf *w, const hp_value_count *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) { hp_put_u64(w, e[i].value); hp_put_u64(w, e[i].count); }
}

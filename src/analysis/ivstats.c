/* ivstats.c — statistics of interval timelines (ivstats.h). */
#include "analysis/ivstats.h"
#include <stdlib.h>
#include <string.h>

uint64_t hp_iv_scored_intervals(const hp_iv_thread *t) { return t->h.intervals - t->h.dropped; }

static int hot_cmp(const void *x, const void *y)
{
    const hp_iv_hot *a = x, *b = y;
    if (a->hits != b->hits) return a->hits > b->hits ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

static int key_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

hp_iv_hot *hp_iv_hot_tuples(const hp_iv_thread *t, size_t *n)
{
    size_t m = 0, out = 0;
    *n = 0;
    hp_iv_hot *h = malloc((t->h.nentries + 1) * sizeof *h);
    if (!h) return NULL;
    for (uint32_t i = 0; i < t->h.nentries; i++)
        if (t->entries[i].hw_hits) h[m++] = (hp_iv_hot){t->entries[i].key, t->entries[i].count, t->entries[i].hw_hits, 0};
    qsort(h, m, sizeof *h, key_cmp); /* key is the first member */
    for (size_t i = 0; i < m; i++) {
        if (out && h[out - 1].key == h[i].key) h[out - 1].count += h[i].count, h[out - 1].hits += h[i].hits;
        else h[out++] = h[i];
    }
    uint64_t scored = hp_iv_scored_intervals(t);
    for (size_t i = 0; i < out; i++) h[i].share = scored ? (double)h[i].hits / (double)scored : 0;
    qsort(h, out, sizeof *h, hot_cmp);
    if (!out) return free(h), NULL;
    *n = out;
    return h;
}

int hp_iv_same_hot_set(const hp_iv_thread *t, size_t i, size_t j)
{
    const hp_ivt_entry *a = t->entries + t->slots[i].off, *b = t->entries + t->slots[j].off;
    uint32_t na = t->slots[i].n, nb = t->slots[j].n, x = 0, y = 0;
    for (;;) {
        while (x < na && !a[x].hw_hits) x++;
        while (y < nb && !b[y].hw_hits) y++;
        if (x == na || y == nb) return x == na && y == nb;
        if (a[x].key != b[y].key) return 0;
        x++, y++;
    }
}

hp_iv_phase *hp_iv_phases(const hp_iv_thread *t, size_t *n)
{
    *n = 0;
    if (!t->h.nslots) return NULL;
    hp_iv_phase *ph = malloc(t->h.nslots * sizeof *ph);
    if (!ph) return NULL;
    for (size_t i = 0; i < t->h.nslots; i++) {
        if (*n && hp_iv_same_hot_set(t, ph[*n - 1].first_slot, i)) ph[*n - 1].nslots++;
        else ph[(*n)++] = (hp_iv_phase){i, 1};
    }
    return ph;
}

/* |A xor B| and |A or B| of two slots' hot sets. */
static void set_diff(const hp_iv_thread *t, size_t i, size_t j, size_t *diff, size_t *uni)
{
    const hp_ivt_entry *a = t->entries + t->slots[i].off, *b = t->entries + t->slots[j].off;
    uint32_t na = t->slots[i].n, nb = t->slots[j].n, x = 0, y = 0;
    *diff = *uni = 0;
    while (x < na || y < nb) {
        if (x < na && !a[x].hw_hits) { x++; continue; }
        if (y < nb && !b[y].hw_hits) { y++; continue; }
        (*uni)++;
        if (y == nb || (x < na && a[x].key < b[y].key)) x++, (*diff)++;
        else if (x == na || b[y].key < a[x].key) y++, (*diff)++;
        else x++, y++;
    }
}

double hp_iv_change_rate(const hp_iv_thread *t)
{
    double sum = 0;
    if (t->h.nslots < 2) return 0;
    for (size_t i = 1; i < t->h.nslots; i++) {
        size_t d, u;
        set_diff(t, i - 1, i, &d, &u);
        sum += u ? (double)d / (double)u : 0;
    }
    return sum / (double)(t->h.nslots - 1);
}

int hp_iv_error_of(const hp_iv_thread *t, hp_iv_error *out)
{
    memset(out, 0, sizeof *out);
    if (!(t->h.flags & HP_IVSEC_EXACT)) return 0;
    out->have = 1;
    size_t most = 1;
    for (uint32_t i = 0; i < t->h.nslots; i++) most = t->slots[i].n > most ? t->slots[i].n : most;
    hp_metric_item *perfect = malloc(most * sizeof *perfect), *hw = malloc(most * sizeof *hw);
    hp_metric_item *scratch = malloc(2 * most * sizeof *scratch);
    if (!perfect || !hw || !scratch) return free(perfect), free(hw), free(scratch), -1;
    for (uint32_t i = 0; i < t->h.nslots; i++) {
        size_t np = 0, nh = 0;
        for (uint32_t j = 0; j < t->slots[i].n; j++) {
            const hp_ivt_entry *e = &t->entries[t->slots[i].off + j];
            if (e->truth) perfect[np++] = (hp_metric_item){e->key, (double)e->truth};
            if (e->hw_hits) hw[nh++] = (hp_metric_item){e->key, (double)e->count};
        }
        hp_multihash_error e;
        hp_multihash_interval_error(perfect, np, hw, nh, (double)(t->h.T * t->slots[i].span), scratch, &e);
        out->e += e.total, out->fp += e.fp, out->fn += e.fn, out->np += e.np, out->nn += e.nn;
        out->scored++;
    }
    if (out->scored) {
        double k = (double)out->scored;
        out->e /= k, out->fp /= k, out->fn /= k, out->np /= k, out->nn /= k;
    }
    free(perfect), free(hw), free(scratch);
    return 0;
}

const hp_ivsec_name *hp_iv_name(const hp_iv_thread *t, uint64_t key)
{
    size_t lo = 0, hi = t->h.nnames;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->names[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->h.nnames && t->names[lo].key == key ? &t->names[lo] : NULL;
}

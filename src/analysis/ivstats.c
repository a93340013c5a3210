/* ivstats.c — statistics of interval timelines (ivstats.h). */
#include "analysis/ivstats.h"
#include "analysis/report.h"
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

int hp_iv_comparable(const hp_iv_thread *a, const hp_iv_thread *b, const char **why)
{
    *why = NULL;
    if (!(b->h.flags & HP_IVSEC_EXACT)) *why = "the reference holds no exact sets (run it with exact=1)";
    else if (a->h.stream != b->h.stream) *why = "different streams";
    else if (a->h.p.interval != b->h.p.interval || a->h.T != b->h.T) *why = "different interval or threshold";
    else if (a->h.nslots != b->h.nslots) *why = "different numbers of intervals (not the same run?)";
    for (uint32_t i = 0; !*why && i < a->h.nslots; i++)
        if (a->slots[i].first != b->slots[i].first || a->slots[i].span != b->slots[i].span) *why = "timelines merged differently";
    return *why ? 0 : 1;
}

int hp_iv_error_vs(const hp_iv_thread *a, const hp_iv_thread *b, hp_iv_error *out, double *per_slot)
{
    memset(out, 0, sizeof *out);
    const char *why;
    if (!hp_iv_comparable(a, b, &why)) return 0;
    out->have = 1;
    size_t most = 1;
    for (uint32_t i = 0; i < a->h.nslots; i++) {
        most = a->slots[i].n > most ? a->slots[i].n : most;
        most = b->slots[i].n > most ? b->slots[i].n : most;
    }
    hp_metric_item *perfect = malloc(most * sizeof *perfect), *hw = malloc(most * sizeof *hw);
    hp_metric_item *scratch = malloc(2 * most * sizeof *scratch);
    if (!perfect || !hw || !scratch) return free(perfect), free(hw), free(scratch), -1;
    for (uint32_t i = 0; i < a->h.nslots; i++) {
        size_t np = 0, nh = 0;
        for (uint32_t j = 0; j < b->slots[i].n; j++) {
            const hp_ivt_entry *e = &b->entries[b->slots[i].off + j];
            if (e->truth) perfect[np++] = (hp_metric_item){e->key, (double)e->truth};
        }
        for (uint32_t j = 0; j < a->slots[i].n; j++) {
            const hp_ivt_entry *e = &a->entries[a->slots[i].off + j];
            if (e->hw_hits) hw[nh++] = (hp_metric_item){e->key, (double)e->count};
        }
        hp_multihash_error e;
        hp_multihash_interval_error(perfect, np, hw, nh, (double)(a->h.T * a->slots[i].span), scratch, &e);
        if (per_slot) per_slot[i] = e.total;
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

int hp_iv_error_of(const hp_iv_thread *t, hp_iv_error *out) { return hp_iv_error_vs(t, t, out, NULL); }

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

/* ---- compare ---- */

/* The k-th section of stream s in p, or NULL. */
static const hp_iv_thread *nth_of_stream(const hp_profile *p, uint32_t s, size_t k)
{
    for (size_t i = 0; i < p->nivs; i++)
        if (p->ivs[i].h.stream == s && k-- == 0) return &p->ivs[i];
    return NULL;
}

static int compare_one(FILE *out, const hp_iv_thread *a, const hp_iv_thread *b, int json, int first)
{
    const char *why = NULL, *stream = hp_iv_stream_name((int)a->h.stream);
    double *per = malloc((a->h.nslots + 1) * sizeof *per);
    hp_iv_error e;
    if (!per || (b && hp_iv_error_vs(a, b, &e, per))) return free(per), -1;
    if (!b) why = "the reference has no interval profile of this stream";
    else if (!e.have) hp_iv_comparable(a, b, &why);
    if (json) {
        fprintf(out, "%s\n    {\"stream\": \"%s\", \"tid_a\": %llu, \"variant_a\": \"%s\"", first ? "" : ",", stream, (unsigned long long)a->tid,
                hp_iv_variant_name(a->h.p.variant));
        if (b) fprintf(out, ", \"variant_b\": \"%s\"", hp_iv_variant_name(b->h.p.variant));
        if (why) fputs(", \"error\": null, \"why\": ", out), hp_json_string(out, why);
        else {
            fprintf(out, ", \"tid_b\": %llu, \"error\": {\"e\": %.9f, \"fp\": %.9f, \"fn\": %.9f, \"np\": %.9f, \"nn\": %.9f, \"slots\": %zu}, \"per_slot\": [",
                    (unsigned long long)b->tid, e.e, e.fp, e.fn, e.np, e.nn, e.scored);
            for (size_t i = 0; i < e.scored; i++) fprintf(out, "%s%.6f", i ? ", " : "", per[i]);
            fputc(']', out);
        }
        fputc('}', out);
    } else if (why) {
        fprintf(out, "  %s, thread %llu: not compared: %s\n", stream, (unsigned long long)a->tid, why);
    } else {
        size_t worst = 0;
        for (size_t i = 1; i < e.scored; i++) worst = per[i] > per[worst] ? i : worst;
        fprintf(out, "  %s, thread %llu: E %.4f%% (FP %.4f%%, FN %.4f%%, NP %.4f%%, NN %.4f%%) mean over %zu intervals; worst %.4f%% at slot %zu"
                     "; A's variant %s (Z=%u A=%u)\n",
                stream, (unsigned long long)a->tid, e.e * 100, e.fp * 100, e.fn * 100, e.np * 100, e.nn * 100, e.scored,
                e.scored ? per[worst] * 100 : 0, worst, hp_iv_variant_name(a->h.p.variant), a->h.counters_used, a->h.acc_entries);
    }
    free(per);
    return 0;
}

int hp_iv_compare_write(FILE *out, const hp_profile *a, const hp_profile *b, int json)
{
    size_t seen[HP_IV_NSTREAMS] = {0};
    int n = 0;
    if (json) fputs("  \"intervals\": [", out);
    else if (a->nivs) fputs("\nInterval profiles: the paper's error E of A's multi-hash candidates against B's exact sets\n", out);
    for (size_t i = 0; i < a->nivs; i++) {
        const hp_iv_thread *x = &a->ivs[i];
        if (x->h.stream >= HP_IV_NSTREAMS) continue;
        if (compare_one(out, x, nth_of_stream(b, x->h.stream, seen[x->h.stream]++), json, n == 0)) return -1;
        n++;
    }
    if (json) fputs(n ? "\n  ]" : "]", out);
    return n;
}

/* topk.c — merged top-k over every thread's table of one kind (topk.h): moved here from api.c
 * so that hotprof_snapshot_topk and the live views (methods, callpairs) share one walk.
 * Stateless: everything lives in the call's scratch table.
 */
#include "runtime/pt/topk.h"
#include <sys/mman.h>

/* The table a kind's counts live in: methods have their own in bursty mode (and with XRay) and
 * are summed from the call pairs (calls + back-edges) in exhaustive mode. */
static HP_NOINST hp_tab *const *table_of(const hp_thread *t, enum hp_topk_kind kind)
{
    if (kind == HP_TOPK_METHODS) return t->methods ? &t->methods : &t->pairs;
    if (kind == HP_TOPK_CALLPAIRS) return &t->pairs;
    return &t->edges;
}

static HP_NOINST hp_tab *scratch_for(enum hp_topk_kind kind)
{
    uint64_t keys = 64, cap = 128;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_tab *tab = HP_LOAD_ACQ(table_of(t, kind));
        if (tab) keys += tab->mask + 1;
    }
    while (cap < 2 * keys) cap *= 2;
    return hp_tab_new(cap);
}

/* Adds one live slot's count to the merged table. */
static HP_NOINST void merge_slot(hp_tab **sum, enum hp_topk_kind kind, const hp_slot *s, uint64_t k1)
{
    uint64_t v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
    uint64_t n = kind == HP_TOPK_METHODS ? v1 + v2 : v1;
    if (!n) return;
    hp_slot *m = hp_tab_get(sum, k1, kind == HP_TOPK_CALLPAIRS ? s->k2 : 0);
    m->v1 += n;
}

static HP_NOINST void merge_threads(hp_tab **sum, enum hp_topk_kind kind)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_tab *tab = HP_LOAD_ACQ(table_of(t, kind));
        for (uint64_t i = 0; tab && i <= tab->mask; i++) {
            uint64_t k1 = HP_LOAD_ACQ(&tab->s[i].k1);
            if (k1) merge_slot(sum, kind, &tab->s[i], k1);
        }
    }
}

static HP_NOINST int ranks_before(const hp_live_row *a, const hp_live_row *b)
{
    if (a->value != b->value) return a->value > b->value;
    return a->key != b->key ? a->key < b->key : a->key2 < b->key2;
}

/* Insertion into out[0..*n) kept sorted, at most k rows. */
static HP_NOINST void keep_top(hp_live_row *out, int k, int *n, hp_live_row r)
{
    if (*n == k && !ranks_before(&r, &out[k - 1])) return;
    int i = *n < k ? (*n)++ : k - 1;
    for (; i > 0 && ranks_before(&r, &out[i - 1]); i--) out[i] = out[i - 1];
    out[i] = r;
}

static HP_NOINST int rows_of(const hp_tab *sum, hp_live_row *out, int k)
{
    int n = 0;
    for (uint64_t i = 0; i <= sum->mask; i++) {
        const hp_slot *s = &sum->s[i];
        if (s->k1) keep_top(out, k, &n, (hp_live_row){.key = s->k1, .key2 = s->k2, .value = (double)s->v1});
    }
    return n;
}

HP_NOINST int hp_topk_merged(enum hp_topk_kind kind, hp_live_row *out, int k)
{
    if (k <= 0) return 0;
    hp_tab *first = scratch_for(kind), *sum = first;
    if (!sum) return -1;
    merge_threads(&sum, kind);
    int n = rows_of(sum, out, k);
    if (sum != first) munmap(first, hp_tab_bytes(first)); /* it grew: the copy's source is ours too */
    munmap(sum, hp_tab_bytes(sum));
    return n;
}

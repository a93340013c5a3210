/* osplist.c — OSP's weighted hot-list with stored sequences: concise or counting samples
 * (osplist.h). */
#include "core/summary/osplist.h"
#include "core/base/hash.h"
#include <math.h>
#include <string.h>

hp_osp_list *hp_osp_list_init(void *mem, size_t bytes, uint64_t seed, int check_seq)
{
    return hp_osp_list_init_rule(mem, bytes, seed, check_seq, 0);
}

hp_osp_list *hp_osp_list_init_rule(void *mem, size_t bytes, uint64_t seed, int check_seq, int counting)
{
    if (!mem || bytes < HP_OSP_MIN_LIST_BYTES) return NULL;
    hp_osp_list *l = mem;
    size_t rest = bytes - sizeof *l;
    uint32_t cap = (uint32_t)(rest / HP_OSP_BYTES_PER_ENTRY);
    if (cap < 4) return NULL;
    memset(l, 0, sizeof *l);
    l->cap = cap;
    l->nslots = 2 * cap;
    l->e = (hp_osp_entry *)(l + 1);
    l->slot = (uint32_t *)(l->e + cap);
    l->arena = l->slot + l->nslots;
    l->arena_cap = (uint32_t)((bytes - ((uint8_t *)l->arena - (uint8_t *)mem)) / sizeof(uint32_t));
    l->tau = 1;
    l->check_seq = (uint32_t)!!check_seq;
    l->counting = (uint32_t)!!counting;
    memset(l->slot, 0, l->nslots * sizeof *l->slot);
    hp_rng_seed(&l->rng, seed);
    return l;
}

static uint32_t home(const hp_osp_list *l, uint64_t key) { return hp_reduce(hp_mix64_xmx(key), l->nslots); }

/* The index slot holding key, or the empty slot where it would go. */
static uint32_t *probe(const hp_osp_list *l, uint64_t key)
{
    uint32_t i = home(l, key);
    for (;;) {
        uint32_t *s = &l->slot[i];
        if (!*s || l->e[*s - 1].key == key) return s;
        if (++i == l->nslots) i = 0;
    }
}

hp_osp_entry *hp_osp_list_find(const hp_osp_list *l, uint64_t key)
{
    uint32_t *s = probe(l, key);
    return *s ? &l->e[*s - 1] : NULL;
}

static void reindex(hp_osp_list *l)
{
    memset(l->slot, 0, l->nslots * sizeof *l->slot);
    for (uint32_t i = 0; i < l->n; i++) *probe(l, l->e[i].key) = i + 1;
}

/* Drops entries with count 0 and compacts the arena (sequences keep their order). */
static void compact(hp_osp_list *l)
{
    uint32_t n = 0, used = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        hp_osp_entry e = l->e[i];
        if (!e.count) continue;
        if (e.seq != HP_OSP_NO_SEQ) {
            memmove(l->arena + used, l->arena + e.seq, e.length * sizeof(uint32_t));
            e.seq = used;
            used += e.length;
        }
        l->e[n++] = e;
    }
    l->n = n, l->arena_used = used;
    reindex(l);
}

/* Concise: c' ~ Binomial(c, keep), the weight rescaled so that its expectation stays. */
static void thin_concise(hp_osp_list *l, hp_osp_entry *e, double keep)
{
    uint64_t c2 = hp_rng_binomial(&l->rng, e->count, keep);
    e->weight = c2 ? e->weight * ((double)c2 / (double)e->count) / keep : 0;
    e->count = c2;
}

/* Counting: the entry is dropped with Gibbons–Matias' probability of its count reaching 0,
 * (1 - keep) (1 - 1/tau')^(c - 1); a survivor keeps its count, and its weight and admission
 * term are divided by its survival probability (see osplist.h). */
static void thin_counting(hp_osp_list *l, hp_osp_entry *e, double keep, double tau2)
{
    double survive = 1 - (1 - keep) * pow(1 - 1 / tau2, (double)(e->count ? e->count - 1 : 0));
    if (!e->count || hp_rng_double(&l->rng) >= survive) {
        e->count = 0, e->weight = 0;
        return;
    }
    e->weight /= survive, e->w_adm /= survive;
}

void hp_osp_list_thin(hp_osp_list *l)
{
    double keep = 0.5; /* tau / tau' */
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->counting) thin_counting(l, &l->e[i], keep, l->tau / keep);
        else thin_concise(l, &l->e[i], keep);
    }
    l->tau /= keep;
    l->thinnings++;
    compact(l);
}

static int full(const hp_osp_list *l, uint32_t length)
{
    return l->n + 1 > l->cap || l->arena_used + length > l->arena_cap;
}

static int same_seq(const hp_osp_list *l, const hp_osp_entry *e, const uint32_t *seq)
{
    const uint32_t *held = hp_osp_list_seq(l, e);
    return !held || !seq || memcmp(held, seq, e->length * sizeof *seq) == 0;
}

/* count += c, weight += w for key (a new entry if needed); 0 if it collided or did not fit.
 * thin: 1 to thin until it fits, 0 to fail when full. */
/* count += c, weight += w for the held entry e; 0 if the sample collided with it. */
static int add_to(hp_osp_list *l, hp_osp_entry *e, uint32_t length, const uint32_t *seq, uint64_t c, double w)
{
    if (e->length != length || (l->check_seq && !same_seq(l, e, seq))) {
        l->collisions++;
        return 0;
    }
    e->count += c, e->weight += w;
    return 1;
}

static int put(hp_osp_list *l, uint64_t key, uint32_t length, const uint32_t *seq, uint64_t c, double w, double p_length,
               int thin)
{
    hp_osp_entry *e = hp_osp_list_find(l, key);
    if (e) return add_to(l, e, length, seq, c, w);
    if (length > l->arena_cap) seq = NULL, l->dropped_seq++;
    uint32_t need = seq ? length : 0;
    while (full(l, need)) {
        if (!thin || !l->n) return 0;
        hp_osp_list_thin(l);
    }
    e = &l->e[l->n];
    /* counting: the samples missed before this admission, tau - 1 of this one's weight */
    double adm = l->counting && c ? (l->tau - 1) * w / (double)c : 0;
    *e = (hp_osp_entry){key, c, w, p_length, adm, length, HP_OSP_NO_SEQ};
    if (seq) {
        memcpy(l->arena + l->arena_used, seq, length * sizeof *seq);
        e->seq = l->arena_used;
        l->arena_used += length;
    }
    *probe(l, key) = ++l->n;
    return 1;
}

int hp_osp_list_offer(hp_osp_list *l, uint64_t key, uint32_t length, const uint32_t *seq, double weight,
                      double p_length)
{
    l->offered++;
    hp_osp_entry *held = l->counting ? hp_osp_list_find(l, key) : NULL;
    if (held) {
        l->admitted++;
        return add_to(l, held, length, seq, 1, weight);
    }
    if (l->tau > 1 && hp_rng_double(&l->rng) * l->tau >= 1) return 0;
    l->admitted++;
    return put(l, key, length, seq, 1, l->counting ? weight : weight * l->tau, p_length, 1);
}

double hp_osp_list_weight(const hp_osp_list *l, const hp_osp_entry *e)
{
    if (!l->counting || !e->count) return e->weight;
    return e->weight + e->w_adm;
}

int hp_osp_list_add(hp_osp_list *l, uint64_t key, uint32_t length, const uint32_t *seq, uint64_t c, double w,
                    double p_length)
{
    return put(l, key, length, seq, c, w, p_length, 0);
}

size_t hp_osp_list_bytes_used(const hp_osp_list *l)
{
    return sizeof *l + l->n * (sizeof(hp_osp_entry) + 2 * sizeof(uint32_t)) + l->arena_used * sizeof(uint32_t);
}

/* ivsec.c — the INTERVALS section codec (ivsec.h). */
#include "core/format/ivsec.h"
#include "core/base/bytes.h"
#include "core/summary/multihash.h"
#include <string.h>

size_t hp_ivsec_put_head(uint8_t out[HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE], const hp_ivsec_head *h)
{
    hp_wbuf w = hp_wbuf_make(out, HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE);
    uint64_t tbits;
    memcpy(&tbits, &h->p.threshold, 8);
    hp_put_u32(&w, h->stream), hp_put_u32(&w, h->flags);
    hp_put_u32(&w, h->p.n_tables), hp_put_u32(&w, h->p.total_counters), hp_put_u32(&w, h->p.counter_bits);
    hp_put_u32(&w, (uint32_t)h->p.conservative), hp_put_u32(&w, (uint32_t)h->p.reset);
    hp_put_u32(&w, (uint32_t)h->p.retain), hp_put_u32(&w, (uint32_t)h->p.shield), hp_put_u32(&w, h->p.budget);
    hp_put_u64(&w, h->p.interval), hp_put_u64(&w, tbits), hp_put_u64(&w, h->T), hp_put_u64(&w, h->seed);
    hp_put_u64(&w, h->intervals), hp_put_u64(&w, h->dropped), hp_put_u64(&w, h->events);
    hp_put_u64(&w, h->tail_events), hp_put_u64(&w, h->span);
    hp_put_u32(&w, h->nslots), hp_put_u32(&w, h->nentries), hp_put_u32(&w, h->nnames), hp_put_u32(&w, (uint32_t)h->p.fast_hash);
    if (!(h->flags & HP_IVSEC_VARIANT)) return HP_IVSEC_HEAD_SIZE;
    hp_put_u32(&w, (uint32_t)h->p.variant), hp_put_u32(&w, h->acc_entries), hp_put_u32(&w, h->counters_used), hp_put_u32(&w, 0);
    return HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE;
}

void hp_ivsec_put_slot(uint8_t out[HP_IVSEC_SLOT_SIZE], const hp_ivt_slot *s)
{
    hp_wbuf w = hp_wbuf_make(out, HP_IVSEC_SLOT_SIZE);
    hp_put_u64(&w, s->first), hp_put_u64(&w, s->span), hp_put_u64(&w, s->events);
    hp_put_u32(&w, s->n), hp_put_u32(&w, 0);
}

void hp_ivsec_put_entry(uint8_t out[HP_IVSEC_ENTRY_SIZE], const hp_ivt_entry *e)
{
    hp_wbuf w = hp_wbuf_make(out, HP_IVSEC_ENTRY_SIZE);
    hp_put_u64(&w, e->key), hp_put_u64(&w, e->count), hp_put_u64(&w, e->truth);
    hp_put_u32(&w, e->hw_hits), hp_put_u32(&w, e->exact_hits);
}

void hp_ivsec_put_name(uint8_t out[HP_IVSEC_NAME_SIZE], const hp_ivsec_name *n)
{
    hp_wbuf w = hp_wbuf_make(out, HP_IVSEC_NAME_SIZE);
    hp_put_u64(&w, n->key), hp_put_u64(&w, n->a), hp_put_u64(&w, n->b);
}

static int fail(const char **why, const char *text) { return *why = text, -1; }

/* The trailer (or the paper's variant without one), checked against the head's design. */
static int get_variant(const uint8_t *p, size_t len, hp_ivsec_head *h, const char **why)
{
    uint32_t acc = 0, used = 0, zero = 0;
    h->head_len = HP_IVSEC_HEAD_SIZE, h->p.variant = HP_MH_VARIANT_PAPER;
    if (h->flags & HP_IVSEC_VARIANT) {
        if (len < HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE) return fail(why, "shorter than its variant trailer");
        hp_rbuf r = hp_rbuf_make(p + HP_IVSEC_HEAD_SIZE, HP_IVSEC_TRAILER_SIZE);
        uint32_t v = hp_get_u32(&r);
        acc = hp_get_u32(&r), used = hp_get_u32(&r), zero = hp_get_u32(&r);
        if (v == HP_MH_VARIANT_PAPER || !hp_iv_variant_name((int)v) || zero) return fail(why, "bad variant");
        h->p.variant = (int)v, h->head_len += HP_IVSEC_TRAILER_SIZE;
    }
    hp_multihash_params mp;
    if (hp_iv_multihash_params(&h->p, 0, &mp)) return fail(why, "the variant leaves no room for the counters");
    h->acc_entries = hp_multihash_acc_entries(&mp), h->counters_used = mp.total_counters;
    if ((h->flags & HP_IVSEC_VARIANT) && (acc != h->acc_entries || used != h->counters_used))
        return fail(why, "the variant's sizes do not match its design");
    return 0;
}

int hp_ivsec_get_head(const uint8_t *p, size_t len, hp_ivsec_head *h, const char **why)
{
    if (len < HP_IVSEC_HEAD_SIZE) return fail(why, "shorter than its head");
    hp_rbuf r = hp_rbuf_make(p, HP_IVSEC_HEAD_SIZE);
    uint64_t tbits;
    memset(h, 0, sizeof *h);
    h->stream = hp_get_u32(&r), h->flags = hp_get_u32(&r);
    h->p.n_tables = hp_get_u32(&r), h->p.total_counters = hp_get_u32(&r), h->p.counter_bits = hp_get_u32(&r);
    h->p.conservative = (int)hp_get_u32(&r), h->p.reset = (int)hp_get_u32(&r);
    h->p.retain = (int)hp_get_u32(&r), h->p.shield = (int)hp_get_u32(&r), h->p.budget = hp_get_u32(&r);
    h->p.interval = hp_get_u64(&r), tbits = hp_get_u64(&r), h->T = hp_get_u64(&r), h->seed = hp_get_u64(&r);
    memcpy(&h->p.threshold, &tbits, 8);
    h->intervals = hp_get_u64(&r), h->dropped = hp_get_u64(&r), h->events = hp_get_u64(&r);
    h->tail_events = hp_get_u64(&r), h->span = hp_get_u64(&r);
    h->nslots = hp_get_u32(&r), h->nentries = hp_get_u32(&r), h->nnames = hp_get_u32(&r);
    uint32_t hash = hp_get_u32(&r);
    if (hash > 1) return fail(why, "bad hash");
    h->p.fast_hash = (int)hash;
    h->p.enabled = 1, h->p.exact = (h->flags & HP_IVSEC_EXACT) != 0;
    if (h->stream >= HP_IV_NSTREAMS || (h->flags & ~(HP_IVSEC_EXACT | HP_IVSEC_BURSTY | HP_IVSEC_VARIANT | HP_IVSEC_PATCH)) ||
        ((h->flags & HP_IVSEC_PATCH) && !(h->flags & HP_IVSEC_BURSTY))) return fail(why, "bad stream or flags");
    if (!h->p.n_tables || h->p.n_tables > 64 || !h->p.total_counters || h->p.total_counters % h->p.n_tables ||
        !h->p.counter_bits || h->p.counter_bits > 32 || h->p.conservative > 1 || h->p.reset > 1 || h->p.retain > 1 ||
        h->p.shield > 1 || !h->p.interval || h->p.interval > (1ull << 40) || !(h->p.threshold > 0 && h->p.threshold <= 1))
        return fail(why, "bad multi-hash configuration");
    if (h->T != hp_iv_threshold_count(&h->p) || (h->p.counter_bits < 32 && h->T > (1ull << h->p.counter_bits) - 1))
        return fail(why, "threshold does not match the configuration");
    if (!h->span || h->dropped > h->intervals || h->nslots > h->intervals) return fail(why, "bad interval counts");
    if (get_variant(p, len, h, why)) return -1;
    uint64_t need = h->head_len + (uint64_t)h->nslots * HP_IVSEC_SLOT_SIZE +
                    (uint64_t)h->nentries * HP_IVSEC_ENTRY_SIZE + (uint64_t)h->nnames * HP_IVSEC_NAME_SIZE;
    if (need != len) return fail(why, "length does not match its counts");
    return 0;
}

static int get_slots(hp_rbuf *r, const hp_ivsec_head *h, hp_ivt_slot *slots, const char **why)
{
    uint64_t next = 0, sum = 0;
    for (uint32_t i = 0; i < h->nslots; i++) {
        hp_ivt_slot *s = &slots[i];
        s->first = hp_get_u64(r), s->span = hp_get_u64(r), s->events = hp_get_u64(r);
        s->n = hp_get_u32(r), (void)hp_get_u32(r);
        if (s->first < next || !s->span || s->span > h->intervals || s->first + s->span > h->intervals)
            return fail(why, "slots overlap or leave the timeline");
        s->off = (uint32_t)sum;
        next = s->first + s->span, sum += s->n;
    }
    return sum == h->nentries ? 0 : fail(why, "slot entry counts do not add up");
}

int hp_ivsec_get_body(const uint8_t *p, size_t len, const hp_ivsec_head *h, hp_ivt_slot *slots, hp_ivt_entry *entries,
                      hp_ivsec_name *names, const char **why)
{
    hp_rbuf r = hp_rbuf_make(p, len);
    (void)hp_get_bytes(&r, h->head_len);
    if (get_slots(&r, h, slots, why)) return -1;
    for (uint32_t i = 0; i < h->nslots; i++)
        for (uint32_t j = 0; j < slots[i].n; j++) {
            hp_ivt_entry *e = &entries[slots[i].off + j];
            e->key = hp_get_u64(&r), e->count = hp_get_u64(&r), e->truth = hp_get_u64(&r);
            e->hw_hits = hp_get_u32(&r), e->exact_hits = hp_get_u32(&r);
            if (j && e->key <= e[-1].key) return fail(why, "a slot's keys are not increasing");
            if (e->hw_hits > slots[i].span || e->exact_hits > slots[i].span || (!e->hw_hits && !e->exact_hits))
                return fail(why, "an entry's hits do not fit its slot");
        }
    for (uint32_t i = 0; i < h->nnames; i++)
        names[i].key = hp_get_u64(&r), names[i].a = hp_get_u64(&r), names[i].b = hp_get_u64(&r);
    return r.ok && hp_rbuf_left(&r) == 0 ? 0 : fail(why, "truncated");
}

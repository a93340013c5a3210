/* test_ivtimeline.c — core/summary/ivtimeline (the bounded interval timeline) and the INTERVALS
 * section codec (core/format/ivsec): appends below the bounds keep one slot per interval; at
 * the slot bound neighbouring slots merge pairwise, spans double and hits/counts add up so that
 * every key's hits equal the number of intervals it was appended in (computed from the input);
 * at the entry bound the same; an interval that can never fit is dropped; a section written
 * with the encoders decodes to the same timeline, and every corruption tried is refused. */
#include "core/format/ivsec.h"
#include "core/summary/multihash.h"
#include "core/summary/ivtimeline.h"
#include "test.h"
#include <string.h>

static _Alignas(8) unsigned char mem[1 << 20];

/* Interval i holds keys {i % 3, 10 + i % 5} (sorted), count i + 1 each. */
static uint32_t make(uint64_t i, hp_ivt_entry *e)
{
    e[0] = (hp_ivt_entry){i % 3, i + 1, 0, 1, 0};
    e[1] = (hp_ivt_entry){10 + i % 5, i + 1, i + 1, 1, 1};
    return 2;
}

/* Hits of key over the whole timeline. */
static uint64_t hits_of(const hp_ivt *t, uint64_t key)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < t->nentries; i++) h += t->pool[i].key == key ? t->pool[i].hw_hits : 0;
    return h;
}

static int slots_consistent(const hp_ivt *t)
{
    uint64_t next = 0, off = 0, events = 0;
    for (uint32_t i = 0; i < t->nslots; i++) {
        const hp_ivt_slot *s = &t->slots[i];
        if (s->first != next || s->off != off) return 0;
        for (uint32_t j = 1; j < s->n; j++)
            if (t->pool[s->off + j].key <= t->pool[s->off + j - 1].key) return 0;
        next += s->span, off += s->n, events += s->events;
    }
    return off == t->nentries && next == t->intervals - t->dropped && events == 100 * next;
}

TEST(below_the_bounds_one_slot_per_interval)
{
    hp_ivt *t = hp_ivt_init(mem, sizeof mem, 64, 1024);
    hp_ivt_entry e[2];
    REQUIRE(t != NULL);
    for (uint64_t i = 0; i < 20; i++) CHECK(hp_ivt_append(t, 100, e, make(i, e)) == 0);
    CHECK_EQ_U64(t->nslots, 20);
    CHECK_EQ_U64(t->span, 1);
    CHECK(slots_consistent(t));
}

TEST(slot_bound_merges_pairwise_and_keeps_hits)
{
    hp_ivt *t = hp_ivt_init(mem, sizeof mem, 8, 4096);
    hp_ivt_entry e[2];
    uint64_t expect[16] = {0};
    REQUIRE(t != NULL);
    for (uint64_t i = 0; i < 100; i++) {
        CHECK(hp_ivt_append(t, 100, e, make(i, e)) == 0);
        expect[i % 3]++, expect[10 + i % 5]++;
    }
    CHECK(t->nslots <= 8);
    CHECK(t->span >= 16); /* 100 intervals in at most 8 slots */
    for (uint64_t k = 0; k < 16; k++) CHECK_EQ_U64(hits_of(t, k), expect[k]);
    CHECK(slots_consistent(t));
    for (uint32_t i = 0; i + 1 < t->nslots; i++) CHECK_EQ_U64(t->slots[i].span, t->span);
}

TEST(entry_bound_merges_too_and_drops_what_never_fits)
{
    hp_ivt *t = hp_ivt_init(mem, sizeof mem, 1000, 8); /* the 8 distinct keys fit once merged */
    hp_ivt_entry e[8];
    REQUIRE(t != NULL);
    for (uint64_t i = 0; i < 30; i++) CHECK(hp_ivt_append(t, 100, e, make(i, e)) == 0);
    CHECK(t->nentries <= 8);
    CHECK(t->span > 1);
    CHECK(slots_consistent(t));
    for (uint32_t k = 0; k < 7; k++) e[k] = (hp_ivt_entry){100 + k, 1, 0, 1, 0};
    CHECK(hp_ivt_append(t, 100, e, 7) == -1); /* 7 new keys can never fit beside 8 */
    CHECK_EQ_U64(t->dropped, 1);
}

TEST(section_round_trip_and_corruptions)
{
    static _Alignas(8) unsigned char buf[1 << 16];
    hp_ivt *t = hp_ivt_init(mem, sizeof mem, 8, 4096);
    hp_ivt_entry e[2];
    REQUIRE(t != NULL);
    for (uint64_t i = 0; i < 37; i++) hp_ivt_append(t, 100, e, make(i, e));
    hp_ivsec_head h = {.stream = HP_IV_EDGES, .flags = HP_IVSEC_EXACT, .seed = 5, .intervals = t->intervals,
                       .span = t->span, .nslots = t->nslots, .nentries = t->nentries, .nnames = 1};
    hp_iv_params d[HP_IV_NSTREAMS];
    hp_iv_defaults(d);
    h.p = d[HP_IV_EDGES], h.p.counter_bits = hp_iv_counter_bits(&h.p), h.T = hp_iv_threshold_count(&h.p);
    size_t len = 0;
    hp_ivsec_put_head(buf, &h), len += HP_IVSEC_HEAD_SIZE;
    for (uint32_t i = 0; i < t->nslots; i++) hp_ivsec_put_slot(buf + len, &t->slots[i]), len += HP_IVSEC_SLOT_SIZE;
    for (uint32_t i = 0; i < t->nentries; i++) hp_ivsec_put_entry(buf + len, &t->pool[i]), len += HP_IVSEC_ENTRY_SIZE;
    hp_ivsec_name nm = {7, 0x1000, 0x2000};
    hp_ivsec_put_name(buf + len, &nm), len += HP_IVSEC_NAME_SIZE;

    hp_ivsec_head g;
    const char *why = NULL;
    static hp_ivt_slot slots[64];
    static hp_ivt_entry entries[4096];
    hp_ivsec_name names[2];
    REQUIRE(hp_ivsec_get_head(buf, len, &g, &why) == 0);
    REQUIRE(hp_ivsec_get_body(buf, len, &g, slots, entries, names, &why) == 0);
    CHECK_EQ_U64(g.nslots, t->nslots);
    CHECK_EQ_U64(g.T, h.T);
    CHECK(g.p.threshold == h.p.threshold);
    CHECK(memcmp(entries, t->pool, t->nentries * sizeof *entries) == 0);
    CHECK_EQ_U64(names[0].b, 0x2000);

    CHECK(hp_ivsec_get_head(buf, len - 1, &g, &why) == -1); /* truncated */
    unsigned char saved = buf[0];
    buf[0] = 9; /* stream 9 */
    CHECK(hp_ivsec_get_head(buf, len, &g, &why) == -1);
    buf[0] = saved;
    saved = buf[8];
    buf[8] = 3; /* tables 3 do not divide 2048 counters */
    CHECK(hp_ivsec_get_head(buf, len, &g, &why) == -1);
    buf[8] = saved;
    size_t first_entry = HP_IVSEC_HEAD_SIZE + t->nslots * HP_IVSEC_SLOT_SIZE;
    unsigned char key_copy[8];
    memcpy(key_copy, buf + first_entry, 8);
    memcpy(buf + first_entry, buf + first_entry + HP_IVSEC_ENTRY_SIZE, 8); /* two equal keys in a slot */
    REQUIRE(hp_ivsec_get_head(buf, len, &g, &why) == 0);
    CHECK(hp_ivsec_get_body(buf, len, &g, slots, entries, names, &why) == -1);
    memcpy(buf + first_entry, key_copy, 8);
    CHECK(hp_ivsec_get_body(buf, len, &g, slots, entries, names, &why) == 0);
    CHECK_EQ_U64(g.p.variant, HP_MH_VARIANT_PAPER); /* no trailer: the paper's design, as before variants */
    CHECK_EQ_U64(g.acc_entries, 100);
    CHECK_EQ_U64(g.counters_used, 2048);
}

/* A variant's trailer: round trip, and its sizes must be what the design gives. */
TEST(section_variant_trailer)
{
    static _Alignas(8) unsigned char buf[1 << 12];
    hp_iv_params d[HP_IV_NSTREAMS];
    hp_iv_defaults(d);
    hp_ivsec_head h = {.stream = HP_IV_VALUE, .flags = HP_IVSEC_VARIANT, .seed = 5, .span = 1};
    h.p = d[HP_IV_VALUE], h.p.variant = HP_MH_VARIANT_HALF;
    h.p.counter_bits = hp_iv_counter_bits(&h.p), h.T = hp_iv_threshold_count(&h.p);
    h.acc_entries = 25, h.counters_used = 1308; /* docs/intervals.md: half at 1% */
    size_t len = hp_ivsec_put_head(buf, &h);
    CHECK_EQ_U64(len, HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE);
    hp_ivsec_head g;
    const char *why = NULL;
    REQUIRE(hp_ivsec_get_head(buf, len, &g, &why) == 0);
    CHECK_EQ_U64(g.p.variant, HP_MH_VARIANT_HALF);
    CHECK_EQ_U64(g.acc_entries, 25);
    CHECK_EQ_U64(g.counters_used, 1308);
    CHECK_EQ_U64(g.head_len, len);
    CHECK(hp_ivsec_get_body(buf, len, &g, NULL, NULL, NULL, &why) == 0);
    CHECK(hp_ivsec_get_head(buf, len - 1, &g, &why) == -1); /* truncated trailer */
    buf[HP_IVSEC_HEAD_SIZE + 8] ^= 1;                       /* counters in use not the design's */
    CHECK(hp_ivsec_get_head(buf, len, &g, &why) == -1 && strstr(why, "do not match"));
    buf[HP_IVSEC_HEAD_SIZE + 8] ^= 1;
    buf[HP_IVSEC_HEAD_SIZE] = 7; /* unknown variant */
    CHECK(hp_ivsec_get_head(buf, len, &g, &why) == -1 && strstr(why, "bad variant"));
    buf[HP_IVSEC_HEAD_SIZE] = HP_MH_VARIANT_PAPER; /* paper never has a trailer */
    CHECK(hp_ivsec_get_head(buf, len, &g, &why) == -1);
}

int main(void)
{
    RUN(below_the_bounds_one_slot_per_interval);
    RUN(section_variant_trailer);
    RUN(slot_bound_merges_pairwise_and_keeps_hits);
    RUN(entry_bound_merges_too_and_drops_what_never_fits);
    RUN(section_round_trip_and_corruptions);
    return test_main_end();
}

/* test_osp_count.c — count-triggered segment sampling (core/control/osp_count.h) against exact
 * counts of a synthetic block stream with boundary events:
 *   - each event triggers with probability 1/S (geometric gaps);
 *   - the mean of weight / p_length over many seeds equals the exact count of the hot subpaths
 *     (every window of length 2, 4, 8), with S changing between triggers (adaptation);
 *   - pending subpaths run past the segment's end; a cut drops them and counts them.
 */
#include <math.h>
#include <string.h>
#include "core/base/rng.h"
#include "core/control/osp_count.h"
#include "core/ptype/subpath.h"
#include "core/summary/osplist.h"
#include "test.h"

static hp_osp_count g_c;

TEST(events_trigger_with_probability_one_over_S)
{
    hp_osp_count_init(&g_c, 3, 20);
    uint64_t n = 400000, trig = 0;
    for (uint64_t i = 0; i < n; i++) {
        hp_osp_count_events(&g_c, 1, 20);
        trig += g_c.starting;
    }
    CHECK_NEAR((double)trig / (double)n, 1.0 / 20, 0.05 / 20);
    /* elapsed > 1 lands exactly on the trigger */
    hp_osp_count_init(&g_c, 4, 50);
    uint64_t left = g_c.left;
    hp_osp_count_events(&g_c, left, 50);
    CHECK(g_c.starting == 1);
}

/* The synthetic program of test_osp.c: a loop of blocks 1..9; an event (back-edge) before block
 * 1, another (a call) before block 7. */
static uint32_t next_block(uint32_t b, hp_rng *r)
{
    switch (b) {
    case 1: return 2;
    case 2: return hp_rng_below(r, 4) ? 3 : 4;
    case 3: return 5;
    case 4: return 5;
    case 5: return hp_rng_below(r, 10) ? 6 : 7;
    case 6: return 1;
    case 7: return hp_rng_below(r, 2) ? 8 : 9;
    case 8: return 1;
    default: return 1;
    }
}
static int event_before(uint32_t b) { return b == 1 || b == 7; }

#define SN 60000
static uint32_t g_stream[SN];

static void offer(void *ctx, uint32_t *ids, uint32_t length, double weight, double p)
{
    hp_osp_list *l = ctx;
    hp_osp_list_offer(l, hp_subpath_key(HP_SUBPATH_ENC_XOR, ids, length), length, ids, weight, p);
}

/* One seeded run over the stream into l (S alternates between two values at each trigger). */
static void run_seed(hp_osp_list *l, uint64_t seed, const hp_osp_lawp *law)
{
    double S[2] = {6, 15};
    int k = 0;
    hp_osp_count_init(&g_c, seed, S[0]);
    for (size_t i = 0; i < SN; i++) {
        if (event_before(g_stream[i]) && hp_osp_count_events(&g_c, 1, S[k]) && g_c.starting) k ^= 1;
        if (hp_osp_count_on(&g_c)) hp_osp_count_block(&g_c, g_stream[i], law, offer, l);
    }
}

TEST(estimates_are_unbiased)
{
    static uint8_t exmem[1 << 20], smem[1 << 20];
    hp_rng r;
    hp_rng_seed(&r, 6);
    g_stream[0] = 1;
    for (size_t i = 1; i < SN; i++) g_stream[i] = next_block(g_stream[i - 1], &r);
    hp_osp_list *ex = hp_osp_list_init(exmem, sizeof exmem, 1, 0);
    REQUIRE(ex);
    for (uint32_t len = 2; len <= 8; len *= 2)
        for (size_t i = 0; i + len <= SN; i++) {
            int ok = hp_osp_list_add(ex, hp_subpath_key(HP_SUBPATH_ENC_XOR, g_stream + i, len), len, NULL, 1, 1, 1);
            REQUIRE(ok);
        }
    hp_osp_lawp law;
    hp_osp_law_init(&law, HP_OSP_LEN_POW2, 8);
    enum { SEEDS = 60, HOT = 8 };
    double est[HOT] = {0};
    const hp_osp_entry *hot[HOT];
    for (int h = 0; h < HOT; h++) { /* the HOT hottest exact subpaths */
        hot[h] = NULL;
        for (uint32_t i = 0; i < ex->n; i++) {
            int taken = 0;
            for (int g = 0; g < h; g++) taken |= hot[g] == &ex->e[i];
            if (!taken && (!hot[h] || ex->e[i].count > hot[h]->count)) hot[h] = &ex->e[i];
        }
    }
    for (int seed = 0; seed < SEEDS; seed++) {
        hp_osp_list *l = hp_osp_list_init(smem, sizeof smem, 100 + (uint64_t)seed, 0);
        REQUIRE(l);
        run_seed(l, 1000 + (uint64_t)seed, &law);
        CHECK(l->thinnings == 0);
        for (int h = 0; h < HOT; h++) {
            const hp_osp_entry *e = hp_osp_list_find(l, hot[h]->key);
            if (e) est[h] += e->weight / e->p_length / SEEDS;
        }
    }
    for (int h = 0; h < HOT; h++) {
        double err = est[h] / (double)hot[h]->count - 1;
        CHECK(fabs(err) <= 0.03);
        if (fabs(err) > 0.03)
            fprintf(stderr, "  subpath %d (length %u): exact %llu, mean estimate %.1f\n", h, hot[h]->length,
                    (unsigned long long)hot[h]->count, est[h]);
    }
}

static uint32_t g_done_len[16], g_ndone;
static void note(void *ctx, uint32_t *ids, uint32_t length, double weight, double p)
{
    (void)ctx, (void)ids, (void)weight, (void)p;
    if (g_ndone < 16) g_done_len[g_ndone++] = length;
}

TEST(pending_subpaths_outlive_their_segment_and_cuts_drop_them)
{
    hp_osp_lawp law;
    hp_osp_law_init(&law, HP_OSP_LEN_UNIFORM, 32);
    hp_osp_count_init(&g_c, 9, 1); /* S = 1: every event triggers */
    g_ndone = 0;
    CHECK(hp_osp_count_events(&g_c, 1, 1) == 1);
    hp_osp_count_block(&g_c, 5, &law, note, NULL); /* one start */
    uint32_t L = g_c.pend[0].length;
    CHECK(g_c.npend == 1 && L >= 2);
    g_c.left = 1000; /* the next event does not trigger */
    CHECK(hp_osp_count_events(&g_c, 1, 1) == 1); /* pending: still on */
    for (uint32_t k = 1; k < L; k++) hp_osp_count_block(&g_c, 6, &law, note, NULL);
    CHECK(g_ndone == 1 && g_done_len[0] == L && !hp_osp_count_on(&g_c));
    g_c.left = 1;
    hp_osp_count_events(&g_c, 1, 1);
    hp_osp_count_block(&g_c, 7, &law, note, NULL);
    hp_osp_count_block(&g_c, 8, &law, note, NULL);
    uint32_t pending = g_c.npend;
    CHECK(pending >= 1 && hp_osp_count_cut(&g_c) == pending && g_c.cuts == pending && !hp_osp_count_on(&g_c));
}

int main(void)
{
    RUN(events_trigger_with_probability_one_over_S);
    RUN(estimates_are_unbiased);
    RUN(pending_subpaths_outlive_their_segment_and_cuts_drop_them);
    return test_main_end();
}

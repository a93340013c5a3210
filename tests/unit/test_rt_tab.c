/* test_rt_tab.c — runtime/tab.c, the per-thread hash table (hp_tab), linked alone
 * (libhotprof_rtparts.a), against an exhaustive count (property test):
 *   - after any sequence of hp_tab_get + increments, every key's slot holds exactly the number of
 *     times it was counted, each key has one slot, `used` is the number of distinct keys, and the
 *     load stays <= 1/2 with a power-of-two capacity (growth happened as needed);
 *   - a table that grew leaves its old block intact and readable: every key in it is also in the
 *     new one with a count at least as large (what a concurrent reader relies on);
 *   - hp_tab_zero_counts keeps the keys and zeroes the counts.
 * Keys come from a fixed-seed generator with heavy repetition (Zipf-like: a few hot keys), and
 * k2 varies independently so that (k1, k2) pairs sharing a k1 are distinct keys.
 */
#include <string.h>
#include "core/base/rng.h"
#include "runtime/tab.h"
#include "test.h"

#define MAXKEYS 5000

typedef struct { uint64_t k1, k2, n; } ref_key;

/* The exhaustive count: a plain array, searched linearly (slow, obviously right). */
static ref_key g_ref[MAXKEYS];
static size_t g_nref;

static void ref_add(uint64_t k1, uint64_t k2)
{
    for (size_t i = 0; i < g_nref; i++)
        if (g_ref[i].k1 == k1 && g_ref[i].k2 == k2) { g_ref[i].n++; return; }
    g_ref[g_nref++] = (ref_key){k1, k2, 1};
}

static const hp_slot *tab_find(const hp_tab *t, uint64_t k1, uint64_t k2, int *copies)
{
    const hp_slot *found = NULL;
    *copies = 0;
    for (uint64_t i = 0; i <= t->mask; i++)
        if (t->s[i].k1 == k1 && t->s[i].k2 == k2) found = &t->s[i], (*copies)++;
    return found;
}

static void check_against_ref(const hp_tab *t)
{
    uint64_t live = 0;
    for (uint64_t i = 0; i <= t->mask; i++) live += t->s[i].k1 != 0;
    CHECK_EQ_U64(live, g_nref);
    CHECK_EQ_U64(t->used, g_nref);
    CHECK(((t->mask + 1) & t->mask) == 0);
    CHECK(2 * t->used <= t->mask + 1);
    int bad = 0;
    for (size_t i = 0; i < g_nref; i++) {
        int copies;
        const hp_slot *s = tab_find(t, g_ref[i].k1, g_ref[i].k2, &copies);
        if (!s || copies != 1 || s->v1 != g_ref[i].n || s->v2 != 2 * g_ref[i].n) bad++;
    }
    CHECK_EQ_U64(bad, 0);
}

TEST(counts_match_an_exhaustive_count)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        hp_rng r;
        hp_rng_seed(&r, seed);
        hp_tab *t = hp_tab_new(HP_TAB_INITIAL);
        REQUIRE(t);
        g_nref = 0;
        uint64_t distinct = 50 + 700 * seed; /* from no growth to several */
        for (int e = 0; e < 40000; e++) {
            uint64_t a = hp_rng_below(&r, distinct), b = hp_rng_below(&r, distinct);
            uint64_t k = a < b ? a : b; /* skewed towards small ids: hot keys */
            uint64_t k1 = 1 + k / 3, k2 = k % 3 ? 0x400000 + k : 0;
            hp_slot *s = hp_tab_get(&t, k1, k2);
            s->v1++;
            s->v2 += 2;
            ref_add(k1, k2);
        }
        check_against_ref(t);
    }
}

TEST(an_old_block_stays_readable_after_growth)
{
    hp_tab *t = hp_tab_new(HP_TAB_INITIAL);
    REQUIRE(t);
    g_nref = 0;
    hp_tab *first = t;
    for (uint64_t k = 1; k <= 20; k++) { /* fills the first block to 20/64 */
        for (uint64_t n = 0; n < k; n++) hp_tab_get(&t, k, 7)->v1++;
    }
    REQUIRE(t == first);
    for (uint64_t k = 21; k <= 400; k++) hp_tab_get(&t, k, 7)->v1++;
    CHECK(t != first);
    CHECK(t->mask + 1 >= 1024);
    int missing = 0;
    for (uint64_t i = 0; i <= first->mask; i++) {
        if (!first->s[i].k1) continue;
        int copies;
        const hp_slot *s = tab_find(t, first->s[i].k1, first->s[i].k2, &copies);
        if (!s || copies != 1 || s->v1 < first->s[i].v1) missing++;
    }
    CHECK_EQ_U64(missing, 0);
    CHECK_EQ_U64(first->used, 32); /* grew when the 33rd key came: load would pass 1/2 */
}

TEST(zero_counts_keeps_keys)
{
    hp_tab *t = hp_tab_new(HP_TAB_INITIAL);
    REQUIRE(t);
    for (uint64_t k = 1; k <= 100; k++) hp_tab_get(&t, k, k)->v1 += k, hp_tab_get(&t, k, k)->v2 += 1;
    hp_tab_zero_counts(t);
    uint64_t keys = 0, sum = 0;
    for (uint64_t i = 0; i <= t->mask; i++) keys += t->s[i].k1 != 0, sum += t->s[i].v1 + t->s[i].v2;
    CHECK_EQ_U64(keys, 100);
    CHECK_EQ_U64(sum, 0);
    CHECK_EQ_U64(hp_tab_get(&t, 50, 50)->v1, 0);
    CHECK_EQ_U64(t->used, 100);
    CHECK_EQ_U64(hp_tab_bytes(t), sizeof(hp_tab) + (t->mask + 1) * sizeof(hp_slot));
}

int main(void)
{
    RUN(counts_match_an_exhaustive_count);
    RUN(an_old_block_stays_readable_after_growth);
    RUN(zero_counts_keeps_keys);
    return test_main_end();
}

/* test_interp_vgm.c — the value hot-list (core/summary/value_gm.h) against exhaustive counts:
 * exact while it never overflows; with a skewed stream (one value 90%, one 5%, a 5% tail of 5000
 * values) the estimated shares (count * tau / captures) of the top values are within 10 points of
 * the truth for each of 16 seeds (tau reaches ~150-250 after 50000 captures: one estimate's
 * relative error is ~6%) and their mean over the seeds within 2 points (unbiased); at most 16
 * entries; sorted highest first. */
#include "core/summary/value_gm.h"
#include "test.h"

static uint64_t lcg(uint64_t *s) { return (*s = *s * 6364136223846793005ull + 1442695040888963407ull) >> 33; }

TEST(exact_while_small)
{
    hp_vgm g;
    hp_vgm_init(&g, 1);
    for (int i = 0; i < 1000; i++) hp_vgm_add(&g, (uint64_t)(i % 10));
    hp_vgm_entry out[HP_VGM_N];
    uint32_t n = hp_vgm_sorted(&g, out);
    CHECK_EQ_U64(n, 10);
    CHECK(g.tau == 1.0);
    CHECK_EQ_U64(g.captures, 1000);
    for (uint32_t i = 0; i < n; i++) CHECK_EQ_U64(out[i].count, 100);
}

TEST(skewed_shares)
{
    double sum7 = 0, sum9 = 0, true7 = 0, true9 = 0;
    for (uint64_t seed = 1; seed <= 16; seed++) {
        hp_vgm g;
        hp_vgm_init(&g, seed);
        uint64_t s = seed * 77, n7 = 0, n9 = 0, total = 50000;
        for (uint64_t i = 0; i < total; i++) {
            uint64_t r = lcg(&s) % 100, v = r < 90 ? 7 : r < 95 ? 9 : 1000 + lcg(&s) % 5000;
            n7 += v == 7;
            n9 += v == 9;
            hp_vgm_add(&g, v);
        }
        hp_vgm_entry out[HP_VGM_N];
        uint32_t n = hp_vgm_sorted(&g, out);
        CHECK(n <= HP_VGM_N);
        CHECK(g.tau > 1.0);
        REQUIRE(n >= 2);
        CHECK_EQ_U64(out[0].value, 7);
        CHECK_EQ_U64(out[1].value, 9);
        double s7 = out[0].count * g.tau / (double)g.captures, s9 = out[1].count * g.tau / (double)g.captures;
        CHECK_NEAR(s7, (double)n7 / total, 0.10);
        CHECK_NEAR(s9, (double)n9 / total, 0.10);
        for (uint32_t i = 1; i < n; i++) CHECK(out[i - 1].count >= out[i].count);
        sum7 += s7, sum9 += s9, true7 += (double)n7 / total, true9 += (double)n9 / total;
    }
    CHECK_NEAR(sum7 / 16, true7 / 16, 0.02);
    CHECK_NEAR(sum9 / 16, true9 / 16, 0.02);
}

int main(void)
{
    RUN(exact_while_small);
    RUN(skewed_shares);
    return test_main_end();
}

/* test_diff.c — hp_diff_join (analysis/diff.h) on synthetic named rows: names merge within a side
 * and match across sides, one-sided entries get 0 on the other side, shares are percents of each
 * side's total, rows sort by |delta| then name, and a table joined with itself has no change.
 */
#include "analysis/diff.h"
#include "test.h"
#include <math.h>
#include <string.h>

static void add(hp_fold *f, const char *name, uint64_t count)
{
    const char *frames[1] = {name};
    int rc = hp_fold_add(f, frames, 1, count);
    CHECK(rc == 0);
}

static const hp_diff_row *find(const hp_diff_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].name, name)) return &t->rows[i];
    return NULL;
}

TEST(join_matches_names_and_fills_one_sided_rows)
{
    hp_fold a, b;
    hp_diff_table t;
    hp_fold_init(&a), hp_fold_init(&b);
    add(&a, "f", 30), add(&a, "g", 50), add(&a, "f", 20); /* f merges to 50 */
    add(&b, "g", 25), add(&b, "h", 75);
    int rc = hp_diff_join(&a, &b, &t);
    REQUIRE(rc == 0);
    CHECK(t.n == 3 && t.n_a == 2 && t.n_b == 2 && t.n_common == 1);
    CHECK_EQ_U64(t.total_a, 100);
    CHECK_EQ_U64(t.total_b, 100);
    const hp_diff_row *f = find(&t, "f"), *g = find(&t, "g"), *h = find(&t, "h");
    REQUIRE(f && g && h);
    CHECK(f->count_a == 50 && f->count_b == 0 && fabs(f->delta + 50) < 1e-9);
    CHECK(g->count_a == 50 && g->count_b == 25 && fabs(g->share_b - 25) < 1e-9 && fabs(g->delta + 25) < 1e-9);
    CHECK(h->count_a == 0 && h->count_b == 75 && fabs(h->delta - 75) < 1e-9);
    CHECK(!strcmp(t.rows[0].name, "h") && !strcmp(t.rows[1].name, "f") && !strcmp(t.rows[2].name, "g"));
    CHECK(!hp_diff_unchanged(&t));
    hp_diff_table_free(&t);
    hp_fold_free(&a), hp_fold_free(&b);
}

TEST(equal_changes_sort_by_name_and_self_join_is_unchanged)
{
    hp_fold a, b;
    hp_diff_table t;
    hp_fold_init(&a), hp_fold_init(&b);
    const char *names[3] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) add(&a, names[i], 10 + (uint64_t)i), add(&b, names[i], 10 + (uint64_t)i);
    int rc = hp_diff_join(&a, &b, &t);
    REQUIRE(rc == 0);
    CHECK(t.n == 3 && t.n_common == 3 && hp_diff_unchanged(&t));
    CHECK(!strcmp(t.rows[0].name, "alpha") && !strcmp(t.rows[2].name, "zeta"));
    for (size_t i = 0; i < t.n; i++) CHECK(t.rows[i].delta == 0.0 && t.rows[i].count_a == t.rows[i].count_b);
    hp_diff_table_free(&t);
    hp_fold_free(&a), hp_fold_free(&b);
}

TEST(empty_sides_have_zero_shares)
{
    hp_fold a, b;
    hp_diff_table t;
    hp_fold_init(&a), hp_fold_init(&b);
    add(&b, "only_b", 7);
    int rc = hp_diff_join(&a, &b, &t);
    REQUIRE(rc == 0);
    CHECK(t.n == 1 && t.n_common == 0 && t.total_a == 0);
    CHECK(t.rows[0].share_a == 0.0 && fabs(t.rows[0].share_b - 100) < 1e-9);
    hp_diff_table_free(&t);
    hp_fold_free(&a), hp_fold_free(&b);
}

int main(void)
{
    RUN(join_matches_names_and_fills_one_sided_rows);
    RUN(equal_changes_sort_by_name_and_self_join_is_unchanged);
    RUN(empty_sides_have_zero_shares);
    return test_main_end();
}

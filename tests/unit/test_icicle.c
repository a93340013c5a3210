/* test_icicle.c — the icicle construction (analysis/html/icicle.h) on random small call graphs,
 * checked against an exhaustive model: the top frame is the sum of the self weights; children
 * never exceed their parent and lie inside it; no function appears twice on a path (recursion
 * cut, self-calls and cycles included); the depth cap holds; and on acyclic graphs with no cut,
 * every function's exclusive width summed over its frames equals its self weight, and every
 * frame's width equals the model's product of caller shares along its path times I(node), with
 * I computed by plain recursion over all paths.
 */
#include "analysis/html/icicle.h"
#include "test.h"
#include <string.h>

#define MAXN 8
#define MAXE 24
#define EPS 1e-9

typedef struct model { size_t n, ne; double self[MAXN]; hp_icicle_edge e[MAXE]; } model;

static uint64_t next(uint64_t *s) { *s = *s * 6364136223846793005ull + 1442695040888963407ull; return *s >> 33; }

/* A random graph; acyclic: edges only from a lower to a higher index (duplicates allowed). */
static void random_graph(model *m, uint64_t *seed, int acyclic)
{
    m->n = 2 + next(seed) % (MAXN - 1);
    m->ne = next(seed) % MAXE;
    for (size_t i = 0; i < m->n; i++) m->self[i] = (double)(next(seed) % 50);
    for (size_t i = 0; i < m->ne; i++) {
        size_t a = next(seed) % m->n, b = next(seed) % m->n;
        if (acyclic && a >= b) { if (a == b) b = (a + 1) % m->n; if (a > b) { size_t t = a; a = b; b = t; } }
        m->e[i] = (hp_icicle_edge){a, b, (double)(1 + next(seed) % 9)};
    }
}

static double in_count(const model *m, size_t v)
{
    double s = 0;
    for (size_t i = 0; i < m->ne; i++)
        if (m->e[i].callee == v && m->e[i].caller != v) s += m->e[i].count;
    return s;
}

static double count_of(const model *m, size_t u, size_t v)
{
    double s = 0;
    for (size_t i = 0; i < m->ne; i++)
        if (m->e[i].caller == u && m->e[i].callee == v) s += m->e[i].count;
    return s;
}

/* The model's inclusive weight on an acyclic graph: plain recursion over every path. */
static double model_incl(const model *m, size_t u)
{
    double s = m->self[u];
    for (size_t v = 0; v < m->n; v++) {
        double c = v != u ? count_of(m, u, v) : 0;
        if (c > 0) s += c / in_count(m, v) * model_incl(m, v);
    }
    return s;
}

static double sum_self(const model *m)
{
    double s = 0;
    for (size_t i = 0; i < m->n; i++) s += m->self[i];
    return s;
}

/* Structural invariants that hold on any graph and any cut. */
static void check_structure(const hp_icicle *ic, const model *m, int max_depth)
{
    double child_sum[20001] = {0};
    REQUIRE(ic->n >= 1 && ic->n <= 20000);
    CHECK(fabs(ic->total - sum_self(m)) <= EPS * (1 + ic->total));
    for (size_t i = 1; i < ic->n; i++) {
        const hp_icicle_frame *f = &ic->frames[i], *p = &ic->frames[f->parent];
        CHECK(f->parent < i && f->depth == p->depth + 1 && f->depth <= max_depth);
        CHECK(f->x >= p->x - EPS && f->x + f->width <= p->x + p->width + EPS * (1 + ic->total));
        child_sum[f->parent] += f->width;
        for (size_t a = f->parent; a != 0 && a != HP_ICICLE_TOP; a = ic->frames[a].parent)
            CHECK(ic->frames[a].node != f->node); /* recursion cut */
    }
    for (size_t i = 0; i < ic->n; i++) CHECK(child_sum[i] <= ic->frames[i].width + EPS * (1 + ic->total));
}

TEST(random_graphs_keep_the_invariants)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 400; round++) {
        model m;
        hp_icicle ic;
        hp_icicle_opts o = {1 + round % 6, round % 2 ? 0.01 : 0.0, 20000};
        random_graph(&m, &seed, 0);
        int rc = hp_icicle_build(m.n, m.self, m.e, m.ne, &o, &ic);
        REQUIRE(rc == 0);
        check_structure(&ic, &m, o.max_depth);
        hp_icicle_free(&ic);
    }
}

/* Model width of frame i: the product of the shares along its path times I(node). */
static double model_width(const hp_icicle *ic, const model *m, size_t i)
{
    double w = model_incl(m, ic->frames[i].node);
    for (size_t c = i; ic->frames[c].parent != 0; c = ic->frames[c].parent) {
        size_t v = ic->frames[c].node, u = ic->frames[ic->frames[c].parent].node;
        w *= count_of(m, u, v) / in_count(m, v);
    }
    return w;
}

TEST(acyclic_graphs_match_the_exhaustive_model)
{
    uint64_t seed = 777;
    for (int round = 0; round < 300; round++) {
        model m;
        hp_icicle ic;
        hp_icicle_opts o = {64, 0.0, 20000};
        double excl[MAXN] = {0};
        random_graph(&m, &seed, 1);
        int rc = hp_icicle_build(m.n, m.self, m.e, m.ne, &o, &ic);
        REQUIRE(rc == 0);
        check_structure(&ic, &m, o.max_depth);
        for (size_t u = 0; u < m.n; u++) CHECK(fabs(ic.inclusive[u] - model_incl(&m, u)) <= 1e-6);
        for (size_t i = 1; i < ic.n; i++) {
            excl[ic.frames[i].node] += ic.frames[i].width;
            if (ic.frames[i].parent) excl[ic.frames[ic.frames[i].parent].node] -= ic.frames[i].width;
            CHECK(fabs(ic.frames[i].width - model_width(&ic, &m, i)) <= 1e-6);
        }
        for (size_t u = 0; u < m.n; u++) CHECK(fabs(excl[u] - m.self[u]) <= 1e-6);
        hp_icicle_free(&ic);
    }
}

TEST(recursion_is_cut_and_weight_kept)
{
    /* main(0) -> f(1) -> f (self-call) ; f -> g(2) -> f (mutual recursion) */
    double self[3] = {1, 10, 5};
    hp_icicle_edge e[] = {{0, 1, 1}, {1, 1, 100}, {1, 2, 50}, {2, 1, 49}};
    hp_icicle ic;
    hp_icicle_opts o = {48, 0.0, 20000};
    int rc = hp_icicle_build(3, self, e, 4, &o, &ic);
    REQUIRE(rc == 0);
    CHECK_NEAR(ic.total, 16, 1e-12);
    CHECK_EQ_U64(ic.n, 4); /* all, main, f, g: the edge g -> f is a back edge */
    CHECK(ic.n == 4 && ic.frames[1].node == 0 && ic.frames[2].node == 1 && ic.frames[3].node == 2);
    if (ic.n == 4) CHECK_NEAR(ic.frames[3].width, 5, 1e-12);
    hp_icicle_free(&ic);
}

TEST(empty_graph_has_only_the_top_frame)
{
    hp_icicle ic;
    hp_icicle_opts o = HP_ICICLE_DEFAULT_OPTS;
    int rc = hp_icicle_build(0, NULL, NULL, 0, &o, &ic);
    REQUIRE(rc == 0);
    CHECK_EQ_U64(ic.n, 1);
    CHECK(ic.total == 0);
    hp_icicle_free(&ic);
}

int main(void)
{
    RUN(random_graphs_keep_the_invariants);
    RUN(acyclic_graphs_match_the_exhaustive_model);
    RUN(recursion_is_cut_and_weight_kept);
    RUN(empty_graph_has_only_the_top_frame);
    return test_main_end();
}

/* test_merge.c — `hotprof merge` (analysis/merge/) against a naive model on random inputs: each
 * input loads some of a few modules (identified by build-id) at its own bases — two identities may
 * take one address range in different inputs — and records funcs, call pairs (return addresses,
 * one at its module's very end), blocks and edges keyed by guards numbered per input (some not in
 * the block map), and a few addresses outside every module. The model sums every record by
 * (module, offset); the merged file, read back, must give the same sums by (module, offset) through
 * its own module list, with modules that do not overlap. Also: counts saturate; bursty events and
 * sampled add up; refusals (modes, sampling parameters, builds) and --force.
 */
#define _GNU_SOURCE
#include "analysis/merge/merge.h"
#include "analysis/profbuild.h"
#include "core/base/rng.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

#define NMOD 4
#define MOD_SIZE 0x10000u
#define SLOT 0x1000000ull
#define OUTSIDE_TAG ((uint64_t)0xFF << 40)
#define UNMAPPED_TAG ((uint64_t)0xFE << 40)
#define NGUARD 24

static const char *const mod_path[NMOD] = {"/bin/prog", "/lib/liba.so", "/lib/libb.so", "/lib/libc.so"};
static uint8_t mod_id[NMOD][20];

typedef struct model {
    hp_pairmap funcs, pairs, blocks, edges;
    uint64_t events;
} model;

typedef struct input_spec {
    uint64_t base[NMOD]; /* 0: not loaded */
    uint64_t guard_pc[NGUARD + 1];   /* 0: not in the block map */
    uint64_t guard_key[NGUARD + 1];  /* model key of the guard */
} input_spec;

static void init_ids(void)
{
    for (int m = 0; m < NMOD; m++)
        for (int k = 0; k < 20; k++) mod_id[m][k] = (uint8_t)(m * 31 + k * 7 + 1);
}

static uint64_t key_of(int m, uint64_t off) { return ((uint64_t)m << 40) | off; }

/* A random address of input s: in a loaded module (returns its model key in *key) or outside. */
static uint64_t random_addr(hp_rng *r, const input_spec *s, uint64_t *key)
{
    int m = (int)hp_rng_below(r, NMOD);
    if (hp_rng_below(r, 12) == 0 || !s->base[m]) {
        uint64_t a = 0x1000 + 16 * hp_rng_below(r, 4);
        *key = OUTSIDE_TAG | a;
        return a;
    }
    uint64_t off = 16 * hp_rng_below(r, 48);
    *key = key_of(m, off);
    return s->base[m] + off;
}

static void add(hp_pairmap *map, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b)
{
    hp_pair_item *it = hp_pairmap_get(map, k1, k2);
    it->v1 = hp_sat_add(it->v1, a), it->v2 = hp_sat_add(it->v2, b);
}

static void place_modules(hp_rng *r, input_spec *s, hp_pbuild *b)
{
    int slots[NMOD + 2] = {1, 2, 3, 4, 5, 6};
    for (int k = NMOD + 1; k > 0; k--) { /* a random permutation: different inputs, other slots */
        int j = (int)hp_rng_below(r, (uint64_t)k + 1), t = slots[k];
        slots[k] = slots[j], slots[j] = t;
    }
    for (int m = 0; m < NMOD; m++) {
        s->base[m] = m == 0 || hp_rng_below(r, 3) ? SLOT * (uint64_t)slots[m] + 0x1000 * hp_rng_below(r, 16) : 0;
        if (s->base[m]) hp_pbuild_module(b, s->base[m], s->base[m], s->base[m] + MOD_SIZE, mod_path[m], mod_id[m], 20);
    }
}

static void make_guards(hp_rng *r, input_spec *s, hp_pbuild *b)
{
    hp_rec_block map[NGUARD];
    size_t n = 0;
    for (uint32_t g = 1; g <= NGUARD; g++) {
        uint64_t key, pc = random_addr(r, s, &key);
        int mapped = hp_rng_below(r, 6) != 0 && (key & OUTSIDE_TAG) != OUTSIDE_TAG;
        s->guard_pc[g] = mapped ? pc : 0;
        s->guard_key[g] = mapped ? key : UNMAPPED_TAG;
        if (mapped) map[n++] = (hp_rec_block){g, (uint32_t)hp_rng_below(r, 2), pc};
    }
    if (n) hp_pbuild_blockmap(b, map, n);
}

static void records(hp_rng *r, const input_spec *s, hp_pbuild *b, model *mo)
{
    hp_rec_func f[20];
    hp_rec_callpair c[20];
    hp_rec_count k[20];
    hp_rec_edge e[20];
    uint64_t ka, kb;
    for (int i = 0; i < 20; i++) {
        f[i].addr = random_addr(r, s, &ka), f[i].calls = hp_rng_below(r, 1000), f[i].backedges = hp_rng_below(r, 50);
        if (i == 0) f[i].calls = UINT64_MAX - 5; /* saturates once two inputs add */
        add(&mo->funcs, ka, 0, f[i].calls, f[i].backedges);
        c[i].site = random_addr(r, s, &ka) + 16, c[i].callee = random_addr(r, s, &kb), c[i].count = hp_rng_below(r, 500);
        if (i == 1 && s->base[0]) c[i].site = s->base[0] + MOD_SIZE, ka = key_of(0, MOD_SIZE - 16); /* at hi */
        add(&mo->pairs, ka + 16, kb, c[i].count, 0);
        uint32_t g = 1 + (uint32_t)hp_rng_below(r, NGUARD), h = 1 + (uint32_t)hp_rng_below(r, NGUARD);
        k[i] = (hp_rec_count){g, 0, hp_rng_below(r, 300)};
        add(&mo->blocks, s->guard_key[g], 0, k[i].count, 0);
        e[i] = (hp_rec_edge){g, h, hp_rng_below(r, 300)};
        add(&mo->edges, s->guard_key[g], s->guard_key[h], e[i].count, 0);
    }
    hp_pbuild_funcs(b, f, 20), hp_pbuild_callpairs(b, c, 20), hp_pbuild_blocks(b, k, 20), hp_pbuild_edges(b, e, 20);
}

/* One random input profile, its records added to the model. */
static hp_profile *random_input(hp_rng *r, int n, model *mo)
{
    hp_pbuild b;
    input_spec s = {{0}, {0}, {0}};
    char name[32], err[256];
    hp_pbuild_init(&b, (uint64_t)n);
    hp_pbuild_info(&b, "program=/bin/prog\nmode=exhaustive\n");
    place_modules(r, &s, &b);
    make_guards(r, &s, &b);
    uint64_t events = 1 + hp_rng_below(r, 1000);
    mo->events += events;
    hp_pbuild_thread(&b, 100 + (uint64_t)n, events);
    records(r, &s, &b, mo);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    snprintf(name, sizeof name, "in%d.data", n);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, name, err, sizeof err);
    if (!p) fprintf(stderr, "  input %d: %s\n", n, err);
    hp_pbuild_free(&b);
    return p;
}

/* The model key of an output address (through the output's modules). */
static uint64_t out_key(const hp_profile *p, uint64_t addr, uint64_t back)
{
    const hp_module *m = hp_profile_module_at(p, addr - back);
    if (!m) return OUTSIDE_TAG | addr;
    for (int k = 0; k < NMOD; k++)
        if (strcmp(m->path, mod_path[k]) == 0) return key_of(k, addr - m->base);
    return ~0ull;
}

static uint64_t guard_key(const hp_profile *p, int mapped, uint64_t pc) { return mapped ? out_key(p, pc, 0) : UNMAPPED_TAG; }

/* The merged profile's records as model sums. */
static void model_of_output(const hp_profile *p, model *o)
{
    for (size_t i = 0; i < p->nfuncs; i++) add(&o->funcs, out_key(p, p->funcs[i].addr, 0), 0, p->funcs[i].calls, p->funcs[i].backedges);
    for (size_t i = 0; i < p->npairs; i++)
        add(&o->pairs, out_key(p, p->pairs[i].site, 1), out_key(p, p->pairs[i].callee, 0), p->pairs[i].count, 0);
    for (size_t i = 0; i < p->nblocks; i++) add(&o->blocks, guard_key(p, p->blocks[i].mapped, p->blocks[i].pc), 0, p->blocks[i].count, 0);
    for (size_t i = 0; i < p->nedges; i++) {
        const hp_edge_stat *e = &p->edges[i];
        add(&o->edges, guard_key(p, e->from_pc != 0, e->from_pc), guard_key(p, e->to_pc != 0, e->to_pc), e->count, 0);
    }
    for (size_t i = 0; i < p->nthreads; i++) o->events += p->threads[i].events;
}

/* Every entry of want is in got with the same values, and both hold as many. */
static int same_map(const hp_pairmap *want, const hp_pairmap *got)
{
    if (want->count != got->count) return fprintf(stderr, "  %zu keys, want %zu\n", got->count, want->count), 0;
    for (size_t i = 0; i < want->count; i++) {
        const hp_pair_item *w = &want->items[i], *g = hp_pairmap_find(got, w->k1, w->k2);
        if (!g || g->v1 != w->v1 || g->v2 != w->v2)
            return fprintf(stderr, "  key %#llx,%#llx differs\n", (unsigned long long)w->k1, (unsigned long long)w->k2), 0;
    }
    return 1;
}

static void free_model(model *m)
{
    hp_pairmap_free(&m->funcs), hp_pairmap_free(&m->pairs), hp_pairmap_free(&m->blocks), hp_pairmap_free(&m->edges);
}

static int modules_disjoint(const hp_profile *p)
{
    for (size_t i = 0; i < p->nmodules; i++)
        for (size_t j = i + 1; j < p->nmodules; j++)
            if (p->modules[i].lo < p->modules[j].hi && p->modules[j].lo < p->modules[i].hi) return 0;
    return 1;
}

/* Merges in[0..n) and reads the result back; NULL (err printed) on failure. */
static hp_profile *merge_and_read(hp_profile **in, size_t n, int force, char *err, size_t errlen)
{
    hp_pbuild out;
    char notes[4096], rerr[256];
    hp_merge_opts o = {.force = force, .extra_info = NULL, .status_from = NULL};
    if (hp_merge_profiles(in, n, &o, &out, err, errlen, notes, sizeof notes)) return NULL;
    hp_profile *p = hp_profile_read_mem(out.buf, out.len, "merged", rerr, sizeof rerr);
    if (!p) fprintf(stderr, "  merged: %s\n", rerr);
    hp_pbuild_free(&out);
    return p;
}

TEST(merge_equals_the_naive_model_on_random_inputs)
{
    init_ids();
    for (uint64_t seed = 1; seed <= 40; seed++) {
        hp_rng r;
        hp_rng_seed(&r, seed);
        model want = {0}, got = {0};
        hp_profile *in[5] = {0};
        size_t n = 1 + hp_rng_below(&r, 5);
        int ok = 1;
        for (size_t i = 0; i < n; i++) ok &= (in[i] = random_input(&r, (int)i, &want)) != NULL;
        REQUIRE(ok);
        char err[512];
        hp_profile *m = merge_and_read(in, n, 0, err, sizeof err);
        CHECK(m != NULL);
        if (m) {
            model_of_output(m, &got);
            CHECK(same_map(&want.funcs, &got.funcs));
            CHECK(same_map(&want.pairs, &got.pairs));
            CHECK(same_map(&want.blocks, &got.blocks));
            CHECK(same_map(&want.edges, &got.edges));
            CHECK_EQ_U64(got.events, want.events);
            CHECK(modules_disjoint(m));
            CHECK(m->nwarnings == 0);
            hp_profile_free(m);
        }
        free_model(&want), free_model(&got);
        for (size_t i = 0; i < n; i++) hp_profile_free(in[i]);
    }
}

/* A one-module bursty profile with the given sampling key and events / sampled of methods. */
static hp_profile *bursty(const char *mode, const char *sample, uint64_t events, uint64_t sampled, const uint8_t *id)
{
    hp_pbuild b;
    char info[256], group[256], err[256];
    hp_rec_func f = {0x5000 + 0x40, 7, 1};
    hp_pbuild_init(&b, 1);
    snprintf(info, sizeof info, "program=/bin/prog\nmode=%s\nsample.methods=%s\nsample.methods.enabled=1\n", mode, sample);
    hp_pbuild_info(&b, info);
    hp_pbuild_module(&b, 0x5000, 0x5000, 0x6000, "/bin/prog", id, 20);
    hp_pbuild_thread(&b, 9, events);
    hp_pbuild_funcs(&b, &f, 1);
    snprintf(group, sizeof group, "thread.9.events.methods=%llu\nthread.9.sampled.methods=%llu\n",
             (unsigned long long)events, (unsigned long long)sampled);
    hp_pbuild_info(&b, group);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, sample[7] == '9' ? "a.data" : "b.data", err, sizeof err);
    hp_pbuild_free(&b);
    return p;
}

TEST(bursty_events_and_sampled_add_up)
{
    init_ids();
    hp_profile *in[2] = {bursty("bursty", "period=9,burst=1,jitter=0", 1000, 100, mod_id[0]),
                         bursty("bursty", "period=9,burst=1,jitter=0", 3000, 290, mod_id[0])};
    REQUIRE(in[0] && in[1]);
    char err[512];
    hp_profile *m = merge_and_read(in, 2, 0, err, sizeof err);
    REQUIRE(m != NULL);
    CHECK(m->bursty);
    CHECK_EQ_U64(m->sample[HP_BURSTY_METHODS].events, 4000);
    CHECK_EQ_U64(m->sample[HP_BURSTY_METHODS].sampled, 390);
    CHECK_EQ_U64(m->sample[HP_BURSTY_METHODS].period, 9);
    REQUIRE(m->nfuncs == 1);
    CHECK_EQ_U64(m->funcs[0].calls, 14);
    hp_profile_free(m);
    hp_profile_free(in[0]), hp_profile_free(in[1]);
}

TEST(refusals_name_what_differs)
{
    init_ids();
    char err[512];
    hp_profile *a = bursty("bursty", "period=9,burst=1,jitter=0", 10, 1, mod_id[0]);
    hp_profile *b = bursty("bursty", "period=19,burst=1,jitter=0", 10, 1, mod_id[0]);
    hp_profile *c = bursty("exhaustive", "period=9,burst=1,jitter=0", 10, 1, mod_id[0]);
    hp_profile *d = bursty("bursty", "period=9,burst=1,jitter=0", 10, 1, mod_id[1]); /* other build */
    REQUIRE(a && b && c && d);
    hp_profile *ab[2] = {a, b}, *ac[2] = {a, c}, *ad[2] = {a, d};
    CHECK(merge_and_read(ab, 2, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "sample.methods=period=9") && strstr(err, "sample.methods=period=19"));
    CHECK(merge_and_read(ac, 2, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "different modes") && strstr(err, "exhaustive"));
    CHECK(merge_and_read(ad, 2, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "different builds of /bin/prog") != NULL);
    hp_profile *forced = merge_and_read(ad, 2, 1, err, sizeof err);
    CHECK(forced != NULL);
    if (forced) {
        CHECK_EQ_U64(forced->nmodules, 2); /* one per build */
        CHECK(modules_disjoint(forced));
        CHECK_EQ_U64(forced->nfuncs, 2);
    }
    hp_profile_free(forced);
    hp_profile_free(a), hp_profile_free(b), hp_profile_free(c), hp_profile_free(d);
}

int main(void)
{
    RUN(merge_equals_the_naive_model_on_random_inputs);
    RUN(bursty_events_and_sampled_add_up);
    RUN(refusals_name_what_differs);
    return test_main_end();
}

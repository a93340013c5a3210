/* test_pprof.c — the pprof builder (analysis/pprof/builder.h): dedup of strings, functions and
 * locations, and the encoded message decoded back with protobuf-c's unpack: a property test over
 * random inputs against a naive model (linear search for the first equal entry gives the id).
 */
#include "analysis/pprof/builder.h"
#include "analysis/pprof/profile.pb-c.h"
#include "core/base/rng.h"
#include "test.h"
#include <string.h>

TEST(strings_are_deduplicated)
{
    hp_pprof *b = hp_pprof_new();
    REQUIRE(b != NULL);
    CHECK(hp_pprof_string(b, "") == 0);
    CHECK(hp_pprof_string(b, NULL) == 0);
    int64_t a = hp_pprof_string(b, "alpha"), c = hp_pprof_string(b, "beta");
    CHECK(a == 1 && c == 2);
    CHECK(hp_pprof_string(b, "alpha") == a);
    CHECK(hp_pprof_string(b, "alph") == 3);
    hp_pprof_free(b);
}

TEST(functions_and_locations_are_deduplicated)
{
    hp_pprof *b = hp_pprof_new();
    REQUIRE(b != NULL);
    uint64_t f = hp_pprof_function(b, "f", "_Z1fv", "f.c", 3);
    CHECK(f == 1);
    CHECK(hp_pprof_function(b, "f", "_Z1fv", "f.c", 3) == f);
    CHECK(hp_pprof_function(b, "f", "_Z1fv", "f.c", 4) == 2);
    CHECK(hp_pprof_function(b, "f", NULL, "f.c", 3) == 3); /* system name "f" differs */
    CHECK(hp_pprof_function(b, "f", "f", "f.c", 3) == 3);
    uint64_t l = hp_pprof_location(b, 1, 0x1000, f, 7);
    CHECK(l == 1 && hp_pprof_location(b, 1, 0x1000, f, 7) == l);
    CHECK(hp_pprof_location(b, 1, 0x1000, f, 8) == 2);
    CHECK(hp_pprof_location(b, 0, 0x1000, 0, 5) == 3); /* address only: the line is dropped */
    CHECK(hp_pprof_location(b, 0, 0x1000, 0, 6) == 3);
    int64_t v = 1;
    CHECK(hp_pprof_sample(b, &l, 1, &v, 1) == -1); /* no sample type declared */
    hp_pprof_free(b);
}

/* ---- the property test ---- */

#define NF 40
#define NL 60
#define NS 80
static const char *const pool[] = {"main", "f", "g", "_Z1hv", "h()", "a.c", "b.c", "", "x y", "ä"};
#define PICK(r) pool[hp_rng_below(r, sizeof pool / sizeof pool[0])]

typedef struct mfunc { const char *name, *sys, *file; int64_t line; uint64_t id; } mfunc;
typedef struct mloc { uint64_t mapping, address, function; int64_t line, id; } mloc;
typedef struct msample { uint64_t locs[4]; size_t nlocs; int64_t values[3]; } msample;
typedef struct model {
    mfunc f[NF]; size_t nf, nfdistinct;
    mloc l[NL]; size_t nl, nldistinct;
    msample s[NS]; size_t ns, ntypes;
} model;

static uint64_t naive_func(const model *m, size_t upto, const mfunc *k)
{
    for (size_t i = 0; i < upto; i++)
        if (!strcmp(m->f[i].name, k->name) && !strcmp(m->f[i].sys, k->sys) && !strcmp(m->f[i].file, k->file) &&
            m->f[i].line == k->line)
            return m->f[i].id;
    return 0;
}

static int64_t naive_loc(const model *m, size_t upto, const mloc *k)
{
    for (size_t i = 0; i < upto; i++)
        if (m->l[i].mapping == k->mapping && m->l[i].address == k->address && m->l[i].function == k->function &&
            m->l[i].line == k->line)
            return m->l[i].id;
    return 0;
}

static void build_random(hp_pprof *b, model *m, hp_rng *r)
{
    static const char *const types[] = {"calls", "heat", "count"};
    m->ntypes = 1 + hp_rng_below(r, 3);
    for (size_t t = 0; t < m->ntypes; t++) CHECK(hp_pprof_sample_type(b, types[t], "count") == 0);
    for (int i = 0; i < 3; i++) {
        hp_pprof_mapping_desc d = {0x1000u * (i + 1), 0x1000u * (i + 2), 0x100u * i, PICK(r), "abcd", i & 1, 1, 0};
        CHECK(hp_pprof_mapping(b, &d) == (uint64_t)i + 1);
    }
    for (m->nf = 0; m->nf < NF; m->nf++) {
        mfunc *f = &m->f[m->nf];
        *f = (mfunc){PICK(r), PICK(r), PICK(r), (int64_t)hp_rng_below(r, 3), 0};
        uint64_t seen = naive_func(m, m->nf, f);
        f->id = hp_pprof_function(b, f->name, f->sys, f->file, f->line);
        CHECK(f->id == (seen ? seen : ++m->nfdistinct));
    }
    for (m->nl = 0; m->nl < NL; m->nl++) {
        mloc *l = &m->l[m->nl];
        uint64_t fn = hp_rng_below(r, 4) ? m->f[hp_rng_below(r, NF)].id : 0;
        *l = (mloc){hp_rng_below(r, 4), 0x1000 + 16 * hp_rng_below(r, 8), fn, fn ? (int64_t)hp_rng_below(r, 3) : 0, 0};
        int64_t seen = naive_loc(m, m->nl, l);
        l->id = (int64_t)hp_pprof_location(b, l->mapping, l->address, l->function, l->line);
        CHECK(l->id == (seen ? seen : (int64_t)++m->nldistinct));
    }
    for (m->ns = 0; m->ns < NS; m->ns++) {
        msample *s = &m->s[m->ns];
        s->nlocs = hp_rng_below(r, 5);
        for (size_t i = 0; i < s->nlocs; i++) s->locs[i] = (uint64_t)m->l[hp_rng_below(r, NL)].id;
        for (size_t t = 0; t < m->ntypes; t++) s->values[t] = (int64_t)hp_rng_below(r, 1000000) - (t == 2 ? 0 : 7);
        CHECK(hp_pprof_sample(b, s->locs, s->nlocs, s->values, m->ntypes) == 0);
    }
    CHECK(hp_pprof_default_type(b, types[m->ntypes - 1]) == 0);
    CHECK(hp_pprof_period(b, "calls", "count", 42) == 0);
    CHECK(hp_pprof_comment(b, "a comment") == 0);
    hp_pprof_time(b, 1795473294454376527);
}

static const char *str(const HpPprof__Profile *p, int64_t i)
{
    return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "<bad index>";
}

static void check_decoded(const HpPprof__Profile *p, const model *m)
{
    CHECK(p->n_string_table > 0 && !strcmp(p->string_table[0], ""));
    for (size_t i = 1; i < p->n_string_table; i++)
        for (size_t j = 0; j < i; j++) CHECK(strcmp(p->string_table[i], p->string_table[j]) != 0);
    CHECK_EQ_U64(p->n_function, m->nfdistinct);
    for (size_t i = 0; i < m->nf; i++) {
        const HpPprof__Function *f = p->function[m->f[i].id - 1];
        CHECK(f->id == m->f[i].id && !strcmp(str(p, f->name), m->f[i].name) && !strcmp(str(p, f->system_name), m->f[i].sys));
        CHECK(!strcmp(str(p, f->filename), m->f[i].file) && f->start_line == m->f[i].line);
    }
    CHECK_EQ_U64(p->n_location, m->nldistinct);
    for (size_t i = 0; i < m->nl; i++) {
        const HpPprof__Location *l = p->location[m->l[i].id - 1];
        CHECK(l->id == (uint64_t)m->l[i].id && l->mapping_id == m->l[i].mapping && l->address == m->l[i].address);
        CHECK(l->n_line == (m->l[i].function ? 1u : 0u));
        if (l->n_line) CHECK(l->line[0]->function_id == m->l[i].function && l->line[0]->line == m->l[i].line);
    }
    CHECK_EQ_U64(p->n_sample, m->ns);
    for (size_t i = 0; i < m->ns && i < p->n_sample; i++) {
        const HpPprof__Sample *s = p->sample[i];
        CHECK(s->n_location_id == m->s[i].nlocs && s->n_value == m->ntypes);
        CHECK(!s->n_location_id || !memcmp(s->location_id, m->s[i].locs, s->n_location_id * sizeof(uint64_t)));
        CHECK(s->n_value != m->ntypes || !memcmp(s->value, m->s[i].values, m->ntypes * sizeof(int64_t)));
    }
    CHECK(p->n_mapping == 3 && p->mapping[1]->memory_start == 0x2000 && p->mapping[1]->file_offset == 0x100);
    CHECK(p->mapping[1]->has_functions && !strcmp(str(p, p->mapping[2]->build_id), "abcd"));
    CHECK(p->n_sample_type == m->ntypes && !strcmp(str(p, p->sample_type[0]->type), "calls"));
    CHECK(!strcmp(str(p, p->default_sample_type), str(p, p->sample_type[m->ntypes - 1]->type)));
    CHECK(p->period == 42 && p->period_type && !strcmp(str(p, p->period_type->unit), "count"));
    CHECK(p->n_comment == 1 && !strcmp(str(p, p->comment[0]), "a comment"));
    CHECK(p->time_nanos == 1795473294454376527);
}

TEST(encoded_profile_decodes_to_the_model)
{
    for (uint64_t seed = 1; seed <= 60; seed++) {
        hp_rng r;
        model m = {0};
        hp_rng_seed(&r, seed);
        hp_pprof *b = hp_pprof_new();
        REQUIRE(b != NULL);
        build_random(b, &m, &r);
        uint8_t *buf;
        size_t len;
        int rc = hp_pprof_encode(b, &buf, &len); /* REQUIRE evaluates its condition twice */
        REQUIRE(rc == 0);
        HpPprof__Profile *p = hp_pprof__profile__unpack(NULL, len, buf);
        CHECK(p != NULL);
        if (p) check_decoded(p, &m), hp_pprof__profile__free_unpacked(p, NULL);
        free(buf);
        hp_pprof_free(b);
    }
}

TEST(empty_profile_encodes)
{
    hp_pprof *b = hp_pprof_new();
    uint8_t *buf;
    size_t len;
    REQUIRE(b != NULL);
    int rc = hp_pprof_encode(b, &buf, &len); /* REQUIRE evaluates its condition twice */
    REQUIRE(rc == 0);
    HpPprof__Profile *p = hp_pprof__profile__unpack(NULL, len, buf);
    CHECK(p && p->n_string_table == 1 && p->n_sample == 0);
    if (p) hp_pprof__profile__free_unpacked(p, NULL);
    free(buf);
    hp_pprof_free(b);
}

int main(void)
{
    RUN(strings_are_deduplicated);
    RUN(functions_and_locations_are_deduplicated);
    RUN(encoded_profile_decodes_to_the_model);
    RUN(empty_profile_encodes);
    return test_main_end();
}

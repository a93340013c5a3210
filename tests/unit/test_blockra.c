/* test_blockra.c — the return address -> guard map of block hooks named by their return address
 * (src/runtime/blockra.h), against the exhaustive answer (a linear scan of the records):
 *   - a built table answers every recorded return address with its first record's guard, and
 *     NULL for addresses never recorded (random record sets, duplicates included);
 *   - the registry answers across modules (each table built by its first lookup), takes a module
 *     registered again (every object of a link registers the same section) once, forgets a
 *     module at its fini (a later module at the same addresses is answered from its own
 *     records), and ignores an empty section. */
#include <stdlib.h>
#include "runtime/blockra.h"
#include "test.h"

#define CODE_BYTES 65536
#define GUARDS 4096

static char code_a[CODE_BYTES], code_b[CODE_BYTES];
static uint32_t guards[GUARDS];

static void set_rec(hp_blockra_rec *r, const void *ra, const uint32_t *guard)
{
    r->ra = (int32_t)((intptr_t)ra - (intptr_t)&r->ra);
    r->guard = (int32_t)((intptr_t)guard - (intptr_t)&r->guard);
}

/* The exhaustive answer: the first record naming ra, or NULL. */
static uint32_t *scan(const hp_blockra_rec *recs, size_t n, uint64_t ra)
{
    for (size_t i = 0; i < n; i++)
        if ((uint64_t)(uintptr_t)&recs[i].ra + (int64_t)recs[i].ra == ra)
            return (uint32_t *)(uintptr_t)((uintptr_t)&recs[i].guard + (intptr_t)recs[i].guard);
    return NULL;
}

static hp_blockra_rec *random_recs(size_t n, char *code, unsigned *seed)
{
    hp_blockra_rec *recs = malloc(n * sizeof *recs);
    for (size_t i = 0; i < n; i++)
        set_rec(&recs[i], code + rand_r(seed) % CODE_BYTES, &guards[rand_r(seed) % GUARDS]);
    return recs;
}

TEST(built_table_answers_as_a_scan_of_the_records)
{
    unsigned seed = 14;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + (size_t)rand_r(&seed) % (round < 20 ? 64 : 20000); /* up to ~1/3 duplicates */
        hp_blockra_rec *recs = random_recs(n, code_a, &seed);
        uint64_t cap = hp_blockra_cap(n);
        REQUIRE(cap >= 2 * n && (cap & (cap - 1)) == 0);
        uint64_t *keys = calloc(cap, sizeof *keys);
        uint32_t **vals = calloc(cap, sizeof *vals);
        hp_blockra_build(recs, recs + n, keys, vals, cap);
        int wrong = 0;
        for (size_t off = 0; off < CODE_BYTES; off += 1 + (round % 7)) { /* recorded or not */
            uint64_t ra = (uint64_t)(uintptr_t)(code_a + off);
            wrong += hp_blockra_find(keys, vals, cap, ra) != scan(recs, n, ra);
        }
        CHECK_EQ_U64(wrong, 0);
        free(keys);
        free(vals);
        free(recs);
    }
}

TEST(registry_answers_across_modules_and_forgets_at_fini)
{
    unsigned seed = 7;
    size_t n = 500;
    hp_blockra_rec *a = random_recs(n, code_a, &seed), *b = random_recs(n, code_b, &seed);
    CHECK_EQ_U64(hp_blockra_register(a, a), 0); /* an empty section: nothing */
    CHECK_EQ_U64(hp_blockra_register(NULL, NULL), 0);
    REQUIRE(hp_blockra_register(a, a + n) == 0);
    REQUIRE(hp_blockra_register(b, b + n) == 0);
    uint32_t slots = hp_blockra_modules();
    CHECK_EQ_U64(slots, 2);
    REQUIRE(hp_blockra_register(a, a + n) == 0); /* another object of the same link: the same module */
    CHECK_EQ_U64(hp_blockra_modules(), slots);
    int wrong = 0;
    for (size_t off = 0; off < CODE_BYTES; off++) {
        uint64_t ra = (uint64_t)(uintptr_t)(code_a + off), rb = (uint64_t)(uintptr_t)(code_b + off);
        wrong += (hp_blockra_guard(ra) != scan(a, n, ra)) + (hp_blockra_guard(rb) != scan(b, n, rb));
    }
    CHECK_EQ_U64(wrong, 0);
    hp_blockra_unregister(a, a + n);
    hp_blockra_rec *a2 = random_recs(n, code_a, &seed); /* a new module at a's addresses */
    int stale = 0, fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ra = (uint64_t)(uintptr_t)&a[i].ra + (int64_t)a[i].ra;
        stale += hp_blockra_guard(ra) != NULL;
    }
    REQUIRE(hp_blockra_register(a2, a2 + n) == 0);
    for (size_t off = 0; off < CODE_BYTES; off++) {
        uint64_t ra = (uint64_t)(uintptr_t)(code_a + off);
        fresh += hp_blockra_guard(ra) != scan(a2, n, ra);
    }
    CHECK_EQ_U64(stale, 0);
    CHECK_EQ_U64(fresh, 0);
    CHECK(hp_blockra_guard((uint64_t)(uintptr_t)&guards[0]) == NULL); /* outside every module */
}

int main(void)
{
    RUN(built_table_answers_as_a_scan_of_the_records);
    RUN(registry_answers_across_modules_and_forgets_at_fini);
    return test_main_end();
}

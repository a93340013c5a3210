/* test_vreport.c — the samples and value profile types in analysis and the invariants selection,
 * on profiles built in memory (test_vreport_gen.h): STACKS and VALUES decode (good input, and
 * every corrupt case refused with one message naming the record, never a crash), self/total per
 * function against a brute-force count over random stacks, value hot-lists merged across threads
 * against the exact sums of count x tau, folded stacks summing to the samples, the invariants
 * selection (share threshold, weights, order, retaddr left out), and the timer header's overhead.
 */
#define _GNU_SOURCE
#include "analysis/invariants.h"
#include "analysis/ptype/samples.h"
#include "analysis/ptype/value.h"
#include "analysis/rtable.h"
#include "test.h"
#include "test_vreport_gen.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A profile of nthreads threads, each with its stacks and values (either may be NULL / 0). */
typedef struct thread_in { const vg_stack *s; size_t ns; const vg_value *v; size_t nv; } thread_in;

static hp_profile *build(const char *info, const thread_in *t, size_t nthreads, char *err, size_t errlen)
{
    hp_pbuild b;
    hp_pbuild_init(&b, 3);
    hp_pbuild_info(&b, info ? info : "program=/bin/t\nmode=timer\n");
    for (size_t i = 0; i < nthreads; i++) {
        hp_pbuild_thread(&b, i + 1, 0);
        if (t[i].s) vg_stacks(&b, t[i].s, t[i].ns);
        if (t[i].v) vg_values(&b, t[i].v, t[i].nv);
    }
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = b.ok ? hp_profile_read_mem(b.buf, b.len, "t.data", err, errlen) : NULL;
    hp_pbuild_free(&b);
    return p;
}

/* The reader's message for one thread's stacks (or values) payload of len bytes as given. */
static int refused(uint32_t type, const uint8_t *payload, size_t len, const char *why)
{
    hp_pbuild b;
    char err[512] = "";
    hp_pbuild_init(&b, 3);
    hp_pbuild_info(&b, "program=/bin/t\nmode=timer\n");
    hp_pbuild_thread(&b, 1, 0);
    hp_pbuild_section(&b, type, payload, len);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "t.data", err, sizeof err);
    hp_pbuild_free(&b);
    int ok = p == NULL && strstr(err, why) != NULL && strstr(err, "t.data") != NULL;
    if (!ok) fprintf(stderr, "    want refusal '%s', got: %s\n", why, p ? "(accepted)" : err);
    hp_profile_free(p);
    return ok;
}

TEST(stacks_decode_every_record_of_every_thread)
{
    vg_stack a[2] = {{5, 0x99, 3, 0, {0x10, 0x21, 0x31}}, {1, 0, 1, HP_STACK_TRUNCATED, {0x10}}};
    vg_stack b[1] = {{7, 0, 2, 0, {0x40, 0x21}}};
    thread_in t[2] = {{a, 2, NULL, 0}, {b, 1, NULL, 0}};
    char err[256];
    hp_profile *p = build(NULL, t, 2, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_EQ_U64(p->nstacks, 3);
    CHECK_EQ_U64(p->nstack_sections, 2);
    CHECK_EQ_U64(hp_samples_total(p), 13);
    CHECK_EQ_U64(hp_samples_at_pc(p, 0x10), 6);
    CHECK_EQ_U64(p->stacks[0].tos, 0x99);
    CHECK_EQ_U64(p->stacks[0].pcs[2], 0x31);
    CHECK_EQ_U64(p->stacks[1].flags, HP_STACK_TRUNCATED);
    CHECK_EQ_U64(p->stacks[2].pcs[0], 0x40);
    hp_profile_free(p);
}

TEST(corrupt_stacks_are_refused_with_one_message)
{
    vg_stack one = {1, 0, 2, 0, {0x10, 0x20}};
    size_t len;
    uint8_t *good = vg_stacks_payload(&one, 1, &len), bad[64];
    REQUIRE(good != NULL && len == HP_REC_STACK_FIXED + 16);
    CHECK(refused(HP_SEC_STACKS, good, 10, "cut short"));
    CHECK(refused(HP_SEC_STACKS, good, len - 1, "its pcs run past the section"));
    memcpy(bad, good, len), bad[16] = 0, bad[17] = 0; /* depth 0 */
    CHECK(refused(HP_SEC_STACKS, bad, len, "depth out of 1..256"));
    memcpy(bad, good, len), bad[16] = 1, bad[17] = 1; /* depth 257 */
    CHECK(refused(HP_SEC_STACKS, bad, len, "depth out of 1..256"));
    memcpy(bad, good, len), memset(bad, 0, 8); /* count 0 */
    CHECK(refused(HP_SEC_STACKS, bad, len, "count 0"));
    memcpy(bad, good, len), bad[21] = 1;
    CHECK(refused(HP_SEC_STACKS, bad, len, "reserved field not 0"));
    free(good);
}

/* ---- self / total against brute force ---- */

static uint64_t frame_key(const vg_stack *s, size_t i) { return i ? s->pcs[i] - 1 : s->pcs[i]; }

TEST(self_and_total_match_a_brute_force_count_over_random_stacks)
{
    enum { NSTACKS = 300, NADDR = 12 };
    static vg_stack st[NSTACKS];
    uint64_t self[NADDR + 1] = {0}, total[NADDR + 1] = {0}, all = 0;
    srand(42);
    for (size_t i = 0; i < NSTACKS; i++) {
        st[i].count = 1 + (uint64_t)(rand() % 20);
        st[i].depth = (uint16_t)(1 + rand() % 9);
        for (size_t k = 0; k < st[i].depth; k++) /* return addresses are attributed at pc - 1 */
            st[i].pcs[k] = 0x1000 * (1 + (uint64_t)(rand() % NADDR)) + (k ? 1 : 0);
        all += st[i].count;
        self[frame_key(&st[i], 0) / 0x1000] += st[i].count;
        for (size_t a = 1; a <= NADDR; a++) /* brute force: is function a anywhere on the stack? */
            for (size_t k = 0; k < st[i].depth; k++)
                if (frame_key(&st[i], k) == 0x1000 * a) {
                    total[a] += st[i].count;
                    break;
                }
    }
    thread_in t[2] = {{st, NSTACKS / 2, NULL, 0}, {st + NSTACKS / 2, NSTACKS - NSTACKS / 2, NULL, 0}};
    char err[256];
    hp_profile *p = build(NULL, t, 2, err, sizeof err);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules); /* no modules: every address its own function */
    size_t n;
    int oom;
    hp_sample_func *f = hp_samples_functions(p, s, &n, &oom);
    REQUIRE(f != NULL && !oom);
    CHECK_EQ_U64(hp_samples_total(p), all);
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        size_t a = f[i].addr / 0x1000;
        REQUIRE(a >= 1 && a <= NADDR && f[i].addr % 0x1000 == 0);
        CHECK_EQ_U64(f[i].self, self[a]);
        CHECK_EQ_U64(f[i].total, total[a]);
        CHECK(f[i].self <= f[i].total && f[i].total <= all);
        if (i) CHECK(f[i - 1].self > f[i].self || (f[i - 1].self == f[i].self && f[i - 1].total >= f[i].total));
        seen++;
    }
    size_t want = 0;
    for (size_t a = 1; a <= NADDR; a++) want += total[a] > 0;
    CHECK_EQ_U64(seen, want);
    free(f);
    hp_sym_close(s);
    hp_profile_free(p);
}

static char *printed_folded(const hp_profile *p, hp_symbolizer *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hp_report_opts o = {.top = 1};
    int rc = hp_aptypes[HP_PT_SAMPLES]->folded(f, p, s, &o);
    fclose(f);
    if (rc) free(buf), buf = NULL;
    return buf;
}

TEST(folded_stacks_sum_to_the_samples_outermost_first)
{
    vg_stack a[3] = {{5, 0, 3, 0, {0x10, 0x21, 0x31}}, {2, 0, 1, 0, {0x10}}, {4, 0, 3, 0, {0x10, 0x21, 0x31}}};
    thread_in t[1] = {{a, 3, NULL, 0}};
    char err[256];
    hp_profile *p = build(NULL, t, 1, err, sizeof err);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    char *text = printed_folded(p, s);
    REQUIRE(text != NULL);
    CHECK(strcmp(text, "0x30;0x20;0x10 9\n0x10 2\n") == 0); /* equal stacks merged; return addresses at pc - 1 */
    free(text);
    hp_sym_close(s);
    hp_profile_free(p);
}

/* ---- values ---- */

TEST(corrupt_values_are_refused_with_one_message)
{
    vg_value one = {0x10, 10, 1, HP_VK_REG, HP_VREG_RAX, 2, {{7, 6}, {3, 4}}};
    size_t len;
    uint8_t *good = vg_values_payload(&one, 1, &len), bad[128];
    REQUIRE(good != NULL && len == HP_REC_VALUE_FIXED + 32);
    CHECK(refused(HP_SEC_VALUES, good, 20, "cut short"));
    CHECK(refused(HP_SEC_VALUES, good, len - 1, "its values run past the section"));
    static const struct { vg_value v; const char *why; } cases[] = {
        {{0x10, 10, 1, 0, 0, 1, {{7, 1}}}, "unknown value kind"},
        {{0x10, 10, 1, HP_VK_CMP + 1, 0, 1, {{7, 1}}}, "unknown value kind"},
        {{0x10, 10, 0.5, HP_VK_REG, 0, 1, {{7, 1}}}, "tau not finite and >= 1"},
        {{0x10, 10, NAN, HP_VK_REG, 0, 1, {{7, 1}}}, "tau not finite and >= 1"},
        {{0x10, 10, INFINITY, HP_VK_REG, 0, 1, {{7, 1}}}, "tau not finite and >= 1"},
        {{0x10, 10, 1, HP_VK_REG, 0, 2, {{7, 0}, {3, 0}}}, "a value with count 0"},
        {{0x10, 10, 1, HP_VK_REG, 0, 2, {{7, 1}, {3, 2}}}, "values not highest count first"},
        {{0x10, 2, 1, HP_VK_REG, 0, 2, {{7, 2}, {3, 1}}}, "more values kept than captures"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        uint8_t *payload = vg_values_payload(&cases[i].v, 1, &n);
        CHECK(refused(HP_SEC_VALUES, payload, n, cases[i].why));
        free(payload);
    }
    memcpy(bad, good, len), bad[28] = 1;
    CHECK(refused(HP_SEC_VALUES, bad, len, "reserved field not 0"));
    memcpy(bad, good, len), bad[26] = HP_VALUE_MAX_ENTRIES + 1, bad[27] = 0;
    CHECK(refused(HP_SEC_VALUES, bad, len, "more than 64 values"));
    free(good);
}

/* Random hot-lists of NT threads over a few (pc, kind, operand) triples, merged by the reader,
 * against the exact sums: captures add, a value's estimate is the sum of count x tau. */
TEST(value_hot_lists_merge_across_threads_as_exact_sums)
{
    enum { NT = 4, NTRIPLE = 3, NVAL = 6 };
    static vg_value v[NT][NTRIPLE];
    double want[NTRIPLE][NVAL] = {{0}};
    uint64_t want_captures[NTRIPLE] = {0};
    static const uint8_t kinds[NTRIPLE] = {HP_VK_REG, HP_VK_LOAD, HP_VK_REG};
    thread_in t[NT];
    srand(7);
    for (size_t th = 0; th < NT; th++) {
        for (size_t k = 0; k < NTRIPLE; k++) {
            vg_value *x = &v[th][k];
            *x = (vg_value){.pc = k < 2 ? 0x500 : 0x400, .tau = 1 + rand() % 3, .kind = kinds[k], .operand = (uint8_t)k};
            uint64_t count = 50 + (uint64_t)(rand() % 50), kept = 0;
            for (size_t j = 0; j < NVAL; j++) { /* a falling run of counts over a random subset of values */
                if (rand() % 3 == 0 || count <= j) continue;
                x->vals[x->nvalues][0] = 100 + j, x->vals[x->nvalues][1] = count - j * 7 > 0 ? count - j * 7 : 1;
                if (x->nvalues && x->vals[x->nvalues][1] > x->vals[x->nvalues - 1][1]) x->vals[x->nvalues][1] = x->vals[x->nvalues - 1][1];
                kept += x->vals[x->nvalues][1];
                want[k][j] += (double)x->vals[x->nvalues][1] * x->tau;
                x->nvalues++;
            }
            x->captures = kept + (uint64_t)(rand() % 100);
            want_captures[k] += x->captures;
        }
        t[th] = (thread_in){NULL, 0, v[th], NTRIPLE};
    }
    char err[256];
    hp_profile *p = build(NULL, t, NT, err, sizeof err);
    REQUIRE(p != NULL);
    REQUIRE(p->nvalues == NTRIPLE);
    CHECK_EQ_U64(p->nvalue_sections, NT);
    /* sorted by (pc, kind, operand): triple 2 (pc 0x400), then 0 (reg), then 1 (load) */
    static const size_t order[NTRIPLE] = {2, 0, 1};
    for (size_t i = 0; i < NTRIPLE; i++) {
        const hp_value_stat *s = &p->values[i];
        size_t k = order[i], nz = 0;
        CHECK_EQ_U64(s->kind, kinds[k]);
        CHECK_EQ_U64(s->operand, k);
        CHECK_EQ_U64(s->captures, want_captures[k]);
        CHECK_EQ_U64(s->nthreads, NT);
        for (size_t j = 0; j < NVAL; j++) nz += want[k][j] > 0;
        CHECK_EQ_U64(s->nvalues, nz);
        for (size_t e = 0; e < s->nvalues; e++) {
            size_t j = s->values[e].value - 100;
            REQUIRE(j < NVAL);
            CHECK_NEAR(s->values[e].estimate, want[k][j], 1e-9);
            CHECK_NEAR(hp_value_share(s, e), fmin(1, want[k][j] / (double)want_captures[k]), 1e-12);
            if (e) CHECK(s->values[e - 1].estimate >= s->values[e].estimate);
        }
    }
    size_t first;
    CHECK_EQ_U64(hp_value_at(p, 0x500, &first), 2);
    CHECK_EQ_U64(first, 1);
    CHECK_EQ_U64(hp_value_at(p, 0x450, &first), 0);
    hp_profile_free(p);
}

/* ---- invariants ---- */

TEST(invariants_select_by_share_and_weight_and_leave_out_retaddr)
{
    vg_stack st[3] = {{100, 0, 2, 0, {0x10, 0x31}}, {300, 0, 1, 0, {0x20}}, {50, 0, 2, 0, {0x10, 0x41}}};
    vg_value v[5] = {
        {0x10, 100, 1, HP_VK_REG, HP_VREG_RCX, 2, {{7, 95}, {1, 5}}},     /* 95%, weight 150 */
        {0x10, 100, 1, HP_VK_RETADDR, 0, 1, {{0x31, 100}}},                /* 100%, but a context */
        {0x20, 200, 2, HP_VK_XMM, 1, 2, {{0x3ff0000000000000ull, 80}, {0, 20}}}, /* 80%, weight 300 */
        {0x20, 10, 1, HP_VK_LOAD, 0, 1, {{42, 10}}},                       /* 100%, weight 300 */
        {0x30, 10, 1, HP_VK_REG, 0, 1, {{1, 10}}},                         /* 100%, no samples at 0x30 */
    };
    thread_in t[1] = {{st, 3, v, 5}};
    char err[256];
    hp_profile *p = build(NULL, t, 1, err, sizeof err);
    REQUIRE(p != NULL);
    hp_invariant *inv;
    size_t n;
    hp_inv_opts o = {0.9, 1, 0, 0};
    int rc; /* REQUIRE evaluates its condition twice: call first */
    rc = hp_invariants_select(p, &o, &inv, &n);
    REQUIRE(rc == 0);
    REQUIRE(n == 2);
    CHECK_EQ_U64(inv[0].list->pc, 0x20); /* 300 x 100% before 150 x 95% */
    CHECK_EQ_U64(inv[0].list->kind, HP_VK_LOAD);
    CHECK_EQ_U64(inv[0].weight, 300);
    CHECK_EQ_U64(inv[1].list->pc, 0x10);
    CHECK_EQ_U64(inv[1].weight, 150);
    CHECK_NEAR(inv[1].share, 0.95, 1e-12);
    free(inv);
    o.min_share = 0.8; /* the xmm operand (80%) comes in: 300 x 0.8 = 240 after the load, before 142.5 */
    rc = hp_invariants_select(p, &o, &inv, &n);
    REQUIRE(rc == 0);
    REQUIRE(n == 3);
    CHECK_EQ_U64(inv[1].list->kind, HP_VK_XMM);
    free(inv);
    o.min_share = 0.9, o.min_samples = 0; /* 0x30 was interpreted but never interrupted: weight 0, last */
    rc = hp_invariants_select(p, &o, &inv, &n);
    REQUIRE(rc == 0 && n == 3);
    CHECK(inv[2].list->pc == 0x30 && inv[2].weight == 0);
    free(inv);
    o.min_share = 0.8, o.min_samples = 200;
    rc = hp_invariants_select(p, &o, &inv, &n);
    REQUIRE(rc == 0);
    CHECK_EQ_U64(n, 2);
    free(inv);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_inv_site *sites;
    rc = hp_invariants_sites(p, s, 0x10, &sites, &n);
    REQUIRE(rc == 0);
    REQUIRE(n == 2);
    CHECK_EQ_U64(sites[0].caller, 0x30); /* 0x31 - 1, no symbols: its own function */
    CHECK_EQ_U64(sites[0].samples, 100);
    CHECK_EQ_U64(sites[1].caller, 0x40);
    free(sites);
    rc = hp_invariants_sites(p, s, 0x20, &sites, &n);
    REQUIRE(rc == 0);
    CHECK(n == 1 && sites[0].caller == 0 && sites[0].samples == 300); /* depth 1: no caller */
    free(sites);
    hp_sym_close(s);
    hp_profile_free(p);
}

TEST(timer_overhead_is_handlers_plus_interpretation_over_cpu)
{
    char err[256];
    hp_profile *p = build("program=/bin/t\nmode=timer\ntimer.handler_ns=30\nvalues.ns=20\ntimer.cpu_ns=1000\n", NULL, 0,
                          err, sizeof err);
    REQUIRE(p != NULL);
    CHECK_NEAR(hp_report_timer_overhead(p), 5.0, 1e-12);
    hp_profile_free(p);
    p = build("program=/bin/t\nmode=timer\ntimer.handler_ns=30\n", NULL, 0, err, sizeof err);
    REQUIRE(p != NULL);
    CHECK(hp_report_timer_overhead(p) < 0); /* no CPU time: unknown */
    hp_profile_free(p);
}

TEST(value_names_and_formats)
{
    char b[64];
    hp_value_operand_name(HP_VK_REG, HP_VREG_R12, b, sizeof b);
    CHECK(strcmp(b, "r12") == 0);
    hp_value_operand_name(HP_VK_XMM, 3, b, sizeof b);
    CHECK(strcmp(b, "xmm3") == 0);
    hp_value_operand_name(HP_VK_REG, 200, b, sizeof b);
    CHECK(strcmp(b, "reg?") == 0);
    hp_value_format(HP_VK_XMM, 0x3ff8000000000000ull, b, sizeof b);
    CHECK(strcmp(b, "0x3ff8000000000000 (double 1.5)") == 0);
    hp_value_format(HP_VK_REG, (uint64_t)-1, b, sizeof b);
    CHECK(strcmp(b, "0xffffffffffffffff (-1)") == 0);
    CHECK(strcmp(hp_value_kind_name(99), "?") == 0);
}

int main(void)
{
    RUN(stacks_decode_every_record_of_every_thread);
    RUN(corrupt_stacks_are_refused_with_one_message);
    RUN(self_and_total_match_a_brute_force_count_over_random_stacks);
    RUN(folded_stacks_sum_to_the_samples_outermost_first);
    RUN(corrupt_values_are_refused_with_one_message);
    RUN(value_hot_lists_merge_across_threads_as_exact_sums);
    RUN(invariants_select_by_share_and_weight_and_leave_out_retaddr);
    RUN(timer_overhead_is_handlers_plus_interpretation_over_cpu);
    RUN(value_names_and_formats);
    return test_main_end();
}

/* test_report.c — report ordering (heat, calls, back-edges, name; ties broken by address), the
 * --top limit, text rows within 100 columns, crash/cut-short header lines, and JSON output that
 * a small strict JSON checker accepts even with hostile strings in the profile; a bursty profile's
 * counts shown as estimates (scaled, marked, with the sampled count and its interval). */
#define _GNU_SOURCE
#include "analysis/profbuild.h"
#include "analysis/report.h"
#include "test.h"
#include <ctype.h>
#include <string.h>

/* ---- a tiny strict JSON checker: 1 if [p, end) is exactly one JSON value ---- */
typedef struct js { const char *p, *end; int depth; } js;
static int js_value(js *j);
static void js_ws(js *j) { while (j->p < j->end && strchr(" \t\r\n", *j->p)) j->p++; }
static int js_lit(js *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n)) return 0;
    j->p += n;
    return 1;
}
static int js_string(js *j)
{
    if (!js_lit(j, "\"")) return 0;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20) return 0;
        if (c != '\\') continue;
        if (j->p >= j->end) return 0;
        c = (unsigned char)*j->p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++)
                if (j->p >= j->end || !isxdigit((unsigned char)*j->p++)) return 0;
        } else if (!strchr("\"\\/bfnrt", c)) return 0;
    }
    return js_lit(j, "\"");
}
static int js_number(js *j)
{
    const char *start = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    while (j->p < j->end && (isdigit((unsigned char)*j->p) || strchr(".eE+-", *j->p))) j->p++;
    return j->p > start && isdigit((unsigned char)j->p[-1]);
}
static int js_list(js *j, char close, int members)
{
    j->p++;
    js_ws(j);
    if (j->p < j->end && *j->p == close) return j->p++, 1;
    for (;;) {
        js_ws(j);
        if (members && (!js_string(j) || (js_ws(j), !js_lit(j, ":")))) return 0;
        if (!js_value(j)) return 0;
        js_ws(j);
        if (js_lit(j, ",")) continue;
        return js_lit(j, close == '}' ? "}" : "]");
    }
}
static int js_value(js *j)
{
    js_ws(j);
    if (j->p >= j->end || ++j->depth > 64) return 0;
    int ok;
    switch (*j->p) {
    case '{': ok = js_list(j, '}', 1); break;
    case '[': ok = js_list(j, ']', 0); break;
    case '"': ok = js_string(j); break;
    case 't': ok = js_lit(j, "true"); break;
    case 'f': ok = js_lit(j, "false"); break;
    case 'n': ok = js_lit(j, "null"); break;
    default: ok = js_number(j);
    }
    j->depth--;
    return ok;
}
static int json_valid(const char *s, size_t n)
{
    js j = {s, s + n, 0};
    if (!js_value(&j)) return 0;
    js_ws(&j);
    return j.p == j.end;
}

/* ---- fixtures ---- */

static hp_profile *sample_profile(uint64_t flags, int64_t status)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 99);
    hp_pbuild_info(&b, "program=/bin/we\"ird\\name\xff\xc3\xa9\nmode=exhaustive\n");
    hp_rec_func f[4] = {{0x500, 10, 0}, {0x2000, 1, 20}, {0x30, 5, 5}, {0x40, 3, 0}};
    hp_rec_callpair c[3] = {{0x31, 0x500, 4}, {0x2001, 0x40, 9}, {0x41, 0x30, 4}};
    hp_rec_block map[2] = {{1, 1, 0x500}, {2, 0, 0x510}};
    hp_rec_count bl[3] = {{1, 0, 30}, {2, 0, 60}, {3, 0, 1}};
    hp_rec_edge e[1] = {{1, 2, 25}};
    hp_pbuild_blockmap(&b, map, 2);
    hp_pbuild_thread(&b, 1, 100);
    hp_pbuild_funcs(&b, f, 4);
    hp_pbuild_callpairs(&b, c, 3);
    hp_pbuild_blocks(&b, bl, 3);
    hp_pbuild_edges(&b, e, 1);
    if (flags != (uint64_t)-1) hp_pbuild_group_end(&b, 0, flags, status);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "sample.data", err, sizeof err);
    hp_pbuild_free(&b);
    return p;
}

/* sample_profile's counts as a bursty profile: methods observed at 1/100, call pairs at 1/10,
 * edges with no events (configured 10/(10+40) = 1/5 stands in). */
static hp_profile *bursty_profile(void)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 7);
    hp_pbuild_info(&b, "program=/bin/b\nmode=bursty\nsample.methods=period=99,burst=1,jitter=0\n"
                       "sample.methods.enabled=1\nsample.callpairs=period=9,burst=1,jitter=0\n"
                       "sample.callpairs.enabled=1\nsample.edges=period=40,burst=10,jitter=5\n");
    hp_rec_func f[2] = {{0x500, 10, 0}, {0x2000, 1, 20}};
    hp_rec_callpair c[1] = {{0x31, 0x500, 4}};
    hp_rec_block map[2] = {{1, 1, 0x500}, {2, 0, 0x510}};
    hp_rec_count bl[1] = {{2, 0, 60}};
    hp_rec_edge e[1] = {{1, 2, 25}};
    hp_pbuild_blockmap(&b, map, 2);
    hp_pbuild_thread(&b, 1, 100);
    hp_pbuild_funcs(&b, f, 2);
    hp_pbuild_callpairs(&b, c, 1);
    hp_pbuild_blocks(&b, bl, 1);
    hp_pbuild_edges(&b, e, 1);
    hp_pbuild_info(&b, "thread.1.events.methods=3100\nthread.1.sampled.methods=31\n"
                       "thread.1.events.callpairs=3100\nthread.1.sampled.callpairs=310\n");
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "bursty.data", err, sizeof err);
    hp_pbuild_free(&b);
    return p;
}

static char *render(const hp_profile *p, hp_symbolizer *s, hp_report_opts o, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    int rc = hp_report_write(f, p, s, &o);
    fclose(f);
    if (rc) free(buf);
    return rc ? NULL : buf;
}

static int order_is(const hp_profile *p, hp_symbolizer *s, hp_sort_key k, const uint64_t *addrs)
{
    size_t order[4];
    if (hp_report_order_funcs(p, s, k, order)) return 0;
    for (int i = 0; i < 4; i++)
        if (p->funcs[order[i]].addr != addrs[i]) return 0;
    return 1;
}

TEST(sort_orders)
{
    hp_profile *p = sample_profile(HP_GROUP_FINAL, 0);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    REQUIRE(s != NULL);
    const uint64_t heat[4] = {0x2000, 0x30, 0x500, 0x40}, calls[4] = {0x500, 0x30, 0x40, 0x2000};
    const uint64_t backedges[4] = {0x2000, 0x30, 0x500, 0x40}, name[4] = {0x2000, 0x30, 0x40, 0x500};
    CHECK(order_is(p, s, HP_SORT_HEAT, heat));
    CHECK(order_is(p, s, HP_SORT_CALLS, calls));
    CHECK(order_is(p, s, HP_SORT_BACKEDGES, backedges));
    CHECK(order_is(p, s, HP_SORT_NAME, name));
    size_t pairs[3];
    REQUIRE(hp_report_order_pairs(p, s, HP_SORT_HEAT, pairs) == 0);
    CHECK(p->pairs[pairs[0]].count == 9 && p->pairs[pairs[1]].site == 0x31 && p->pairs[pairs[2]].site == 0x41);
    hp_sort_key k;
    hp_report_format fmt;
    CHECK(hp_report_parse_sort("backedges", &k) == 0 && k == HP_SORT_BACKEDGES);
    CHECK(hp_report_parse_sort("size", &k) == -1);
    CHECK(hp_report_parse_format("json", &fmt) == 0 && fmt == HP_FORMAT_JSON);
    CHECK(hp_report_parse_format("xml", &fmt) == -1);
    hp_sym_close(s);
    hp_profile_free(p);
}

TEST(json_is_valid_and_escaped)
{
    hp_profile *p = sample_profile(HP_GROUP_FINAL, 0);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    size_t len = 0;
    hp_report_opts o = {.top = 2, .sort = HP_SORT_HEAT, .format = HP_FORMAT_JSON, .blocks = 1, .edges = 1, .streams = 0};
    char *out = render(p, s, o, &len);
    REQUIRE(out != NULL);
    CHECK(json_valid(out, len));
    CHECK(strstr(out, "\"program\": \"/bin/we\\\"ird\\\\name?\xc3\xa9\"") != NULL);
    CHECK(strstr(out, "\"rank\": 2") != NULL && strstr(out, "\"rank\": 3") == NULL);
    CHECK(strstr(out, "\"state\": \"exited\"") != NULL);
    CHECK(strstr(out, "\"function\": \"0x2000\"") != NULL);
    CHECK(strstr(out, "\"caller_addr\": \"0x2000\"") != NULL); /* site 0x2001 - 1 */
    CHECK(strstr(out, "\"edges\"") != NULL && strstr(out, "\"blocks\"") != NULL);
    CHECK(!json_valid("{\"a\": [1, 2,]}", 14) && !json_valid("{\"a\": \"\x01\"}", 10)); /* the checker checks */
    free(out);
    o.top = 0;
    out = render(p, s, o, &len);
    REQUIRE(out != NULL);
    CHECK(json_valid(out, len) && strstr(out, "\"rank\": 4") != NULL);
    free(out);
    hp_sym_close(s);
    hp_profile_free(p);
}

static int longest_line(const char *s)
{
    int longest = 0;
    while (*s) {
        const char *nl = strchrnul(s, '\n');
        if (nl - s > longest) longest = (int)(nl - s);
        s = *nl ? nl + 1 : nl;
    }
    return longest;
}

TEST(text_fits_100_columns_and_tells_the_run_state)
{
    hp_profile *p = sample_profile(HP_GROUP_CRASH, -11);
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    size_t len;
    hp_report_opts o = {.top = HP_REPORT_DEFAULT_TOP, .sort = HP_SORT_HEAT, .format = HP_FORMAT_TEXT, .blocks = 1, .edges = 1, .streams = 0};
    char *out = render(p, s, o, &len);
    REQUIRE(out != NULL);
    CHECK(longest_line(out) <= 100);
    CHECK(strstr(out, "killed by signal 11 (SIGSEGV)") != NULL);
    CHECK(strstr(out, "Hot methods") && strstr(out, "Hot call pairs") && strstr(out, "Hot blocks") &&
          strstr(out, "Hot edges"));
    CHECK(strstr(out, "guard 3") != NULL); /* a block the block map does not know */
    free(out);
    hp_sym_close(s);
    hp_profile_free(p);

    p = sample_profile((uint64_t)-1, 0); /* no GROUP_END at all */
    REQUIRE(p != NULL);
    s = hp_sym_open(p->modules, p->nmodules);
    out = render(p, s, o, &len);
    REQUIRE(out != NULL);
    CHECK(strstr(out, "NO DATA") != NULL && strstr(out, "(no method counts in this profile)") != NULL);
    free(out);
    hp_sym_close(s);
    hp_profile_free(p);
}

static int lines_fit(const char *text, size_t cols)
{
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        if (n > cols) return 0;
        l += n + (nl != NULL);
    }
    return 1;
}

TEST(bursty_counts_are_estimates)
{
    hp_profile *p = bursty_profile();
    REQUIRE(p != NULL);
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    REQUIRE(s != NULL);
    hp_report_opts o = {.top = 0, .sort = HP_SORT_HEAT, .format = HP_FORMAT_TEXT, .blocks = 1, .edges = 1, .streams = 0};
    size_t n;
    char *text = render(p, s, o, &n);
    REQUIRE(text != NULL);
    CHECK(strstr(text, "est.heat") && strstr(text, "est.calls") && strstr(text, "est.count"));
    CHECK(strstr(text, "~2100") != NULL); /* heat 21 / (31/3100) */
    CHECK(strstr(text, "~1000") != NULL); /* calls 10 at 1/100 */
    CHECK(strstr(text, "~40 ") != NULL);  /* pair 4 at 1/10 */
    CHECK(strstr(text, "~300") != NULL);  /* block 60 at the configured 10/50 (no events) */
    CHECK(strstr(text, "methods    on  S=99 B=1 jitter=0%  sampled 31/3100 = 0.010000 (B/(B+S) 0.010000)"));
    CHECK(lines_fit(text, 100));
    free(text);
    o.format = HP_FORMAT_JSON;
    char *json = render(p, s, o, &n);
    REQUIRE(json != NULL);
    CHECK(json_valid(json, n));
    CHECK(strstr(json, "\"heat\": 2100, \"percent\": 67.74, \"calls\": 100, \"backedges\": 2000, "
                       "\"estimated\": true, \"sampled\": 21, \"ci_lower\": ") != NULL);
    CHECK(strstr(json, "\"count\": 40, \"percent\": 100.00, \"site\": \"0x31\", \"sites\": 1, \"estimated\": true, "
                       "\"sampled\": 4, ") != NULL);
    CHECK(strstr(json, "\"methods\": {\"enabled\": true, \"period\": 99, \"burst\": 1, \"jitter\": 0, ") != NULL);
    CHECK(strstr(json, "\"observed_frequency\": 0.1}") != NULL);
    hp_osp_bound bd = hp_bursty_estimate(21, 0.01, 0.95);
    char want[96];
    snprintf(want, sizeof want, "\"ci_lower\": %.0f, \"ci_upper\": %.0f", bd.lower, bd.upper);
    CHECK(strstr(json, want) != NULL);
    CHECK(bd.lower < 2100 && 2100 < bd.upper);
    free(json);
    hp_sym_close(s);
    hp_profile_free(p);

    p = sample_profile(HP_GROUP_FINAL, 0); /* exhaustive: no estimates anywhere */
    REQUIRE(p != NULL);
    s = hp_sym_open(p->modules, p->nmodules);
    json = render(p, s, o, &n);
    REQUIRE(json != NULL);
    CHECK(!strstr(json, "estimated") && !strstr(json, "sampling") && !strstr(json, "~"));
    free(json);
    o.format = HP_FORMAT_TEXT;
    text = render(p, s, o, &n);
    REQUIRE(text != NULL);
    CHECK(!strstr(text, "est.") && !strstr(text, "~") && !strstr(text, "sampling"));
    free(text);
    hp_sym_close(s);
    hp_profile_free(p);
}

int main(void)
{
    RUN(sort_orders);
    RUN(json_is_valid_and_escaped);
    RUN(text_fits_100_columns_and_tells_the_run_state);
    RUN(bursty_counts_are_estimates);
    return test_main_end();
}

/* test_html.c — the HTML report's pieces (analysis/html/): escaping (every special character,
 * control bytes, invalid UTF-8, cutting without splitting a UTF-8 sequence), the call-graph
 * builder (names merged and sorted, edges by index, independent of the order of additions), and
 * the whole page of a synthetic profile with hostile strings: nothing unescaped, tags balanced,
 * the same bytes twice, the accuracy section with a reference, and the blocks/edges tables (no
 * html hook) shown through their text.
 */
#define _GNU_SOURCE
#include "analysis/html/callgraph.h"
#include "analysis/html/html.h"
#include "analysis/profbuild.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

typedef struct mem { char *buf; size_t len; FILE *f; } mem;
static void mem_open(mem *m) { m->buf = NULL, m->len = 0, m->f = open_memstream(&m->buf, &m->len); }
static char *mem_close(mem *m) { fclose(m->f); return m->buf; }

static char *escaped(const char *s, long cut)
{
    mem m;
    mem_open(&m);
    if (cut < 0) hp_html_escape(m.f, s);
    else hp_html_escape_cut(m.f, s, (size_t)cut);
    return mem_close(&m);
}

TEST(escape_every_special_character)
{
    char *a = escaped("<a href=\"x\">&'b\x01\xff\xc3\xa9", -1);
    CHECK(a && !strcmp(a, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;b??\xc3\xa9"));
    free(a);
    char *b = escaped("ab\xc3\xa9z", 3); /* the cut would split é: it stops before it */
    CHECK(b && !strcmp(b, "ab..."));
    free(b);
    char *c = escaped("a<b", 10);
    CHECK(c && !strcmp(c, "a&lt;b"));
    free(c);
}

static void build(hp_callgraph *g, int reversed)
{
    const char *n[3] = {"main", "f<int>", "g;h"};
    for (int k = 0; k < 3; k++) {
        int i = reversed ? 2 - k : k;
        CHECK(hp_cg_add_self(g, n[i], 10 * (uint64_t)(i + 1)) == 0);
        CHECK(hp_cg_add_call(g, "main", n[i], 5) == 0);
    }
    CHECK(hp_cg_add_self(g, "main", 1) == 0); /* merges with main's 10 */
    CHECK(hp_cg_resolve(g) == 0);
}

TEST(callgraph_names_sorted_and_merged)
{
    hp_callgraph a, b;
    hp_cg_init(&a), hp_cg_init(&b);
    build(&a, 0), build(&b, 1);
    REQUIRE(a.n == 3 && b.n == 3);
    CHECK(!strcmp(a.names[0], "f<int>") && !strcmp(a.names[1], "g_h") && !strcmp(a.names[2], "main"));
    CHECK(a.weight[2] == 11 && a.weight[0] == 20 && a.weight[1] == 30);
    CHECK_EQ_U64(a.nedges, 3); /* main->main is kept as an edge: the icicle drops self-calls */
    for (size_t i = 0; i < a.nedges && i < b.nedges; i++)
        CHECK(a.edges[i].caller == b.edges[i].caller && a.edges[i].callee == b.edges[i].callee &&
              a.edges[i].count == b.edges[i].count && a.edges[i].caller == 2);
    hp_cg_free(&a), hp_cg_free(&b);
}

static hp_profile *hostile_profile(void)
{
    hp_pbuild b;
    char err[256];
    hp_pbuild_init(&b, 5);
    hp_pbuild_info(&b, "program=/bin/<script>alert(\"x\")</script>&\nargs=a'b\"c<d>\nmode=exhaustive\n");
    hp_rec_func f[3] = {{0x500, 10, 0}, {0x2000, 1, 20}, {0x30, 5, 5}};
    hp_rec_callpair c[2] = {{0x2001, 0x500, 4}, {0x501, 0x30, 5}};
    hp_rec_block map[1] = {{1, 1, 0x500}};
    hp_rec_count bl[1] = {{1, 0, 30}};
    hp_rec_edge e[1] = {{1, 1, 25}};
    hp_pbuild_blockmap(&b, map, 1);
    hp_pbuild_thread(&b, 1, 100);
    hp_pbuild_funcs(&b, f, 3);
    hp_pbuild_callpairs(&b, c, 2);
    hp_pbuild_blocks(&b, bl, 1);
    hp_pbuild_edges(&b, e, 1);
    hp_pbuild_group_end(&b, 0, HP_GROUP_FINAL, 0);
    hp_profile *p = hp_profile_read_mem(b.buf, b.len, "x<y>.data", err, sizeof err);
    hp_pbuild_free(&b);
    return p;
}

static char *page(const hp_profile *p, const hp_profile *ref)
{
    hp_symbolizer *s = hp_sym_open(p->modules, p->nmodules);
    hp_report_opts o = {.top = 10, .format = HP_FORMAT_HTML, .blocks = 1, .edges = 1, .compare_ref = ref};
    mem m;
    mem_open(&m);
    int rc = hp_report_write(m.f, p, s, &o);
    CHECK(rc == 0);
    hp_sym_close(s);
    return mem_close(&m);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *h = hay; (h = strstr(h, needle)); h++) n++;
    return n;
}

TEST(page_escapes_balances_and_repeats)
{
    hp_profile *p = hostile_profile();
    REQUIRE(p);
    char *a = page(p, NULL), *b = page(p, NULL), *c = page(p, p);
    REQUIRE(a && b && c);
    CHECK(!strcmp(a, b));
    CHECK(!strstr(a, "<script") && !strstr(a, "a'b") && strstr(a, "&lt;script&gt;alert(&quot;x&quot;)"));
    CHECK(strstr(a, "x&lt;y&gt;.data") && strstr(a, "a&#39;b&quot;c&lt;d&gt;"));
    CHECK(!strstr(a, "http://") && !strstr(a, "https://") && !strstr(a, "src="));
    const char *tags[] = {"svg", "table", "section", "pre", "g", "html", "body"};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        char open[16], close[16];
        snprintf(open, sizeof open, "<%s%s", tags[i], !strcmp(tags[i], "g") ? ">" : "");
        snprintf(close, sizeof close, "</%s>", tags[i]);
        CHECK(count(a, open) == count(a, close) && count(a, close) > 0);
    }
    CHECK(strstr(a, "Hot blocks") || strstr(a, "hot blocks")); /* the text table, preformatted */
    CHECK(strstr(a, "0x500") && strstr(a, "class=\"flame\""));
    CHECK(!strstr(a, "id=\"compare\"") && strstr(c, "id=\"compare\"") && strstr(c, "methods (heat)") &&
          strstr(c, "class=\"scatter\"") && strstr(c, "<circle"));
    free(a), free(b), free(c);
    hp_profile_free(p);
}

int main(void)
{
    RUN(escape_every_special_character);
    RUN(callgraph_names_sorted_and_merged);
    RUN(page_escapes_balances_and_repeats);
    return test_main_end();
}

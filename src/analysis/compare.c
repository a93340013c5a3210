/* compare.c — per-type accuracy of a sampled profile against a reference (see compare.h).
 *
 * Each compare view of each profile type (src/analysis/ptype/, aptype.h) turns a profile into an
 * array of (module-relative key, weight) items, sorted here by key with colliding keys summed and
 * zero weights dropped, then handed to core/metrics/metrics.h. Rows follow the views' rank. A type's
 * own section (compare_extra: figures keyed items cannot express) follows the rows. Nothing here
 * interprets the metrics: the definitions (and their reading of the papers) live in core/metrics/
 * and docs/metrics.md.
 */
#include "analysis/compare.h"
#include "analysis/ptype/aptype.h"
#include "analysis/report.h"
#include "core/format/info_keys.h"
#include "core/base/hash.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TAG_UNMAPPED 0x756e6d6170706564ull /* module hash of addresses outside every module */
#define TAG_GUARD 0x6775617264696473ull    /* module hash of blocks keyed by guard id */

void hp_compare_default_opts(hp_cmp_opts *o)
{
    o->k = HP_CMP_DEFAULT_K;
    o->coverage = HP_OVERLAP_PAPER_COVERAGE;
    o->sym_a = o->sym_b = NULL;
}

/* ---- keys ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then mixed */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return hp_mix64(h);
}

static uint64_t part_key(uint64_t module_hash, uint64_t offset) { return hp_mix64(module_hash ^ hp_mix64(offset)); }

uint64_t hp_cmp_name_key(uint64_t tag, const char *name) { return hp_mix64(name_hash(name) ^ tag); }

uint64_t hp_cmp_pair_key(uint64_t tag, uint64_t first, uint64_t second)
{
    return hp_mix64(first ^ hp_mix64(second ^ tag));
}

uint64_t hp_cmp_addr_key(const hp_profile *p, uint64_t addr, int *mapped)
{
    const hp_module *m = hp_profile_module_at(p, addr);
    *mapped = m != NULL;
    if (!m) return part_key(TAG_UNMAPPED, addr);
    return part_key(name_hash(base_name(m->path)), addr - m->base);
}

uint64_t hp_cmp_block_key(const hp_profile *p, int known, uint32_t guard, uint64_t pc, int *mapped)
{
    if (!known) {
        *mapped = 0;
        return part_key(TAG_GUARD, guard);
    }
    return hp_cmp_addr_key(p, pc, mapped);
}

/* ---- items ---- */

void hp_cmp_sink_add(hp_cmp_sink *s, uint64_t key, uint64_t weight, int mapped)
{
    if (weight == 0) return;
    s->items[s->n++] = (hp_metric_item){key, (double)weight};
    if (!mapped) s->unmapped++;
}

/* Sorts by key and sums runs of equal keys in place; returns the new length. */
static size_t merge_equal_keys(hp_metric_item *it, size_t n)
{
    if (n == 0) return 0;
    hp_metric_sort_by_key(it, n);
    size_t w = 0;
    for (size_t r = 1; r < n; r++) {
        if (it[r].key == it[w].key) it[w].weight += it[r].weight;
        else it[++w] = it[r];
    }
    return w + 1;
}

/* The items of view v, keyed by name through sym when sym is given. */
static int collect_items(const hp_profile *p, const hp_cmp_view *v, hp_symbolizer *sym, hp_cmp_items *out,
                         size_t *unmapped)
{
    size_t cap = v->size(p);
    hp_cmp_sink s = {malloc((cap ? cap : 1) * sizeof *s.items), 0, 0};
    if (!s.items) return -1;
    if (sym) v->collect_named(p, sym, &s);
    else v->collect(p, &s);
    out->items = s.items;
    out->n = merge_equal_keys(s.items, s.n);
    out->total = hp_metric_total(out->items, out->n);
    if (unmapped) *unmapped += s.unmapped;
    return 0;
}

int hp_cmp_collect(const hp_profile *p, const hp_cmp_view *v, hp_cmp_items *out, size_t *unmapped)
{
    return collect_items(p, v, NULL, out, unmapped);
}

/* ---- program identity ---- */

/* The module of the program itself: the one whose path is INFO "program", else the first. */
static const hp_module *program_module(const hp_profile *p)
{
    const char *prog = hp_profile_info(p, HP_INFO_PROGRAM);
    for (size_t i = 0; prog && i < p->nmodules; i++)
        if (strcmp(p->modules[i].path, prog) == 0) return &p->modules[i];
    return p->nmodules ? &p->modules[0] : NULL;
}

static int same_buildid(const hp_module *a, const hp_module *b)
{
    return a->buildid_len == b->buildid_len && memcmp(a->buildid, b->buildid, a->buildid_len) == 0;
}

static void hex_id(const hp_module *m, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < m->buildid_len && o + 3 <= len && i < 8; i++)
        o += (size_t)snprintf(buf + o, len - o, "%02x", m->buildid[i]);
}

hp_cmp_program_check hp_cmp_check_program(const hp_profile *a, const hp_profile *b, char *msg, size_t len)
{
    const hp_module *ma = program_module(a), *mb = program_module(b);
    char ia[24], ib[24];
    if (msg && len) msg[0] = 0;
    if (!ma || !mb) return HP_CMP_UNKNOWN_PROGRAM;
    if (strcmp(base_name(ma->path), base_name(mb->path)) != 0) {
        if (msg) snprintf(msg, len, "different programs: %s and %s", ma->path, mb->path);
        return HP_CMP_OTHER_PROGRAM;
    }
    if (!ma->buildid_len || !mb->buildid_len) return HP_CMP_UNKNOWN_PROGRAM;
    if (same_buildid(ma, mb)) return HP_CMP_SAME_PROGRAM;
    hex_id(ma, ia, sizeof ia);
    hex_id(mb, ib, sizeof ib);
    if (msg) snprintf(msg, len, "%s has build-id %s.. in one profile and %s.. in the other (rebuilt?)",
                      base_name(ma->path), ia, ib);
    return HP_CMP_REBUILT_PROGRAM;
}

static void add_warning(hp_cmp_result *r, const char *text)
{
    if (r->nwarnings < HP_CMP_MAX_WARNINGS) snprintf(r->warnings[r->nwarnings++], sizeof r->warnings[0], "%s", text);
}

/* Libraries present in both under the same name but with different build-ids. */
static void check_libraries(const hp_profile *a, const hp_profile *b, hp_cmp_result *r)
{
    const hp_module *pa = program_module(a);
    char text[256];
    for (size_t i = 0; i < a->nmodules; i++) {
        const hp_module *ma = &a->modules[i];
        if (ma == pa || !ma->buildid_len) continue;
        for (size_t j = 0; j < b->nmodules; j++) {
            const hp_module *mb = &b->modules[j];
            if (!mb->buildid_len || strcmp(base_name(ma->path), base_name(mb->path)) != 0) continue;
            if (same_buildid(ma, mb)) break;
            snprintf(text, sizeof text, "library %s differs between the two runs (build-ids differ)",
                     base_name(ma->path));
            add_warning(r, text);
            break;
        }
    }
}

/* ---- metrics ---- */

static size_t count_common(const hp_cmp_items *a, const hp_cmp_items *b)
{
    size_t i = 0, j = 0, c = 0;
    while (i < a->n && j < b->n) {
        if (a->items[i].key < b->items[j].key) i++;
        else if (a->items[i].key > b->items[j].key) j++;
        else c++, i++, j++;
    }
    return c;
}

static int fill_metrics(hp_cmp_row *row, const hp_cmp_items *a, const hp_cmp_items *b, const hp_cmp_opts *o)
{
    size_t most = a->n > b->n ? a->n : b->n; /* B against itself needs 2 * b->n */
    hp_metric_item *scratch = malloc((2 * most + 1) * sizeof *scratch);
    if (!scratch) return -1;
    row->n_a = a->n, row->n_b = b->n, row->total_a = a->total, row->total_b = b->total;
    row->n_common = count_common(a, b);
    row->overlap = hp_overlap(a->items, a->n, b->items, b->n, o->coverage, HP_OVERLAP_PAPER, scratch);
    row->overlap_max = hp_overlap(b->items, b->n, b->items, b->n, o->coverage, HP_OVERLAP_PAPER, scratch);
    row->overlap_renorm = hp_overlap(a->items, a->n, b->items, b->n, o->coverage, HP_OVERLAP_RENORMALIZED, scratch);
    hp_topk_compare(b->items, b->n, a->items, a->n, o->k, scratch, &row->top_k);
    hp_topk_compare(b->items, b->n, a->items, a->n, HP_CMP_WIDE_K, scratch, &row->top_wide);
    free(scratch);
    return 0;
}

static int compare_view(const hp_profile *a, const hp_profile *b, const hp_cmp_view *v, hp_cmp_result *r,
                        hp_cmp_row *row)
{
    hp_cmp_items ia = {0}, ib = {0};
    int rc = -1;
    row->id = v->id;
    row->title = v->title;
    if (r->by_name && !v->collect_named) {
        row->skipped = v->size(a) > 0 && v->size(b) > 0;
        return 0;
    }
    int named = r->by_name || (r->sites_by_function && v->site_keyed && v->collect_named);
    hp_symbolizer *sa = named ? r->opts.sym_a : NULL, *sb = named ? r->opts.sym_b : NULL;
    if (collect_items(a, v, sa, &ia, &r->unmapped_a) || collect_items(b, v, sb, &ib, &r->unmapped_b)) goto out;
    row->in_a = ia.n > 0, row->in_b = ib.n > 0;
    rc = 0;
    if (!row->in_a || !row->in_b) goto out;
    rc = fill_metrics(row, &ia, &ib, &r->opts);
    r->n_both++;
    r->n_common_keys += row->n_common;
out:
    free(ia.items);
    free(ib.items);
    return rc;
}

/* Every profile type's views, in rank order (ties: registry order); returns how many. */
static size_t ranked_views(const hp_cmp_view **views)
{
    size_t n = 0;
    for (int i = 0; i < HP_PT_COUNT; i++)
        for (size_t j = 0; j < hp_aptypes[i]->nviews && n < HP_CMP_MAX_ROWS; j++) {
            const hp_cmp_view *v = &hp_aptypes[i]->views[j];
            size_t k = n++;
            for (; k > 0 && views[k - 1]->rank > v->rank; k--) views[k] = views[k - 1];
            views[k] = v;
        }
    return n;
}

const hp_cmp_row *hp_cmp_find_row(const hp_cmp_result *r, const char *id)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].id, id) == 0) return &r->rows[i];
    return NULL;
}

/* Every type's own section (aptype.h compare_extra); a refusal goes to r->refusal. */
static int compare_extras(const hp_profile *a, const hp_profile *b, hp_cmp_result *r)
{
    for (int i = 0; i < HP_PT_COUNT && r->nextras < HP_CMP_MAX_EXTRAS; i++) {
        const hp_aptype *t = hp_aptypes[i];
        hp_cmp_extra *x = &r->extras[r->nextras];
        int rc = t->compare_extra ? t->compare_extra(a, b, x, r->refusal, sizeof r->refusal) : 0;
        if (rc == -1) return -1;
        if (rc != 1) continue;
        r->nextras++, r->n_both++;
        r->n_common_keys += x->common;
    }
    return 0;
}

int hp_cmp_has_dual_sites(const hp_profile *p)
{
    const char *v = hp_profile_info(p, HP_INFO_DUAL "." HP_INFO_DUAL_SITES);
    return v && strtoull(v, NULL, 10) > 0;
}

int hp_cmp_needs_symbols(const hp_profile *a, const hp_profile *b, hp_cmp_match match)
{
    if (match == HP_CMP_MATCH_NAME) return 1;
    if (match == HP_CMP_MATCH_ADDRESS) return 0;
    return hp_cmp_check_program(a, b, NULL, 0) == HP_CMP_REBUILT_PROGRAM || hp_cmp_has_dual_sites(a) ||
           hp_cmp_has_dual_sites(b);
}

/* How members are matched (compare.h): by_name and sites_by_function of `out`. */
static void choose_matching(const hp_profile *a, const hp_profile *b, const hp_cmp_opts *o, hp_cmp_result *out)
{
    int syms = o->sym_a && o->sym_b;
    if (o->match == HP_CMP_MATCH_NAME) out->by_name = syms;
    else if (o->match == HP_CMP_MATCH_AUTO) {
        out->by_name = out->program == HP_CMP_REBUILT_PROGRAM && syms;
        out->sites_by_function = !out->by_name && syms && (hp_cmp_has_dual_sites(a) || hp_cmp_has_dual_sites(b));
    }
}

int hp_compare(const hp_profile *a, const hp_profile *b, const hp_cmp_opts *o, hp_cmp_result *out)
{
    char msg[256];
    const hp_cmp_view *views[HP_CMP_MAX_ROWS];
    memset(out, 0, sizeof *out);
    snprintf(out->name_a, sizeof out->name_a, "%s", a->name ? a->name : "A");
    snprintf(out->name_b, sizeof out->name_b, "%s", b->name ? b->name : "B");
    out->opts = *o;
    if (out->opts.k == 0) out->opts.k = HP_CMP_DEFAULT_K;
    out->program = hp_cmp_check_program(a, b, msg, sizeof msg);
    if (out->program == HP_CMP_OTHER_PROGRAM || out->program == HP_CMP_REBUILT_PROGRAM) add_warning(out, msg);
    choose_matching(a, b, o, out);
    if (out->program == HP_CMP_UNKNOWN_PROGRAM) add_warning(out, "no build-id to check that both profiles are of one program");
    check_libraries(a, b, out);
    out->nrows = ranked_views(views);
    for (size_t i = 0; i < out->nrows; i++)
        if (compare_view(a, b, views[i], out, &out->rows[i])) return -1;
    return compare_extras(a, b, out);
}

/* ---- output ---- */

static double pct(double x) { return 100.0 * x; }

static void write_text_row(FILE *out, const hp_cmp_row *w)
{
    fprintf(out, "%-16s %8zu %8zu %8zu %7.2f%% %6.2f%% %7.2f%%  %5.1f%% %5.1f%%  %5.1f%% %5.1f%% %6.3f\n", w->title,
            w->n_a, w->n_b, w->n_common, pct(w->overlap), pct(w->overlap_max), pct(w->overlap_renorm),
            pct(w->top_k.recall), pct(w->top_k.precision), pct(w->top_wide.recall), pct(w->top_wide.precision),
            w->top_k.kendall_tau);
}

static void write_text_extra(FILE *out, const hp_cmp_extra *x)
{
    fprintf(out, "\n%s\n", x->title);
    for (size_t i = 0; i < x->nvalues; i++)
        fprintf(out, "  %-32s %7.2f%%\n", x->values[i].label, x->values[i].value * x->values[i].text_scale);
    if (x->list_key) {
        fprintf(out, "  %-32s", x->list_label);
        for (size_t i = 0; i < x->nlist; i++) fprintf(out, " %ld", x->list[i]);
        fputs(x->nlist ? "\n" : " (none)\n", out);
    }
    if (x->note) fprintf(out, "  (%s)\n", x->note);
}

int hp_compare_write_text(FILE *out, const hp_cmp_result *r)
{
    char rk[16], pk[16];
    fprintf(out, "A (sampled):   %s\nB (reference): %s\n", r->name_a, r->name_b);
    fprintf(out, "matched by:    %s\n\n", r->by_name             ? (r->program == HP_CMP_REBUILT_PROGRAM
                                                                    ? "symbol name (two builds of the program: addresses differ)"
                                                                    : "symbol name (--match name)")
                                          : r->sites_by_function ? "module-relative address; call pairs by caller "
                                                                   "function (two-version code: a site has two addresses)"
                                                                 : "module-relative address");
    snprintf(rk, sizeof rk, "rec@%zu", r->opts.k);
    snprintf(pk, sizeof pk, "prec@%zu", r->opts.k);
    fprintf(out, "%-16s %8s %8s %8s %8s %7s %8s  %6s %6s  %6s %6s %6s\n", "profile", "keys A", "keys B", "common",
            "overlap", "max", "renorm", rk, pk, "rec@100", "p@100", "tau");
    for (size_t t = 0; t < r->nrows; t++) {
        const hp_cmp_row *w = &r->rows[t];
        if (w->in_a && w->in_b) write_text_row(out, w);
        else if (w->in_a || w->in_b) fprintf(out, "%-16s (only in %s)\n", w->title, w->in_a ? "A" : "B");
        else if (w->skipped) fprintf(out, "%-16s (not matched across builds: no names)\n", w->title);
    }
    for (size_t i = 0; i < r->nextras; i++) write_text_extra(out, &r->extras[i]);
    fprintf(out, "\noverlap: HPS section 5: in each profile the heaviest members covering %.0f%% of its total,\n"
                 "sum over members selected in both of min(share in A, share in B); max = B against itself\n"
                 "(the score of a perfect sample); renorm = shares of the selected members only (perfect = 100%%).\n"
                 "rec/prec@k: top-k recall and precision with B as truth; tau: Kendall tau-b over the common\n"
                 "top-%zu members.\n",
            pct(r->opts.coverage), r->opts.k);
    return ferror(out) ? -1 : 0;
}

static void write_json_topk(FILE *out, const char *name, size_t k, const hp_topk_agreement *t)
{
    fprintf(out, "\"%s\":{\"k\":%zu,\"recall\":%.6f,\"precision\":%.6f,\"kendall_tau\":%.6f,\"common\":%zu}", name, k,
            t->recall, t->precision, t->kendall_tau, t->common);
}

static void write_json_row(FILE *out, const hp_cmp_row *w, size_t k)
{
    fprintf(out, "{\"type\":\"%s\",\"keys_a\":%zu,\"keys_b\":%zu,\"common\":%zu,\"total_a\":%.0f,\"total_b\":%.0f,"
                 "\"overlap\":%.6f,\"overlap_max\":%.6f,\"overlap_renormalized\":%.6f,",
            w->id, w->n_a, w->n_b, w->n_common, w->total_a, w->total_b, w->overlap, w->overlap_max, w->overlap_renorm);
    write_json_topk(out, "top_k", k, &w->top_k);
    fputc(',', out);
    write_json_topk(out, "top_100", HP_CMP_WIDE_K, &w->top_wide);
    fputc('}', out);
}

static void write_json_skipped(FILE *out, const hp_cmp_result *r)
{
    int first = 1;
    fputs("\"only_in_one\":[", out);
    for (size_t t = 0; t < r->nrows; t++) {
        const hp_cmp_row *w = &r->rows[t];
        if (w->in_a == w->in_b) continue;
        fprintf(out, "%s{\"type\":\"%s\",\"in\":\"%s\"}", first ? "" : ",", w->id, w->in_a ? "a" : "b");
        first = 0;
    }
    fputc(']', out);
}

/* ,"id":{"key":value,...,"list_key":[...]} */
static void write_json_extra(FILE *out, const hp_cmp_extra *x)
{
    fprintf(out, ",\"%s\":{", x->id);
    for (size_t i = 0; i < x->nvalues; i++) fprintf(out, "%s\"%s\":%.6f", i ? "," : "", x->values[i].key, x->values[i].value);
    if (x->list_key) {
        fprintf(out, "%s\"%s\":[", x->nvalues ? "," : "", x->list_key);
        for (size_t i = 0; i < x->nlist; i++) fprintf(out, "%s%ld", i ? "," : "", x->list[i]);
        fputc(']', out);
    }
    fputc('}', out);
}

int hp_compare_write_json(FILE *out, const hp_cmp_result *r)
{
    static const char *const program_words[] = {"same", "unknown", "different", "rebuilt"};
    int first = 1;
    fputs("{\"a\":", out);
    hp_json_string(out, r->name_a);
    fputs(",\"b\":", out);
    hp_json_string(out, r->name_b);
    fprintf(out, ",\"keyed_by\":\"%s\"", r->by_name ? "name" : "address");
    if (r->sites_by_function) fputs(",\"call_pairs_keyed_by\":\"caller function\"", out);
    fprintf(out, ",\"coverage\":%.6f,\"k\":%zu,\"program\":\"%s\",\"unmapped_a\":%zu,\"unmapped_b\":%zu,\"profiles\":[",
            r->opts.coverage, r->opts.k, program_words[r->program], r->unmapped_a, r->unmapped_b);
    for (size_t t = 0; t < r->nrows; t++) {
        if (!r->rows[t].in_a || !r->rows[t].in_b) continue;
        if (!first) fputc(',', out);
        write_json_row(out, &r->rows[t], r->opts.k);
        first = 0;
    }
    fputs("],", out);
    write_json_skipped(out, r);
    for (size_t i = 0; i < r->nextras; i++) write_json_extra(out, &r->extras[i]);
    fputs(",\"warnings\":[", out);
    for (size_t i = 0; i < r->nwarnings; i++) {
        if (i) fputc(',', out);
        hp_json_string(out, r->warnings[i]);
    }
    fputs("]}\n", out);
    return ferror(out) ? -1 : 0;
}

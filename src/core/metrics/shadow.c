/* shadow.c — shadow profiling's metrics: Wall weight matching (Section 4.2, Eq. 1) and Diff-Top (Section 4.3) (shadow-profiling.txt) (definitions and citations in shadow.h and docs/metrics.md).
 *
 * Shape: copy the const inputs into the caller's scratch, sort in place, cut the part the
 * definition selects, walk key-sorted arrays together. Inputs are never written.
 */
#include "core/metrics/shadow.h"
#include <math.h>
#include <string.h>

/* ---- Shadow profiling: Wall weight matching ------------------------------------------------- */

/* Of a heaviest-first prefix sorted[0..n), the members that may be among its `take` hottest:
 * those heavier than the take-th one, and every one tied with it. Returns how many; *share gets
 * the chance that one of the tied makes the cut (uniform tie order), 1 when nothing ties. */
static size_t cut_with_ties(const hp_metric_item *sorted, size_t n, size_t take, double *share, double *cut_weight)
{
    double w = sorted[take - 1].weight;
    size_t above = 0, end = take;
    while (above < take && sorted[above].weight > w) above++;
    while (end < n && sorted[end].weight == w) end++;
    *share = (double)(take - above) / (double)(end - above);
    *cut_weight = w;
    return end;
}

double hp_wall_accuracy(const hp_metric_item *actual, size_t n_actual, const hp_metric_item *est,
                        size_t n_est, double top_fraction, hp_metric_item *scratch)
{
    hp_metric_item *sa = scratch, *se = scratch + n_actual;
    size_t pa = hp_metric_copy_heaviest_first(sa, actual, n_actual);
    size_t pe = hp_metric_copy_heaviest_first(se, est, n_est);
    if (pa == 0) return pe == 0 ? 1.0 : 0.0;
    size_t h = (size_t)ceil(top_fraction * (double)pa - 1e-9);
    if (h < 1) h = 1;
    if (h > pa) h = pa;
    size_t he = hp_metric_min_size(h, pe);
    if (he == 0) return 0.0;
    double denominator = hp_metric_total(sa, h), share_a, share_e, cut_a, cut_e;
    size_t na = cut_with_ties(sa, pa, h, &share_a, &cut_a), ne = cut_with_ties(se, pe, he, &share_e, &cut_e);
    hp_metric_sort_by_key(sa, na);
    hp_metric_sort_by_key(se, ne);
    double matched = 0.0;
    for (size_t i = 0, j = 0; i < na && j < ne;) {
        if (sa[i].key < se[j].key) {
            i++;
        } else if (se[j].key < sa[i].key) {
            j++;
        } else {
            double in_a = sa[i].weight == cut_a ? share_a : 1.0, in_e = se[j].weight == cut_e ? share_e : 1.0;
            matched += sa[i++].weight * in_a * in_e;
            j++;
        }
    }
    return matched / denominator;
}

/* ---- Shadow profiling: Diff-Top -------------------------------------------------------------- */

static void swap_sites(hp_value_site *a, hp_value_site *b)
{
    hp_value_site t = *a;
    *a = *b;
    *b = t;
}

static void sift_down_sites(hp_value_site *v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && v[child].pc < v[child + 1].pc) child++;
        if (!(v[root].pc < v[child].pc)) return;
        swap_sites(&v[root], &v[child]);
        root = child;
    }
}

static void sort_sites_by_pc(hp_value_site *v, size_t n)
{
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) sift_down_sites(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        swap_sites(&v[0], &v[end]);
        sift_down_sites(v, 0, end);
    }
}

static double invariance(const hp_value_site *s)
{
    return s->executions ? (double)s->top_count / (double)s->executions : 0.0;
}

double hp_diff_top(const hp_value_site *perfect, size_t n_perfect, const hp_value_site *sampled,
                   size_t n_sampled, hp_value_site *scratch, size_t *n_common)
{
    hp_value_site *sp = scratch, *ss = scratch + n_perfect;
    if (n_perfect) memcpy(sp, perfect, n_perfect * sizeof *perfect);
    if (n_sampled) memcpy(ss, sampled, n_sampled * sizeof *sampled);
    sort_sites_by_pc(sp, n_perfect);
    sort_sites_by_pc(ss, n_sampled);
    double weighted = 0.0, weight = 0.0;
    size_t common = 0;
    for (size_t i = 0, j = 0; i < n_perfect && j < n_sampled;) {
        if (sp[i].pc < ss[j].pc) {
            i++;
        } else if (ss[j].pc < sp[i].pc) {
            j++;
        } else {
            double w = (double)sp[i].executions;
            weighted += w * fabs(invariance(&sp[i]) - invariance(&ss[j]));
            weight += w;
            common++;
            i++;
            j++;
        }
    }
    if (n_common) *n_common = common;
    return weight > 0.0 ? weighted / weight : 0.0;
}

/* ---- the native event rate of a shadow's calibration ---- */

void hp_shadow_rate_window(hp_shadow_rate *r, uint64_t events, uint64_t ns, double count_ns)
{
    if (ns < HP_SHADOW_RATE_MIN_NS || !events) return;
    double native = (double)ns - (double)events * (count_ns > 0 ? count_ns : 0);
    ns = native * HP_SHADOW_RATE_MAX_CUT < (double)ns ? ns / HP_SHADOW_RATE_MAX_CUT : (uint64_t)native;
    /* events / ns > best_events / best_ns, without division */
    if (!r->best_ns || (double)events * (double)r->best_ns > (double)r->best_events * (double)ns)
        r->best_events = events, r->best_ns = ns;
}

double hp_shadow_rate_native_ns_of(const hp_shadow_rate *r, uint64_t events)
{
    if (!r->best_events) return 0.0;
    return (double)events * (double)r->best_ns / (double)r->best_events;
}

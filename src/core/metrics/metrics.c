/* metrics.c — the accuracy metrics of metrics.h (definitions and paper citations there and in
 * docs/metrics.md).
 *
 * Shape of every metric: copy the const inputs into the caller's scratch, sort (heapsort, in place,
 * no allocation), cut the part the definition selects (a heaviest prefix), sort that part by key
 * and walk the two key-sorted arrays together ("merge join"). Invariants: inputs are never written;
 * the scratch regions of the two profiles never overlap (a in scratch[0..na), b in
 * scratch[na..na+nb)); ties in weight are broken by ascending key.
 */
#include "core/metrics/metrics.h"
#include <math.h>
#include <string.h>

/* ---- sorting ------------------------------------------------------------------------------- */

/* Strict "a comes before b" for the two orders we need. */
static int before_by_key(const hp_metric_item *a, const hp_metric_item *b)
{
    return a->key < b->key;
}

static int before_by_weight(const hp_metric_item *a, const hp_metric_item *b)
{
    if (a->weight != b->weight) return a->weight > b->weight;
    return a->key < b->key;
}

typedef int (*item_before_fn)(const hp_metric_item *, const hp_metric_item *);

static void swap_items(hp_metric_item *a, hp_metric_item *b)
{
    hp_metric_item t = *a;
    *a = *b;
    *b = t;
}

/* Max-heap by "comes last" so that popping the root fills the array from the back. */
static void sift_down(hp_metric_item *v, size_t root, size_t n, item_before_fn before)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && before(&v[child], &v[child + 1])) child++;
        if (!before(&v[root], &v[child])) return;
        swap_items(&v[root], &v[child]);
        root = child;
    }
}

static void heapsort_items(hp_metric_item *v, size_t n, item_before_fn before)
{
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n, before);
    for (size_t end = n - 1; end > 0; end--) {
        swap_items(&v[0], &v[end]);
        sift_down(v, 0, end, before);
    }
}

void hp_metric_sort_by_key(hp_metric_item *items, size_t n)
{
    heapsort_items(items, n, before_by_key);
}

void hp_metric_sort_by_weight(hp_metric_item *items, size_t n)
{
    heapsort_items(items, n, before_by_weight);
}

double hp_metric_total(const hp_metric_item *items, size_t n)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++) total += items[i].weight;
    return total;
}

/* ---- shared helpers ------------------------------------------------------------------------ */

/* Copies src into dst sorted heaviest first and returns how many have weight > 0 (a prefix). */
static size_t copy_heaviest_first(hp_metric_item *dst, const hp_metric_item *src, size_t n)
{
    if (n) memcpy(dst, src, n * sizeof *src);
    hp_metric_sort_by_weight(dst, n);
    size_t positive = 0;
    while (positive < n && dst[positive].weight > 0.0) positive++;
    return positive;
}

/* Length of the smallest heaviest-first prefix whose weight reaches share * total. A relative
 * slack of 1e-12 keeps 0.9 * 10 from demanding a tenth item through rounding. */
static size_t covering_prefix(const hp_metric_item *sorted, size_t n, double total, double share)
{
    double need = share * total * (1.0 - 1e-12);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += sorted[i].weight;
        if (sum >= need) return i + 1;
    }
    return n;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* ---- HPS overlap --------------------------------------------------------------------------- */

/* Selects a's covering prefix in dst (sorted by key, weights turned into contributions). */
static size_t select_contributions(hp_metric_item *dst, const hp_metric_item *src, size_t n,
                                   double coverage, enum hp_overlap_denominator denom)
{
    size_t positive = copy_heaviest_first(dst, src, n);
    double total = hp_metric_total(dst, positive);
    if (total <= 0.0) return 0;
    size_t selected = covering_prefix(dst, positive, total, coverage);
    double denominator = total;
    if (denom == HP_OVERLAP_RENORMALIZED) denominator = hp_metric_total(dst, selected);
    for (size_t i = 0; i < selected; i++) dst[i].weight /= denominator;
    hp_metric_sort_by_key(dst, selected);
    return selected;
}

double hp_overlap(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb,
                  double coverage, enum hp_overlap_denominator denom, hp_metric_item *scratch)
{
    hp_metric_item *sa = scratch, *sb = scratch + na;
    size_t la = select_contributions(sa, a, na, coverage, denom);
    size_t lb = select_contributions(sb, b, nb, coverage, denom);
    if (la == 0 && lb == 0) return 1.0;
    double overlap = 0.0;
    size_t i = 0, j = 0;
    while (i < la && j < lb) {
        if (sa[i].key < sb[j].key) {
            i++;
        } else if (sb[j].key < sa[i].key) {
            j++;
        } else {
            overlap += fmin(sa[i].weight, sb[j].weight);
            i++;
            j++;
        }
    }
    return overlap;
}

/* ---- Multi-hash weighted error -------------------------------------------------------------- */

/* Books one tuple (f_p, f_h) into its Figure 3 category. */
static void classify_tuple(hp_multihash_error *e, double f_p, int perfect_in, double f_h,
                           int hw_in)
{
    if (!perfect_in && !hw_in) return;
    double err = fabs(f_p - f_h);
    e->n_candidates++;
    if (hw_in && !perfect_in) {
        e->fp += err;
        e->n_fp++;
    } else if (perfect_in && !hw_in) {
        e->fn += err;
        e->n_fn++;
    } else if (f_h > f_p) {
        e->np += err;
        e->n_np++;
    } else if (f_h < f_p) {
        e->nn += err;
        e->n_nn++;
    } else {
        e->n_exact++;
    }
    e->total += f_p; /* the denominator, divided out at the end */
}

static void divide_error(hp_multihash_error *e)
{
    double denominator = e->total;
    double numerator = e->fp + e->fn + e->np + e->nn;
    if (e->n_candidates == 0) {
        e->total = 0.0;
        return;
    }
    if (denominator <= 0.0) {
        e->total = INFINITY;
        return;
    }
    e->fp /= denominator;
    e->fn /= denominator;
    e->np /= denominator;
    e->nn /= denominator;
    e->total = numerator / denominator;
}

int hp_multihash_interval_error(const hp_metric_item *perfect, size_t n_perfect,
                                const hp_metric_item *hw, size_t n_hw, double threshold,
                                hp_metric_item *scratch, hp_multihash_error *out)
{
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    hp_metric_item *sp = scratch, *sh = scratch + n_perfect;
    if (n_perfect) memcpy(sp, perfect, n_perfect * sizeof *perfect);
    if (n_hw) memcpy(sh, hw, n_hw * sizeof *hw);
    hp_metric_sort_by_key(sp, n_perfect);
    hp_metric_sort_by_key(sh, n_hw);
    size_t i = 0, j = 0;
    while (i < n_perfect || j < n_hw) {
        int take_p = j == n_hw || (i < n_perfect && sp[i].key <= sh[j].key);
        int take_h = i == n_perfect || (j < n_hw && sh[j].key <= sp[i].key);
        double f_p = take_p ? sp[i].weight : 0.0;
        double f_h = take_h ? sh[j].weight : 0.0;
        classify_tuple(out, f_p, take_p && f_p >= threshold, f_h, take_h);
        i += (size_t)take_p;
        j += (size_t)take_h;
    }
    divide_error(out);
    return 0;
}

double hp_multihash_mean_error(const double *interval_errors, size_t n_intervals)
{
    if (n_intervals == 0) return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < n_intervals; i++) sum += interval_errors[i];
    return sum / (double)n_intervals;
}

/* ---- Shadow profiling: Wall weight matching ------------------------------------------------- */

double hp_wall_accuracy(const hp_metric_item *actual, size_t n_actual, const hp_metric_item *est,
                        size_t n_est, double top_fraction, hp_metric_item *scratch)
{
    hp_metric_item *sa = scratch, *se = scratch + n_actual;
    size_t pa = copy_heaviest_first(sa, actual, n_actual);
    size_t pe = copy_heaviest_first(se, est, n_est);
    if (pa == 0) return pe == 0 ? 1.0 : 0.0;
    size_t h = (size_t)ceil(top_fraction * (double)pa - 1e-9);
    if (h < 1) h = 1;
    if (h > pa) h = pa;
    size_t he = min_size(h, pe);
    double denominator = hp_metric_total(sa, h);
    hp_metric_sort_by_key(sa, h);
    hp_metric_sort_by_key(se, he);
    double matched = 0.0;
    for (size_t i = 0, j = 0; i < h && j < he;) {
        if (sa[i].key < se[j].key) {
            i++;
        } else if (se[j].key < sa[i].key) {
            j++;
        } else {
            matched += sa[i++].weight;
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

/* ---- OSP Chernoff bounds --------------------------------------------------------------------- */

double hp_osp_chernoff_error(uint64_t sample_count, double confidence, int one_sided)
{
    if (sample_count == 0) return INFINITY;
    double c = one_sided ? 2.0 : 6.0;
    double log_inv_delta = -log(1.0 - confidence);
    return sqrt(c * log_inv_delta / (double)sample_count);
}

double hp_osp_estimated_count(uint64_t sample_count, double p_sample, double p_length)
{
    return (double)sample_count / p_sample / p_length;
}

hp_osp_bound hp_osp_count_bound(uint64_t sample_count, double p_sample, double p_length,
                                double confidence, int one_sided)
{
    hp_osp_bound b;
    b.estimate = hp_osp_estimated_count(sample_count, p_sample, p_length);
    b.error = hp_osp_chernoff_error(sample_count, confidence, one_sided);
    b.lower = b.error >= 1.0 ? 0.0 : b.estimate * (1.0 - b.error);
    b.upper = (one_sided || sample_count == 0) ? INFINITY : b.estimate * (1.0 + b.error);
    return b;
}

/* ---- Top-k and threshold agreement ----------------------------------------------------------- */

static int sign_of(double x) { return (x > 0.0) - (x < 0.0); }

/* Kendall tau-b over m pairs (wa[i].weight, wb[i].weight). */
static double kendall_tau_b(const hp_metric_item *wa, const hp_metric_item *wb, size_t m)
{
    if (m == 0) return 0.0;
    double concordant = 0.0, discordant = 0.0, ties_a = 0.0, ties_b = 0.0, pairs = 0.0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = i + 1; j < m; j++) {
            int sa = sign_of(wa[i].weight - wa[j].weight);
            int sb = sign_of(wb[i].weight - wb[j].weight);
            pairs += 1.0;
            if (sa == 0) ties_a += 1.0;
            if (sb == 0) ties_b += 1.0;
            if (sa * sb > 0) concordant += 1.0;
            if (sa * sb < 0) discordant += 1.0;
        }
    }
    double denominator = sqrt((pairs - ties_a) * (pairs - ties_b));
    if (denominator <= 0.0) return 1.0;
    return (concordant - discordant) / denominator;
}

/* Walks two key-sorted arrays; for the c-th common key stores its two weights in a[c], b[c]
 * (c never passes the read positions, so this is safe in place). Returns the count. */
static size_t gather_common(hp_metric_item *a, size_t na, hp_metric_item *b, size_t nb)
{
    size_t common = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i].key < b[j].key) {
            i++;
        } else if (b[j].key < a[i].key) {
            j++;
        } else {
            a[common] = a[i++];
            b[common] = b[j++];
            common++;
        }
    }
    return common;
}

static double ratio_or_one(size_t num, size_t den)
{
    return den ? (double)num / (double)den : 1.0;
}

int hp_topk_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                    size_t n_est, size_t k, hp_metric_item *scratch, hp_topk_agreement *out)
{
    if (!out) return -1;
    hp_metric_item *sx = scratch, *se = scratch + n_exact;
    out->k_exact = min_size(k, copy_heaviest_first(sx, exact, n_exact));
    out->k_est = min_size(k, copy_heaviest_first(se, est, n_est));
    hp_metric_sort_by_key(sx, out->k_exact);
    hp_metric_sort_by_key(se, out->k_est);
    out->common = gather_common(sx, out->k_exact, se, out->k_est);
    out->precision = ratio_or_one(out->common, out->k_est);
    out->recall = ratio_or_one(out->common, out->k_exact);
    out->kendall_tau = kendall_tau_b(sx, se, out->common);
    return 0;
}

/* Moves members with weight >= cut to the front of v (order kept); returns their count. */
static size_t keep_at_least(hp_metric_item *v, size_t n, double cut)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].weight >= cut && v[i].weight > 0.0) v[kept++] = v[i];
    return kept;
}

/* Mean of |est - exact| / max(exact, 1) over the n reported members (both arrays key-sorted;
 * exact may hold more keys). */
static double mean_relative_error(const hp_metric_item *exact, size_t n_exact,
                                  const hp_metric_item *reported, size_t n)
{
    if (n == 0) return 0.0;
    double sum = 0.0;
    size_t i = 0;
    for (size_t j = 0; j < n; j++) {
        while (i < n_exact && exact[i].key < reported[j].key) i++;
        double truth = (i < n_exact && exact[i].key == reported[j].key) ? exact[i].weight : 0.0;
        sum += fabs(reported[j].weight - truth) / fmax(truth, 1.0);
    }
    return sum / (double)n;
}

static size_t count_common(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb)
{
    size_t common = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i].key < b[j].key) {
            i++;
        } else if (b[j].key < a[i].key) {
            j++;
        } else {
            common++;
            i++;
            j++;
        }
    }
    return common;
}

int hp_heavy_compare(const hp_metric_item *exact, size_t n_exact, const hp_metric_item *est,
                     size_t n_est, double phi, double stream_total, hp_metric_item *scratch,
                     hp_heavy_agreement *out)
{
    if (!out) return -1;
    hp_metric_item *sx = scratch, *se = scratch + n_exact;
    double cut = phi * stream_total;
    if (n_exact) memcpy(sx, exact, n_exact * sizeof *exact);
    if (n_est) memcpy(se, est, n_est * sizeof *est);
    hp_metric_sort_by_key(sx, n_exact);
    size_t n_reported = keep_at_least(se, n_est, cut);
    hp_metric_sort_by_key(se, n_reported);
    out->mean_rel_error = mean_relative_error(sx, n_exact, se, n_reported);
    size_t n_true = keep_at_least(sx, n_exact, cut);
    out->n_true = n_true;
    out->n_reported = n_reported;
    out->n_correct = count_common(sx, n_true, se, n_reported);
    out->precision = ratio_or_one(out->n_correct, n_reported);
    out->recall = ratio_or_one(out->n_correct, n_true);
    return 0;
}

/* mhsim.c — the multi-hash design-space replay (mhsim.h): exact intervals, the grid, one pass per
 * configuration, worker threads over the configurations.
 */
#include "sim/mhsim.h"
#include "core/metrics/multihash.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

uint64_t hp_mhsim_key(uint64_t a, uint64_t b)
{
    return hp_multihash_tuple_key(a, b); /* the runtime's interval profiles use the same key */
}

/* ---------------------------------------------------------------- exact intervals */

typedef struct count_map { uint64_t *key, *count; uint8_t *used; size_t mask; } count_map;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
    return x;
}

static int map_init(count_map *m, uint64_t interval)
{
    size_t cap = 16;
    while (cap < 2 * interval) cap *= 2;
    m->mask = cap - 1;
    m->key = malloc(cap * sizeof *m->key), m->count = malloc(cap * sizeof *m->count), m->used = calloc(cap, 1);
    return m->key && m->count && m->used ? 0 : -1;
}

static void map_free(count_map *m) { free(m->key), free(m->count), free(m->used); }

static void map_add(count_map *m, uint64_t k)
{
    size_t i = mix(k) & m->mask;
    while (m->used[i] && m->key[i] != k) i = (i + 1) & m->mask;
    if (!m->used[i]) m->used[i] = 1, m->key[i] = k, m->count[i] = 0;
    m->count[i]++;
}

/* Moves the map's entries into items (appending) and clears it; returns how many. */
static size_t map_drain(count_map *m, hp_metric_item *items, uint64_t T, size_t *ncand)
{
    size_t n = 0;
    *ncand = 0;
    for (size_t i = 0; i <= m->mask; i++) {
        if (!m->used[i]) continue;
        items[n].key = m->key[i], items[n].weight = (double)m->count[i];
        *ncand += m->count[i] >= T;
        n++, m->used[i] = 0;
    }
    return n;
}

/* The candidates of every interval, copied out of the key-sorted items (so sorted by key too). */
static int collect_candidates(hp_mhsim_thread *th, uint64_t T)
{
    size_t total = 0;
    for (size_t k = 0; k < th->nintervals; k++) total += th->ncand[k];
    th->cstart = malloc((th->nintervals + 1) * sizeof *th->cstart);
    th->cands = malloc((total + 1) * sizeof *th->cands);
    if (!th->cstart || !th->cands) return -1;
    size_t at = 0;
    for (size_t k = 0; k < th->nintervals; k++) {
        th->cstart[k] = at;
        for (size_t i = th->start[k]; i < th->start[k + 1]; i++)
            if (th->items[i].weight >= (double)T) th->cands[at++] = th->items[i];
    }
    th->cstart[th->nintervals] = at;
    return 0;
}

static int prepare_thread(hp_mhsim_thread *th, uint64_t L, uint64_t T, count_map *m, size_t *max_items)
{
    th->nintervals = th->nkeys / L;
    th->start = malloc((th->nintervals + 1) * sizeof *th->start);
    th->ncand = malloc((th->nintervals + 1) * sizeof *th->ncand);
    th->items = malloc((th->nintervals * L + 1) * sizeof *th->items);
    if (!th->start || !th->ncand || !th->items) return -1;
    size_t at = 0;
    for (size_t k = 0; k < th->nintervals; k++) {
        th->start[k] = at;
        for (uint64_t i = 0; i < L; i++) map_add(m, th->keys[k * L + i]);
        size_t n = map_drain(m, th->items + at, T, &th->ncand[k]);
        hp_metric_sort_by_key(th->items + at, n);
        if (n > *max_items) *max_items = n;
        at += n;
    }
    th->start[th->nintervals] = at;
    return collect_candidates(th, T);
}

static uint64_t threshold_count(uint64_t L, double t)
{
    hp_multihash_params p = {1, 1, 32, t, L, 0, 0, 0, 0, 0, 0, 0};
    return hp_multihash_threshold_count(&p);
}

static int prepare_common(hp_mhsim_input *in, uint64_t interval, double threshold, char *err, size_t errlen)
{
    in->interval = interval, in->threshold = threshold;
    in->T = threshold_count(interval, threshold);
    if (!interval || !in->T) { snprintf(err, errlen, "invalid interval %llu or threshold %g", (unsigned long long)interval, threshold); return -1; }
    uint64_t longest = 0;
    for (size_t i = 0; i < in->nthreads; i++)
        if (in->threads[i].nkeys > longest) longest = in->threads[i].nkeys;
    if (longest < interval) { snprintf(err, errlen, "no thread of the trace has a complete interval of %llu events (use a smaller --interval)", (unsigned long long)interval); return -1; }
    count_map m;
    if (map_init(&m, interval)) { map_free(&m); snprintf(err, errlen, "out of memory"); return -1; }
    size_t scored = 0;
    for (size_t i = 0; i < in->nthreads; i++) {
        if (prepare_thread(&in->threads[i], interval, in->T, &m, &in->max_items)) {
            map_free(&m);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        scored += in->threads[i].nintervals;
    }
    map_free(&m);
    if (!scored) { snprintf(err, errlen, "no thread of the trace has a complete interval of %llu events (use a smaller --interval)", (unsigned long long)interval); return -1; }
    return 0;
}

int hp_mhsim_prepare_keys(uint64_t *const *keys, const size_t *nkeys, size_t nthreads, uint64_t interval, double threshold,
                          hp_mhsim_input *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->threads = calloc(nthreads ? nthreads : 1, sizeof *in->threads);
    if (!in->threads) { snprintf(err, errlen, "out of memory"); return -1; }
    in->nthreads = nthreads;
    for (size_t i = 0; i < nthreads; i++) {
        in->threads[i].keys = malloc((nkeys[i] + 1) * sizeof(uint64_t));
        if (!in->threads[i].keys) { hp_mhsim_input_free(in); snprintf(err, errlen, "out of memory"); return -1; }
        memcpy(in->threads[i].keys, keys[i], nkeys[i] * sizeof(uint64_t));
        in->threads[i].nkeys = nkeys[i];
    }
    if (prepare_common(in, interval, threshold, err, errlen)) { hp_mhsim_input_free(in); return -1; }
    return 0;
}

int hp_mhsim_prepare(const hp_trace *tr, uint64_t interval, double threshold, hp_mhsim_input *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->threads = calloc(tr->nthreads ? tr->nthreads : 1, sizeof *in->threads);
    if (!in->threads) { snprintf(err, errlen, "out of memory"); return -1; }
    in->nthreads = tr->nthreads;
    for (size_t i = 0; i < tr->nthreads; i++) {
        const hp_trace_thread *tt = &tr->threads[i];
        hp_mhsim_thread *th = &in->threads[i];
        th->keys = malloc((tt->n + 1) * sizeof *th->keys);
        if (!th->keys) { hp_mhsim_input_free(in); snprintf(err, errlen, "out of memory"); return -1; }
        for (size_t j = 0; j < tt->n; j++) th->keys[j] = hp_mhsim_key(tt->t[j].a, tt->t[j].b);
        th->nkeys = tt->n;
    }
    if (prepare_common(in, interval, threshold, err, errlen)) { hp_mhsim_input_free(in); return -1; }
    return 0;
}

void hp_mhsim_input_free(hp_mhsim_input *in)
{
    for (size_t i = 0; i < in->nthreads; i++) {
        hp_mhsim_thread *th = &in->threads[i];
        free(th->keys), free(th->start), free(th->ncand), free(th->items), free(th->cstart), free(th->cands);
    }
    free(in->threads);
    memset(in, 0, sizeof *in);
}

static void minmax(uint64_t v, uint64_t *lo, uint64_t *hi, int first)
{
    if (first || v < *lo) *lo = v;
    if (first || v > *hi) *hi = v;
}

/* |A xor B| / |A or B| of two key-sorted candidate lists (0 when both are empty). */
static double change(const hp_metric_item *a, size_t na, const hp_metric_item *b, size_t nb)
{
    size_t x = 0, y = 0, diff = 0, uni = 0;
    while (x < na || y < nb) {
        uni++;
        if (y == nb || (x < na && a[x].key < b[y].key)) x++, diff++;
        else if (x == na || b[y].key < a[x].key) y++, diff++;
        else x++, y++;
    }
    return uni ? (double)diff / (double)uni : 0;
}

hp_mhsim_istats hp_mhsim_interval_stats(const hp_mhsim_input *in)
{
    hp_mhsim_istats s;
    memset(&s, 0, sizeof s);
    uint64_t dsum = 0, csum = 0, pairs = 0;
    double csum_change = 0;
    for (size_t t = 0; t < in->nthreads; t++) {
        const hp_mhsim_thread *th = &in->threads[t];
        for (size_t k = 1; k < th->nintervals; k++, pairs++)
            csum_change += change(th->cands + th->cstart[k - 1], th->cstart[k] - th->cstart[k - 1], th->cands + th->cstart[k],
                                  th->cstart[k + 1] - th->cstart[k]);
        for (size_t k = 0; k < th->nintervals; k++) {
            uint64_t d = th->start[k + 1] - th->start[k], c = th->ncand[k];
            minmax(d, &s.distinct_min, &s.distinct_max, s.intervals == 0);
            minmax(c, &s.cand_min, &s.cand_max, s.intervals == 0);
            dsum += d, csum += c, s.intervals++;
        }
    }
    if (s.intervals) s.distinct_mean = (double)dsum / (double)s.intervals, s.cand_mean = (double)csum / (double)s.intervals;
    if (pairs) s.change_mean = csum_change / (double)pairs;
    return s;
}

/* ---------------------------------------------------------------- the grid */

size_t hp_mhsim_grid_size(const hp_mhsim_grid *g)
{
    return g->tables.n * g->counters.n * (g->bits.n ? g->bits.n : 1) * g->conservative.n * g->reset.n * g->retain.n *
           g->shield.n * (g->hash.n ? g->hash.n : 1) * (g->acc.n ? g->acc.n : 1) *
           (g->variant.n ? g->variant.n : 1);
}

static uint32_t take(const hp_mhsim_axis *a, size_t *i)
{
    size_t n = a->n ? a->n : 1, k = *i % n;
    *i /= n;
    return a->n ? a->v[k] : 0;
}

static uint32_t bits_for(uint64_t T)
{
    uint32_t b = 1;
    while (b < 32 && (T >> b) != 0) b++;
    return b;
}

void hp_mhsim_grid_params(const hp_mhsim_grid *g, size_t i, hp_multihash_params *p)
{
    memset(p, 0, sizeof *p);
    uint32_t variant = take(&g->variant, &i);
    p->acc_entries = take(&g->acc, &i);
    p->fast_hash = (int)take(&g->hash, &i);
    p->shield = (int)take(&g->shield, &i);
    p->retain = (int)take(&g->retain, &i);
    p->reset = (int)take(&g->reset, &i);
    p->conservative = (int)take(&g->conservative, &i);
    p->counter_bits = take(&g->bits, &i);
    p->total_counters = take(&g->counters, &i);
    p->n_tables = take(&g->tables, &i);
    p->threshold = g->threshold, p->interval_length = g->interval, p->seed = g->seed;
    if (!p->counter_bits) p->counter_bits = bits_for(threshold_count(g->interval, g->threshold));
    uint32_t acc_div, area_div;
    if (!hp_multihash_variant_divisors((int)variant, &acc_div, &area_div))
        (void)hp_multihash_rebalance(p, acc_div, area_div, p); /* grid_check made sure it succeeds */
}

static int check_bool_axis(const hp_mhsim_axis *a, const char *name, char *err, size_t errlen)
{
    if (!a->n) { snprintf(err, errlen, "--%s needs at least one value", name); return -1; }
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i] > 1) { snprintf(err, errlen, "--%s takes 0 or 1, not %u", name, a->v[i]); return -1; }
    return 0;
}

/* --variant: known values; every design a rebalancing variant applies to has the paper's
 * accumulator (acc 0) and room for n counters once rebalanced. */
static int check_variant(const hp_mhsim_grid *g, char *err, size_t errlen)
{
    hp_mhsim_grid plain = *g;
    plain.variant.n = 0;
    for (size_t v = 0; v < g->variant.n; v++) {
        uint32_t acc_div, area_div;
        if (g->variant.v[v] == HP_MH_VARIANT_PAPER) continue;
        if (hp_multihash_variant_divisors((int)g->variant.v[v], &acc_div, &area_div)) {
            snprintf(err, errlen, "--variant: unknown variant %u", g->variant.v[v]);
            return -1;
        }
        for (size_t i = 0; i < hp_mhsim_grid_size(&plain); i++) {
            hp_multihash_params p, q;
            hp_mhsim_grid_params(&plain, i, &p);
            if (p.acc_entries) { snprintf(err, errlen, "--variant rebalanced/half sizes the accumulator itself: leave --acc at 0"); return -1; }
            if (hp_multihash_rebalance(&p, acc_div, area_div, &q)) {
                snprintf(err, errlen, "--variant: no room for %u counters in the area of the %u-counter design", p.n_tables, p.total_counters);
                return -1;
            }
        }
    }
    return 0;
}

int hp_mhsim_grid_check(const hp_mhsim_grid *g, char *err, size_t errlen)
{
    uint64_t T = threshold_count(g->interval, g->threshold);
    if (!g->interval || !T) { snprintf(err, errlen, "--interval must be >= 1 and --threshold in (0%%, 100%%]"); return -1; }
    if (!g->tables.n || !g->counters.n) { snprintf(err, errlen, "--tables and --counters need at least one value"); return -1; }
    for (size_t i = 0; i < g->tables.n; i++)
        if (g->tables.v[i] == 0) { snprintf(err, errlen, "--tables 0: a design needs at least one hash table"); return -1; }
    for (size_t i = 0; i < g->tables.n; i++)
        for (size_t j = 0; j < g->counters.n; j++)
            if (g->counters.v[j] < g->tables.v[i] || g->counters.v[j] % g->tables.v[i]) {
                snprintf(err, errlen, "--counters %u is not divisible by --tables %u (each table gets counters/tables)", g->counters.v[j], g->tables.v[i]);
                return -1;
            }
    for (size_t i = 0; i < g->bits.n; i++)
        if (g->bits.v[i] < 1 || g->bits.v[i] > 32 || (g->bits.v[i] < 32 && T > (1ull << g->bits.v[i]) - 1)) {
            snprintf(err, errlen, "--bits %u: counters of that width cannot hold the threshold T = %llu (interval %llu x %g%%); need >= %u bits", g->bits.v[i],
                     (unsigned long long)T, (unsigned long long)g->interval, g->threshold * 100, bits_for(T));
            return -1;
        }
    double most = ceil(1.0 / g->threshold - 1e-9);
    for (size_t i = 0; i < g->acc.n; i++)
        if ((double)g->acc.v[i] > most || (double)g->acc.v[i] > (double)g->interval) {
            snprintf(err, errlen, "--acc %u: the accumulator needs at most ceil(1/threshold) = %.0f entries (0 = that many)", g->acc.v[i], most);
            return -1;
        }
    if (check_bool_axis(&g->conservative, "conservative", err, errlen) || check_bool_axis(&g->reset, "reset", err, errlen) ||
        check_bool_axis(&g->retain, "retain", err, errlen) || check_bool_axis(&g->shield, "shield", err, errlen) ||
        (g->hash.n && check_bool_axis(&g->hash, "hash", err, errlen)))
        return -1;
    return check_variant(g, err, errlen);
}

/* ---------------------------------------------------------------- replay */

static double fp_bound(const hp_multihash_params *p)
{
    double x = 100.0 * p->n_tables / (p->threshold * 100.0 * p->total_counters);
    double b = pow(x, p->n_tables);
    return b > 1 ? 1 : b;
}

typedef struct acc { double e, fp, fn, np, nn; uint64_t n, nfp, noncand, cand; } acc;

/* True count of key in a key-sorted run of items; 0 if absent. */
static double true_count(const hp_metric_item *items, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (items[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && items[lo].key == key ? items[lo].weight : 0;
}

/* perfect = the interval's true candidates + the reported keys below T with their true counts. */
static void score(const hp_mhsim_input *in, const hp_mhsim_thread *th, size_t k, const hp_multihash *mh,
                  hp_metric_item *hw, hp_metric_item *perfect, hp_metric_item *scratch, acc *a)
{
    const hp_multihash_candidate *c;
    size_t nc = hp_multihash_report(mh, &c), n = th->start[k + 1] - th->start[k];
    size_t np = th->cstart[k + 1] - th->cstart[k];
    memcpy(perfect, th->cands + th->cstart[k], np * sizeof *perfect);
    for (size_t i = 0; i < nc; i++) {
        hw[i].key = c[i].key, hw[i].weight = (double)c[i].count;
        double f = true_count(th->items + th->start[k], n, c[i].key);
        if (f > 0 && f < (double)in->T) perfect[np].key = c[i].key, perfect[np++].weight = f;
    }
    hp_multihash_error e;
    hp_multihash_interval_error(perfect, np, hw, nc, (double)in->T, scratch, &e);
    a->e += e.total, a->fp += e.fp, a->fn += e.fn, a->np += e.np, a->nn += e.nn;
    a->nfp += e.n_fp, a->noncand += n - th->ncand[k], a->cand += th->ncand[k];
    a->n++;
}

int hp_mhsim_replay(const hp_mhsim_input *in, const hp_multihash_params *p, hp_mhsim_result *r)
{
    memset(r, 0, sizeof *r);
    r->p = *p;
    size_t bytes = hp_multihash_bytes(p);
    uint32_t acc_n = hp_multihash_acc_entries(p);
    void *mem = malloc(bytes ? bytes : 1);
    hp_metric_item *hw = malloc((acc_n + 1) * sizeof *hw), *perfect = malloc((in->max_items + acc_n + 1) * sizeof *perfect);
    hp_metric_item *scratch = malloc((in->max_items + 2 * (size_t)acc_n + 1) * sizeof *scratch);
    int rc = -1;
    acc a = {0};
    if (!bytes || !mem || !hw || !perfect || !scratch) goto out;
    for (size_t t = 0; t < in->nthreads; t++) {
        const hp_mhsim_thread *th = &in->threads[t];
        hp_multihash *mh = hp_multihash_init(mem, bytes, p);
        if (!mh) goto out;
        size_t k = 0;
        for (size_t i = 0; i < th->nkeys && k < th->nintervals; i++)
            if (hp_multihash_update(mh, th->keys[i])) score(in, th, k++, mh, hw, perfect, scratch, &a);
    }
    if (a.n) r->e = a.e / a.n, r->fp = a.fp / a.n, r->fn = a.fn / a.n, r->np = a.np / a.n, r->nn = a.nn / a.n;
    r->fp_rate = a.noncand ? (double)a.nfp / (double)a.noncand : 0;
    r->fp_bound = fp_bound(p);
    r->area = hp_multihash_area_bytes(p);
    r->intervals = a.n, r->candidates = a.cand;
    rc = 0;
out:
    free(mem), free(hw), free(perfect), free(scratch);
    return rc;
}

typedef struct job {
    const hp_mhsim_input *in;
    const hp_mhsim_grid *g;
    hp_mhsim_result *res;
    size_t total;
    atomic_size_t next, done;
    atomic_int failed;
    void (*progress)(size_t, size_t);
} job;

static void *worker(void *arg)
{
    job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->total;) {
        hp_multihash_params p;
        hp_mhsim_grid_params(j->g, i, &p);
        if (hp_mhsim_replay(j->in, &p, &j->res[i])) atomic_store(&j->failed, 1);
        j->res[i].variant = j->g->variant.n ? (int)j->g->variant.v[i % j->g->variant.n] : 0; /* the fastest axis */
        size_t d = atomic_fetch_add(&j->done, 1) + 1;
        if (j->progress) j->progress(d, j->total);
    }
    return NULL;
}

int hp_mhsim_run(const hp_mhsim_input *in, const hp_mhsim_grid *g, hp_mhsim_result *res, unsigned jobs,
                 void (*progress)(size_t done, size_t total))
{
    job j = {in, g, res, hp_mhsim_grid_size(g), 0, 0, 0, progress};
    pthread_t tids[64];
    unsigned started = 0;
    if (jobs > 64) jobs = 64;
    if (jobs > j.total) jobs = (unsigned)j.total;
    for (unsigned k = 1; k < jobs; k++)
        if (pthread_create(&tids[started], NULL, worker, &j) == 0) started++;
    worker(&j);
    for (unsigned k = 0; k < started; k++) pthread_join(tids[k], NULL);
    return atomic_load(&j.failed) ? -1 : 0;
}

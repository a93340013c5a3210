/* api.c — the whole public API of include/hotprof/hotprof.h: hotprof_flush and hotprof_version,
 * the online sampling API (switch and tune the bursty controller's profile types while the
 * program runs) and the current top-k of a profile.
 *
 * Flush: refreshes the module list and writes one group (writer.c), not final. Not
 * async-signal-safe (dl_iterate_phdr).
 *
 * Control: the hotprof_sample_* functions publish into the shared hp_g.bcfg through core/bursty's
 * seqlocked setters (any thread, writers serialize on the generation CAS); each thread adopts a
 * change on its own slow path, as docs/bursty.md defines. Nothing here touches a thread's state.
 *
 * Top-k: hotprof_snapshot_topk walks the lock-free thread list and reads each thread's live
 * table through its published pointer (tab.h: a grown table's old block stays mapped, a slot's
 * key is published after its counts), summing counts per key into a scratch table mmap'd for the
 * call, then keeps the k largest in the caller's array. Readers never write a thread's memory,
 * so a snapshot costs the program's threads nothing; its consistency is per count (each value
 * was held at some moment during the walk), not across keys.
 *
 * Invariants: the scratch table is sized to hold every key of every table seen at sizing time
 * at load <= 1/2 (and is unmapped, with any block it grew from, before returning).
 * Async-signal-safety: the control functions are lock-free and make no system call once the
 * runtime is initialized; snapshot_topk uses mmap/munmap only. Neither is meant for a handler.
 */
#include "runtime/init.h"
#include "runtime/thread.h"
#include "runtime/modules.h"
#include "runtime/writer.h"
#include "runtime/pt/pt.h"
#include "hotprof/hotprof.h"
#include "hotprof/version.h"
#include <sys/mman.h>

/* ---------------------------------------------------------------- flush, version */

HP_API int hotprof_flush(void)
{
    if (hp_rt_ensure_init() <= 0 || HP_LOAD_ACQ(&hp_g.stopped)) return -1;
    hp_modules_refresh();
    return hp_write_group(0, 0, 0, NULL) == HP_WRITE_OK ? 0 : -1;
}

HP_API const char *hotprof_version(void) { return HOTPROF_VERSION; }

/* ---------------------------------------------------------------- sampling control */

/* 1 if this process records in bursty mode (initializing the runtime if needed). */
static HP_NOINST int bursty_recording(void)
{
    return hp_rt_ensure_init() > 0 && HP_LOAD_ACQ(&hp_g.bursty) && !HP_LOAD_ACQ(&hp_g.stopped);
}

static HP_NOINST int valid_type(int type) { return type >= 0 && type < HP_BURSTY_NTYPES; }

HP_API int hotprof_sample_enable(enum hotprof_sample_type type, int on)
{
    if (!valid_type((int)type) || !bursty_recording()) return -1;
    return hp_bursty_config_enable(&hp_g.bcfg, (enum hp_bursty_type)type, on ? 1 : 0);
}

HP_API int hotprof_sample_set(enum hotprof_sample_type type, unsigned period, unsigned burst, unsigned jitter_percent)
{
    hp_bursty_params p;
    if (!valid_type((int)type) || !bursty_recording()) return -1;
    if (hp_bursty_config_get(&hp_g.bcfg, (enum hp_bursty_type)type, &p)) return -1;
    p.period = period, p.burst = burst, p.jitter_pct = jitter_percent; /* p.enabled stays */
    return hp_bursty_config_set(&hp_g.bcfg, (enum hp_bursty_type)type, &p);
}

/* ---------------------------------------------------------------- top-k */

/* The table a type's counts live in: methods have their own in bursty mode (and with XRay) and
 * are summed from the call pairs (calls + back-edges) in exhaustive mode. */
static HP_NOINST hp_tab *const *table_of(const hp_thread *t, int type)
{
    if (type == HOTPROF_SAMPLE_METHODS) return t->methods ? &t->methods : &t->pairs;
    if (type == HOTPROF_SAMPLE_CALLPAIRS) return &t->pairs;
    return &t->edges;
}

static HP_NOINST hp_tab *scratch_for(int type)
{
    uint64_t keys = 64, cap = 128;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_tab *tab = HP_LOAD_ACQ(table_of(t, type));
        if (tab) keys += tab->mask + 1;
    }
    while (cap < 2 * keys) cap *= 2;
    return hp_tab_new(cap);
}

/* Adds one live slot's count to the merged table. */
static HP_NOINST void merge_slot(hp_tab **sum, int type, const hp_slot *s, uint64_t k1)
{
    uint64_t v1 = HP_LOAD_RLX(&s->v1), v2 = HP_LOAD_RLX(&s->v2);
    uint64_t n = type == HOTPROF_SAMPLE_METHODS ? v1 + v2 : v1;
    if (!n) return;
    hp_slot *m = hp_tab_get(sum, k1, type == HOTPROF_SAMPLE_CALLPAIRS ? s->k2 : 0);
    m->v1 += n;
}

static HP_NOINST void merge_threads(hp_tab **sum, int type)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_tab *tab = HP_LOAD_ACQ(table_of(t, type));
        for (uint64_t i = 0; tab && i <= tab->mask; i++) {
            uint64_t k1 = HP_LOAD_ACQ(&tab->s[i].k1);
            if (k1) merge_slot(sum, type, &tab->s[i], k1);
        }
    }
}

static HP_NOINST hotprof_topk_entry entry_of(int type, const hp_slot *s)
{
    if (type == HOTPROF_SAMPLE_EDGES) return (hotprof_topk_entry){s->k1 >> 32, (uint32_t)s->k1, s->v1};
    return (hotprof_topk_entry){s->k1, s->k2, s->v1};
}

static HP_NOINST int ranks_before(const hotprof_topk_entry *a, const hotprof_topk_entry *b)
{
    if (a->count != b->count) return a->count > b->count;
    return a->key1 != b->key1 ? a->key1 < b->key1 : a->key2 < b->key2;
}

/* Insertion into out[0..*n) kept sorted, at most k entries. */
static HP_NOINST void keep_top(hotprof_topk_entry *out, int k, int *n, hotprof_topk_entry e)
{
    if (*n == k && !ranks_before(&e, &out[k - 1])) return;
    int i = *n < k ? (*n)++ : k - 1;
    for (; i > 0 && ranks_before(&e, &out[i - 1]); i--) out[i] = out[i - 1];
    out[i] = e;
}

/* Subpaths: the type's live rows (pt/subpath.c), in a scratch mapping. */
static HP_NOINST int subpath_topk(int k, hotprof_topk_entry *out)
{
    if (!HP_LOAD_ACQ(&hp_g.osp) || !hp_pt_subpath.live_rows) return -1;
    if (k == 0) return 0;
    size_t bytes = (size_t)k * sizeof(hp_live_row);
    hp_live_row *rows = hp_map(bytes);
    if (!rows) return -1;
    int n = hp_pt_subpath.live_rows(rows, k);
    for (int i = 0; i < n; i++)
        out[i] = (hotprof_topk_entry){rows[i].key, rows[i].key2, (uint64_t)(rows[i].value + 0.5)};
    munmap(rows, bytes);
    return n;
}

HP_API int hotprof_snapshot_topk(enum hotprof_sample_type type, int k, hotprof_topk_entry *out)
{
    int t = (int)type, n = 0;
    if (t == HOTPROF_SAMPLE_SUBPATH) {
        if (k < 0 || (k > 0 && !out) || hp_rt_ensure_init() <= 0) return -1;
        return subpath_topk(k, out);
    }
    if (k < 0 || (k > 0 && !out) || !valid_type(t) || t == HOTPROF_SAMPLE_DATASTREAM) return -1;
    if (hp_rt_ensure_init() <= 0) return -1;
    if (k == 0) return 0;
    hp_tab *first = scratch_for(t), *sum = first;
    if (!sum) return -1;
    merge_threads(&sum, t);
    for (uint64_t i = 0; i <= sum->mask; i++)
        if (sum->s[i].k1) keep_top(out, k, &n, entry_of(t, &sum->s[i]));
    if (sum != first) munmap(first, hp_tab_bytes(first)); /* it grew: the copy's source is ours too */
    munmap(sum, hp_tab_bytes(sum));
    return n;
}

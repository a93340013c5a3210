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
 * Top-k: hotprof_snapshot_topk is the merged walk of pt/topk.h (shared with the live views):
 * every thread's live table read through its published pointer, counts summed per key into a
 * scratch table, the k largest kept (in rows mmap'd for the call, then copied into the caller's
 * array). Readers never write a thread's memory, so a snapshot costs the program's threads
 * nothing; its consistency is per count, not across keys.
 * Async-signal-safety: the control functions are lock-free and make no system call once the
 * runtime is initialized; snapshot_topk uses mmap/munmap only. Neither is meant for a handler.
 */
#include "runtime/init.h"
#include "runtime/thread.h"
#include "runtime/modules.h"
#include "runtime/writer.h"
#include "runtime/pt/pt.h"
#include "runtime/pt/topk.h"
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

/* The shared merged walk (pt/topk.h) of a type's tables. */
static HP_NOINST enum hp_topk_kind kind_of(int type)
{
    if (type == HOTPROF_SAMPLE_METHODS) return HP_TOPK_METHODS;
    return type == HOTPROF_SAMPLE_CALLPAIRS ? HP_TOPK_CALLPAIRS : HP_TOPK_EDGES;
}

static HP_NOINST hotprof_topk_entry entry_of(int type, const hp_live_row *r)
{
    uint64_t count = (uint64_t)r->value;
    if (type == HOTPROF_SAMPLE_EDGES) return (hotprof_topk_entry){r->key >> 32, (uint32_t)r->key, count};
    return (hotprof_topk_entry){r->key, r->key2, count};
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
    int t = (int)type;
    if (t == HOTPROF_SAMPLE_SUBPATH) {
        if (k < 0 || (k > 0 && !out) || hp_rt_ensure_init() <= 0) return -1;
        return subpath_topk(k, out);
    }
    if (k < 0 || (k > 0 && !out) || !valid_type(t) || t == HOTPROF_SAMPLE_DATASTREAM) return -1;
    if (hp_rt_ensure_init() <= 0) return -1;
    if (k == 0) return 0;
    size_t bytes = (size_t)k * sizeof(hp_live_row);
    hp_live_row *rows = hp_map(bytes);
    if (!rows) return -1;
    int n = hp_topk_merged(kind_of(t), rows, k);
    for (int i = 0; i < n; i++) out[i] = entry_of(t, &rows[i]);
    munmap(rows, bytes);
    return n;
}

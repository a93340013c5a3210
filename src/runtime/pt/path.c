/* path.c — the path profile type (core/ptype: HP_PT_PATH) in the runtime: recording (pathval.h,
 * hp_rt_path_block) and writing (one PATHS section per thread that completed a path, one
 * hp_rec_path per distinct (key, length), its guard ids when kept; the group INFO of pathval.c).
 *
 * State (hp_path_thread): the path in progress (ids[0..len), its running key h), the table of
 * completed paths (tab.h: k1 = key, k2 = length, v1 = count, v2 = 1 + arena offset or 0) and the
 * sequence arena: HP_PATH_ARENA guard ids mapped once (MAP_NORESERVE: pages are touched as
 * they fill), never grown; a new key whose sequence does not fit is counted without it (unkept).
 * The table holds at most HP_PATH_MAX_KEYS distinct paths; completions of further new paths are
 * counted in `dropped` only (INFO path.dropped).
 * A path still in progress when the profile is written is not counted (docs/paths.md).
 *
 * Async-signal-safety: memory and mmap (table growth); `busy` drops a signal handler's blocks
 * that interrupt an update on the same thread.
 */
#include "runtime/pt/pathval.h"
#include "runtime/pt/pt.h"
#include "core/format/format.h"
#include "core/ptype/path.h"
#include "core/ptype/ptype.h"

#define HP_PATH_ARENA (1u << 22) /* guard ids of kept sequences per thread (16 MiB virtual) */
#define HP_PATH_MAX_KEYS (1u << 20) /* distinct paths per thread (a 64 MiB table at most) */

typedef struct hp_path_thread {
    uint32_t len, maxlen;
    uint32_t busy, failed;
    uint32_t backedge, pad; /* two-version code: the latch hook saw a taken back-edge (hp_rt_path_backedge) */
    hp_rt_gaps gaps;      /* the program's own time between hooks, sampled (hp_rt_gap_close/open) */
    uint64_t h;           /* running key of ids[0..len) */
    uint64_t paths;       /* completed */
    uint64_t unkept;      /* distinct paths counted without their sequence */
    uint64_t dropped;     /* completions of new paths past HP_PATH_MAX_KEYS (not counted) */
    hp_tab *counts;
    uint32_t *arena;
    uint64_t arena_used;
    uint32_t ids[];       /* maxlen */
} hp_path_thread;

static HP_NOINST __attribute__((cold)) hp_path_thread *path_state(hp_thread *t)
{
    uint32_t maxlen = hp_rt_pathval_params()->maxlen;
    hp_path_thread *p = hp_map(sizeof *p + maxlen * sizeof(uint32_t));
    if (!p) return NULL;
    p->maxlen = maxlen;
    p->h = HP_PATH_SEED;
    p->counts = hp_tab_new(HP_TAB_INITIAL * 16);
    p->arena = hp_map(HP_PATH_ARENA * sizeof(uint32_t));
    if (!p->counts) return NULL; /* (leaks the small state: mmap already failing) */
    HP_STORE_REL(&t->path, p);
    return p;
}

/* The slot of (key, len) if the table holds it, else NULL (no insertion). */
static HP_NOINST hp_slot *path_find(hp_tab *t, uint64_t key, uint64_t len)
{
    for (uint64_t i = hp_tab_hash(t, key, len);; i = (i + 1) & t->mask) {
        hp_slot *s = &t->s[i];
        if (s->k1 == key && s->k2 == len) return s;
        if (!s->k1) return NULL;
    }
}

/* Counts the path in progress and starts an empty one. */
static HP_NOINST void path_end(hp_path_thread *p)
{
    uint32_t len = p->len;
    uint64_t key = hp_path_final(p->h, len);
    p->len = 0;
    p->h = HP_PATH_SEED;
    hp_slot *s = p->counts->used < HP_PATH_MAX_KEYS ? hp_tab_get(&p->counts, key, len) : path_find(p->counts, key, len);
    if (!s) {
        HP_BUMP(&p->dropped);
        return;
    }
    if (!s->v1 && !s->v2) { /* first time: keep the sequence if the arena has room */
        if (p->arena && p->arena_used + len <= HP_PATH_ARENA) {
            for (uint32_t i = 0; i < len; i++) p->arena[p->arena_used + i] = p->ids[i];
            HP_STORE_REL(&s->v2, p->arena_used + 1);
            p->arena_used += len;
        } else
            HP_BUMP(&p->unkept);
    }
    HP_BUMP(&s->v1);
    HP_BUMP(&p->paths);
}

/* ---- the program's own time between hooks (pathval.h: hp_rt_gaps) ---- */

#define GAP_EVERY 64u
#define GAP_MAX 100000u /* cycles (~30-50 us): a longer gap held a preemption, a signal or a fault: dropped */

static inline void gap_close(hp_rt_gaps *g)
{
    if (HP_LIKELY(!g->open)) return;
    uint64_t d = __builtin_ia32_rdtsc() - g->open;
    g->open = 0;
    if (d > GAP_MAX) return;
    g->n++;
    if (d < HP_GAP_BUCKETS * HP_GAP_BUCKET) g->hist[d / HP_GAP_BUCKET]++;
    else g->big_sum += d, g->big_n++;
}

static inline void gap_open(hp_rt_gaps *g)
{
    if (HP_UNLIKELY(++g->segments % GAP_EVERY == 0)) g->open = __builtin_ia32_rdtsc();
}

HP_NOINST void hp_rt_gap_close(hp_thread *t)
{
    hp_path_thread *p = t->path;
    if (p) gap_close(&p->gaps);
}

HP_NOINST void hp_rt_gap_open(hp_thread *t)
{
    hp_path_thread *p = t->path;
    if (p) gap_open(&p->gaps);
}

/* The gap (cycles) below which pct percent of t's timed gaps lie; 0 if none. */
uint64_t hp_rt_gap_pct(const hp_thread *t, unsigned pct)
{
    const hp_path_thread *p = t ? t->path : NULL;
    if (!p || !p->gaps.n) return 0;
    uint64_t seen = 0, b = 0;
    while (b < HP_GAP_BUCKETS && (seen += p->gaps.hist[b]) * 100 < p->gaps.n * pct) b++;
    return b * HP_GAP_BUCKET;
}

uint64_t hp_rt_native_cycles(const hp_thread *t)
{
    const hp_path_thread *p = t ? t->path : NULL;
    if (!p || !p->gaps.n) return 0;
    const hp_rt_gaps *g = &p->gaps;
    uint64_t seen = 0, b = 0;
    while (b < HP_GAP_BUCKETS && (seen += g->hist[b]) * 10 < g->n) b++;
    double floor = (double)b * HP_GAP_BUCKET, sum = 0; /* the hooks' fixed part: the 10th percentile */
    for (uint32_t i = b; i < HP_GAP_BUCKETS; i++) sum += g->hist[i] * ((double)i * HP_GAP_BUCKET - floor);
    sum += (double)g->big_sum - (double)g->big_n * floor;
    return (uint64_t)(sum / (double)g->n * (double)g->segments);
}

HP_NOINST void hp_rt_path_block(hp_thread *t, uint32_t id, int backedge)
{
    hp_path_thread *p = t->path;
    if (HP_UNLIKELY(!p) && !(p = path_state(t))) return;
    gap_close(&p->gaps);
    if (HP_UNLIKELY(p->busy)) return;
    p->busy = 1;
    backedge |= (int)p->backedge;
    p->backedge = 0;
    if (backedge && p->len) path_end(p);
    p->ids[p->len++] = id;
    p->h = hp_path_step(p->h, id);
    if (p->len >= p->maxlen) path_end(p);
    p->busy = 0;
    gap_open(&p->gaps);
}

HP_NOINST void hp_rt_path_backedge(hp_thread *t)
{
    hp_path_thread *p = t->path;
    if (p) p->backedge = 1;
}

void hp_rt_path_totals(uint64_t *paths, uint64_t *unkept, uint64_t *dropped)
{
    *paths = *unkept = *dropped = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_path_thread *p = HP_LOAD_ACQ(&t->path);
        if (p) *paths += HP_LOAD_RLX(&p->paths), *unkept += HP_LOAD_RLX(&p->unkept), *dropped += HP_LOAD_RLX(&p->dropped);
    }
}

/* ---- writing ---- */

static HP_NOINST void put_path(const hp_slot *s, uint64_t k1, const hp_pt_sink *o, const hp_path_thread *p)
{
    uint64_t count = HP_LOAD_RLX(&s->v1), off = HP_LOAD_ACQ(&s->v2);
    uint32_t len = (uint32_t)s->k2;
    if (!count || len < 1 || len > HP_PATH_MAX_LENGTH) return;
    const uint32_t *seq = off && off - 1 + len <= HP_PATH_ARENA ? p->arena + off - 1 : NULL;
    uint8_t rec[HP_REC_PATH_FIXED];
    hp_rec_path r = {k1, count, len, seq ? len : 0};
    hp_fmt_put_path(rec, &r);
    o->put(rec, sizeof rec);
    if (seq) hp_pt_put_u32s(o, seq, len);
}

static HP_NOINST uint64_t thread_events(const hp_thread *t)
{
    const hp_path_thread *p = HP_LOAD_ACQ(&t->path);
    return p ? HP_LOAD_RLX(&p->paths) : 0;
}

static HP_NOINST void write_thread(const hp_thread *t, const hp_pt_sink *o)
{
    const hp_path_thread *p = HP_LOAD_ACQ(&t->path);
    if (!p || !HP_LOAD_RLX(&p->paths)) return;
    const hp_tab *c = HP_LOAD_ACQ(&p->counts);
    o->begin(HP_SEC_PATHS);
    for (uint64_t i = 0; i <= c->mask; i++) {
        uint64_t k1 = HP_LOAD_ACQ(&c->s[i].k1);
        if (k1) put_path(&c->s[i], k1, o, p);
    }
    o->end();
}

const hp_pt hp_pt_path = {.ptype = HP_PT_PATH, .write_thread = write_thread, .thread_events = thread_events,
                          .group_info = hp_rt_pathval_info};

/* values_hook.c — the value profile of exhaustive runs (pathval.h, hp_rt_val_add): one thread's
 * value sites (pc, kind, operand), each with a TNV table (core/summary/tnv.h: `entries` entries,
 * lower half cleared every `clear` updates) or a Gibbons-Matias list (core/summary/value_gm.h),
 * as value:summary= says; and their iteration for pt/value.c's VALUES records.
 *
 * State (hp_vals_thread, mapped at the thread's first value): an open-addressing table of
 * 2 x sites slots (a power of two, load <= 1/2) whose slot i, once its pc is set, owns summary
 * number idx in one block of sites x (summary bytes). Both are mapped once with MAP_NORESERVE
 * (pages touched as sites appear): memory is bounded by `sites`; a value of a new site past the
 * cap is counted in `dropped`.
 *
 * Invariants: only the owning thread writes; a slot's summary is initialized before its pc is
 * stored (release), and a slot's key never changes, so the writer reads keys safely and counts
 * approximately (a table caught mid-update is trimmed to the record rules: counts > 0, highest
 * first, summing to at most captures). Async-signal-safe: memory and mmap; `busy` drops the
 * values of a signal handler that interrupts an update on the same thread.
 */
#include "runtime/pt/pathval.h"
#include "core/format/format.h"
#include "core/summary/tnv.h"
#include "core/summary/value_gm.h"

typedef struct hp_vsite {
    uint64_t pc;          /* 0: empty (stored last, release) */
    uint64_t captures;    /* values offered to this site */
    uint32_t idx;         /* its summary's number */
    uint8_t kind, operand;
    uint16_t pad;
} hp_vsite;

typedef struct hp_vals_thread {
    uint32_t busy, summary;   /* enum hp_pv_summary */
    uint32_t nsites, cap;     /* sites held, at most cap */
    uint64_t mask;            /* slots - 1 */
    uint64_t dropped;         /* values of sites past the cap (or with no state) */
    uint64_t bytes;           /* one summary's bytes */
    uint32_t entries, clear;  /* tnv settings */
    uint8_t *summaries;       /* cap x bytes */
    hp_vsite slots[];
} hp_vals_thread;

static HP_NOINST __attribute__((cold)) hp_vals_thread *vals_state(hp_thread *t)
{
    const hp_pv_params *pv = hp_rt_pathval_params();
    uint64_t slots = 32;
    while (slots < 2ull * pv->sites) slots *= 2;
    hp_vals_thread *v = hp_map(sizeof *v + slots * sizeof(hp_vsite));
    if (!v) return NULL;
    v->summary = (uint32_t)pv->values;
    v->cap = pv->sites;
    v->mask = slots - 1;
    v->entries = pv->entries, v->clear = pv->clear;
    v->bytes = v->summary == HP_PV_TNV ? hp_tnv_bytes(v->entries) : sizeof(hp_vgm);
    v->bytes = (v->bytes + 15) & ~(uint64_t)15;
    if (!(v->summaries = hp_map(v->cap * v->bytes))) return NULL;
    HP_STORE_REL(&t->vals, v);
    return v;
}

static HP_NOINST void *summary_of(const hp_vals_thread *v, const hp_vsite *s) { return v->summaries + s->idx * v->bytes; }

/* The site of (pc, kind, operand), created if there is room; NULL past the cap. */
static HP_NOINST hp_vsite *site(hp_vals_thread *v, uint64_t pc, uint8_t kind, uint8_t operand)
{
    uint64_t h = (pc * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)kind << 8 | operand) * 0xc2b2ae3d27d4eb4full;
    for (uint64_t i = h >> 20;; i++) {
        hp_vsite *s = &v->slots[i & v->mask];
        if (s->pc == pc && s->kind == kind && s->operand == operand) return s;
        if (s->pc) continue;
        if (v->nsites >= v->cap) return NULL;
        s->kind = kind, s->operand = operand, s->idx = v->nsites++;
        if (v->summary == HP_PV_TNV) hp_tnv_init(summary_of(v, s), v->bytes, v->entries, v->clear);
        else hp_vgm_init(summary_of(v, s), h);
        HP_STORE_REL(&s->pc, pc);
        return s;
    }
}

HP_NOINST void hp_rt_val_add(hp_thread *t, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value)
{
    hp_vals_thread *v = t->vals;
    if (HP_UNLIKELY(!v) && !(v = vals_state(t))) return;
    if (HP_UNLIKELY(v->busy)) return;
    hp_rt_gap_close(t);
    v->busy = 1;
    hp_vsite *s = site(v, pc, kind, operand);
    if (!s) HP_BUMP(&v->dropped);
    else {
        HP_BUMP(&s->captures);
        if (v->summary == HP_PV_TNV) hp_tnv_update(summary_of(v, s), value, 1);
        else hp_vgm_add(summary_of(v, s), value);
    }
    v->busy = 0;
    hp_rt_gap_open(t);
}

void hp_rt_vals_totals(uint64_t *sites, uint64_t *dropped)
{
    *sites = *dropped = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_vals_thread *v = HP_LOAD_ACQ(&t->vals);
        if (v) *sites += HP_LOAD_RLX(&v->nsites), *dropped += HP_LOAD_RLX(&v->dropped);
    }
}

/* ---- iteration for the writer ---- */

/* Sorts e[0..n) by count, highest first, ties by value (insertion sort: n <= 64). */
static HP_NOINST void sort_desc(hp_value_count *e, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        hp_value_count x = e[i];
        uint32_t j = i;
        while (j && (e[j - 1].count < x.count || (e[j - 1].count == x.count && e[j - 1].value > x.value))) e[j] = e[j - 1], j--;
        e[j] = x;
    }
}

/* A site's entries into e[HP_VALUE_MAX_ENTRIES] (counts > 0); returns how many; *tau its threshold. */
static HP_NOINST uint32_t site_entries(const hp_vals_thread *v, const hp_vsite *s, hp_value_count *e, double *tau)
{
    uint32_t n = 0;
    *tau = 1;
    if (v->summary == HP_PV_TNV) {
        const hp_tnv_entry *te;
        uint32_t used = hp_tnv_entries(summary_of(v, s), &te);
        for (uint32_t i = 0; i < used && i < v->entries && n < HP_VALUE_MAX_ENTRIES; i++)
            if (te[i].count) e[n++] = te[i];
    } else {
        hp_vgm gm;
        __builtin_memcpy(&gm, summary_of(v, s), sizeof gm);
        if (gm.n > HP_VGM_N) gm.n = HP_VGM_N; /* caught mid-update */
        hp_vgm_entry ge[HP_VGM_N];
        uint32_t k = hp_vgm_sorted(&gm, ge);
        for (uint32_t i = 0; i < k; i++)
            if (ge[i].count) e[n].value = ge[i].value, e[n++].count = ge[i].count;
        *tau = gm.tau >= 1 ? gm.tau : 1;
    }
    sort_desc(e, n);
    return n;
}

uint32_t hp_rt_vals_each(const hp_thread *t, hp_rt_val_fn *fn, void *arg)
{
    const hp_vals_thread *v = HP_LOAD_ACQ(&t->vals);
    uint32_t sites = 0;
    for (uint64_t i = 0; v && i <= v->mask; i++) {
        const hp_vsite *s = &v->slots[i];
        uint64_t pc = HP_LOAD_ACQ(&s->pc), captures = HP_LOAD_RLX(&s->captures), sum = 0, pairs[2 * HP_VALUE_MAX_ENTRIES];
        if (!pc || !captures) continue;
        hp_value_count e[HP_VALUE_MAX_ENTRIES];
        double tau;
        uint32_t n = site_entries(v, s, e, &tau), kept = 0;
        for (; kept < n && sum + e[kept].count <= captures; kept++) {
            sum += e[kept].count;
            pairs[2 * kept] = e[kept].value, pairs[2 * kept + 1] = e[kept].count;
        }
        hp_rec_value r = {pc, captures, tau, s->kind, s->operand, (uint16_t)kept};
        fn(arg, &r, pairs);
        sites++;
    }
    return sites;
}

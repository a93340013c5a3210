/* samples_export.c — the samples profile type's exports: folded stacks (`report --format folded`:
 * one line per stack, outermost frame first, the recorded counts), pprof (`--format pprof`: one
 * sample per stack, leaf first, values samples/count and cpu/nanoseconds = samples x the period
 * 1e9 / timer.freq), compare's view "samples" (keyed by the interrupted pc; by function name
 * across builds: the function's self samples) and the HTML report's call graph (self samples; caller -> callee samples of adjacent frames).
 * Invariant: folded and pprof counts sum to hp_samples_total() (up to saturation).
 */
#define _GNU_SOURCE
#include "analysis/ptype/samples.h"
#include "analysis/ptype/aptype.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include <stdlib.h>
#include <string.h>

#define TAG_SAMPLE_FUNC 0x73616d706c65ull /* compare name-key tag */
#define NAME_LEN 256

/* ---- folded ---- */

static int fold_stack(hp_fold *f, const hp_stack_stat *st, hp_symbolizer *s, char (*names)[NAME_LEN])
{
    const char *frames[HP_STACK_MAX_DEPTH];
    for (size_t i = 0; i < st->depth; i++) {
        size_t at = st->depth - 1 - i; /* outermost first */
        hp_sym_name(hp_sym_lookup(s, hp_stack_frame_addr(st, at)), names[i], NAME_LEN);
        frames[i] = names[i];
    }
    return hp_fold_add(f, frames, st->depth, st->count);
}

int hp_samples_folded(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    hp_fold f;
    char(*names)[NAME_LEN] = malloc(HP_STACK_MAX_DEPTH * sizeof *names);
    int rc = names ? 0 : -1;
    hp_fold_init(&f);
    for (size_t i = 0; i < p->nstacks && !rc; i++) rc = fold_stack(&f, &p->stacks[i], s, names);
    if (!rc) rc = hp_fold_write(out, &f);
    hp_fold_free(&f);
    free(names);
    return rc;
}

/* ---- pprof ---- */

static int64_t period_ns(const hp_profile *p)
{
    const char *v = hp_profile_info(p, HP_INFO_TIMER_FREQ);
    unsigned long hz = v ? strtoul(v, NULL, 10) : 0;
    return hz ? (int64_t)(1000000000ul / hz) : 1000000; /* the default 1 kHz */
}

int hp_samples_pprof(hp_pprof_export *x)
{
    const hp_profile *p = x->p;
    int64_t period = period_ns(p);
    if (hp_pprof_sample_type(x->b, "samples", "count") || hp_pprof_sample_type(x->b, "cpu", "nanoseconds") ||
        hp_pprof_default_type(x->b, "cpu") || hp_pprof_period(x->b, "cpu", "nanoseconds", period) ||
        hp_pprof_comment(x->b, "timer samples (hotprof --mode timer): cpu = samples x the period 1e9 / timer.freq"))
        return -1;
    for (size_t i = 0; i < p->nstacks; i++) {
        const hp_stack_stat *st = &p->stacks[i];
        uint64_t locs[HP_STACK_MAX_DEPTH];
        for (size_t k = 0; k < st->depth; k++)
            if (!(locs[k] = hp_pprof_export_location(x, hp_stack_frame_addr(st, k)))) return -1;
        uint64_t c = st->count;
        int64_t v[2] = {hp_pprof_value(c), c > (uint64_t)(INT64_MAX / period) ? INT64_MAX : (int64_t)c * period};
        if (hp_pprof_sample(x->b, locs, st->depth, v, 2)) return -1;
    }
    return 0;
}

/* ---- HTML call graph: self samples per function, caller -> callee samples per frame pair ---- */

int hp_samples_graph(hp_callgraph *g, const hp_profile *p, hp_symbolizer *s)
{
    char callee[NAME_LEN], caller[NAME_LEN];
    for (size_t i = 0; i < p->nstacks; i++) {
        const hp_stack_stat *st = &p->stacks[i];
        hp_sym_name(hp_sym_lookup(s, st->pcs[0]), callee, sizeof callee);
        if (hp_cg_add_self(g, callee, st->count)) return -1;
        for (size_t k = 1; k < st->depth; k++) {
            hp_sym_name(hp_sym_lookup(s, hp_stack_frame_addr(st, k)), caller, sizeof caller);
            if (hp_cg_add_call(g, caller, callee, st->count)) return -1;
            memcpy(callee, caller, sizeof callee);
        }
    }
    return 0;
}

/* ---- compare ---- */

static size_t view_size(const hp_profile *p) { return p->nstacks; }

static void collect_pcs(const hp_profile *p, hp_cmp_sink *s)
{
    for (size_t i = 0; i < p->nstacks; i++) {
        int mapped;
        uint64_t key = hp_cmp_addr_key(p, p->stacks[i].pcs[0], &mapped);
        hp_cmp_sink_add(s, key, p->stacks[i].count, mapped);
    }
}

static void collect_named(const hp_profile *p, hp_symbolizer *sym, hp_cmp_sink *s)
{
    for (size_t i = 0; i < p->nstacks; i++) {
        char name[512];
        hp_rt_portable_name(p, sym, p->stacks[i].pcs[0], name, sizeof name);
        hp_cmp_sink_add(s, hp_cmp_name_key(TAG_SAMPLE_FUNC, name), p->stacks[i].count,
                        hp_profile_module_at(p, p->stacks[i].pcs[0]) != NULL);
    }
}

const hp_cmp_view hp_samples_views[HP_SAMPLES_NVIEWS] = {
    {"samples", "samples (self, by pc)", 10, view_size, collect_pcs, collect_named, 0},
};

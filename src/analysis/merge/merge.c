/* merge.c — the merge's driver and output (merge.h): check, rebase modules, let every profile
 * type add each input's table (aptype.h merge_add; a type without it is dropped with a note when
 * an input has rows of it), then write one profile file image: file header (the first input's
 * seed), INFO, MODULES, BLOCKMAP, THREAD 0 with the pooled events (when an input has threads), each type's sections
 * (merge_write), group INFO, GROUP_END (sequence 0, FINAL when every input's last group was).
 * Invariants: out holds a complete file on success and is freed on failure; every per-type
 * accumulator is freed whatever happens.
 */
#define _GNU_SOURCE
#include "analysis/merge/merge.h"
#include "analysis/ptype/aptype.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hp_merge_fail(hp_merge *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (m->errlen) vsnprintf(m->err, m->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void hp_merge_note(hp_merge *m, const char *fmt, ...)
{
    size_t used = strlen(m->notes);
    va_list ap;
    if (used + 2 >= sizeof m->notes) return;
    va_start(ap, fmt);
    vsnprintf(m->notes + used, sizeof m->notes - used - 1, fmt, ap);
    va_end(ap);
    used = strlen(m->notes);
    m->notes[used] = '\n', m->notes[used + 1] = 0;
}

int hp_merge_accumulate(hp_merge *m, hp_pairmap *map, uint64_t k1, uint64_t k2, uint64_t a, uint64_t b)
{
    hp_pair_item *it = hp_pairmap_get(map, k1, k2);
    if (!it) return hp_merge_fail(m, "out of memory");
    it->v1 = hp_sat_add(it->v1, a);
    it->v2 = hp_sat_add(it->v2, b);
    return 0;
}

/* Every input's table of every type; notes for the types that cannot merge. */
static int add_tables(hp_merge *m)
{
    for (int t = 0; t < HP_PT_COUNT; t++) {
        const hp_aptype *a = hp_aptypes[t];
        for (size_t i = 0; i < m->nin; i++) {
            if (a->merge_add && a->merge_add(m, &m->acc[t], i)) return -1;
            if (!a->merge_add && a->rows && a->rows(m->in[i]))
                hp_merge_note(m, "%s: the %s table is dropped (this profile type cannot be merged)", m->in[i]->name,
                              hp_ptypes[t]->name);
        }
    }
    for (size_t i = 0; i < m->nin; i++)
        if (m->in[i]->nsummaries > m->in[i]->ds.states)
            hp_merge_note(m, "%s: %zu SUMMARY section(s) the reader did not merge (a profile type this hotprof does "
                          "not know, or a datastream detector of another configuration) are dropped",
                          m->in[i]->name, m->in[i]->nsummaries - m->in[i]->ds.states);
    return 0;
}

static void write_globals(hp_merge *m, hp_pbuild *b)
{
    for (size_t k = 0; k < m->nmods; k++) {
        const hp_module *o = &m->mods[k];
        hp_pbuild_module(b, o->base, o->lo, o->hi, o->path, o->buildid, o->buildid_len);
    }
    if (m->nbmap) hp_pbuild_blockmap(b, m->bmap, m->nbmap);
}

static int write_all(hp_merge *m, hp_pbuild *b)
{
    hp_pbuild_init(b, m->in[0]->header.seed);
    if (hp_merge_write_info(m, b, 0)) return -1;
    write_globals(m, b);
    if (hp_merge_threads(m)) hp_pbuild_thread(b, 0, hp_merge_thread_events(m));
    for (int t = 0; t < HP_PT_COUNT; t++)
        if (hp_aptypes[t]->merge_write && hp_aptypes[t]->merge_write(m, b, &m->acc[t])) return -1;
    if (hp_merge_write_info(m, b, 1)) return -1;
    hp_pbuild_group_end(b, 0, hp_merge_group_flags(m), hp_merge_status(m));
    return b->ok ? 0 : hp_merge_fail(m, "out of memory");
}

static void note_outside(hp_merge *m)
{
    if (m->outside)
        hp_merge_note(m, "%" PRIu64 " address(es) lie in no recorded module and are kept as they are (they may not "
                      "symbolize)", m->outside);
}

static void release(hp_merge *m)
{
    for (int t = 0; t < HP_PT_COUNT; t++) {
        hp_pairmap_free(&m->acc[t].map);
        free(m->acc[t].mem);
    }
    hp_merge_guards_free(m);
    hp_merge_modules_free(m);
}

int hp_merge_profiles(hp_profile *const *in, size_t n, const hp_merge_opts *o, hp_pbuild *out, char *err,
                      size_t errlen, char *notes, size_t noteslen)
{
    hp_merge *m = calloc(1, sizeof *m);
    *out = (hp_pbuild){0};
    if (!m) return snprintf(err, errlen, "out of memory"), -1;
    m->in = in, m->nin = n, m->opts = *o, m->err = err, m->errlen = errlen;
    int rc = n ? 0 : hp_merge_fail(m, "no input");
    if (!rc) rc = hp_merge_check(m);
    if (!rc) rc = hp_merge_modules(m);
    if (!rc) rc = add_tables(m);
    if (!rc) rc = write_all(m, out);
    if (rc) hp_pbuild_free(out);
    note_outside(m);
    if (noteslen) snprintf(notes, noteslen, "%s", rc ? "" : m->notes);
    release(m);
    free(m);
    return rc;
}

/* reader_check.c — cross-section consistency of a file whose every section is already checksum-
 * and shape-valid (reader.h; the rules are docs/format.md, "Reading a file", rule 6).
 *
 * In every complete group (not only the last one, which is the one decoded):
 *   - a section of a profile type (records, or a SUMMARY) follows a THREAD of its group;
 *   - one thread has at most one section of each type (and one SUMMARY of each id);
 *   - one thread id opens at most one THREAD in a group;
 *   - GROUP_END: only known flags, not both FINAL and CRASH, EXEC only with FINAL (status 0); a
 *     crash's status is -signal (-64..-1);
 *     a final status fits an int; a periodic snapshot's (no flag) is 0; sequences grow;
 *   - a section of a type with a `check` hook (datastream summaries: deserialized and validated)
 *     passes it: one that does not is an error, as it is in the last group.
 * Every other rule broken is a warning (the counts are still read and added up), at most
 * MAX_WARNINGS of them, then one line saying how many more there were.
 */
#include "analysis/reader.h"
#include "analysis/ptype/aptype.h"
#include "core/base/bytes.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_WARNINGS 16
#define MAX_SIGNAL 64

typedef struct walk {
    hp_reader *r;
    int group, in_thread;
    uint64_t tid;
    uint32_t types_seen;     /* bit per section type (< 32) in the current thread */
    uint64_t summaries_seen; /* bit per SUMMARY id (< 64) in the current thread */
    hp_pairmap tids;         /* thread ids of the group */
    int have_seq;
    uint64_t last_seq;
    size_t warnings;
} walk;

static void warn(walk *w, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(walk *w, size_t i, const char *fmt, ...)
{
    const hp_section_ref *s = &w->r->p->sections[i];
    char what[160];
    va_list ap;
    if (++w->warnings > MAX_WARNINGS) return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    hp_rd_warn(w->r, "%s: group %d: section %zu (%s) at offset %" PRIu64 ": %s", w->r->p->name, w->group, i,
               hp_section_type_name(s->type), s->offset, what);
}

static uint32_t summary_id(const hp_reader *r, const hp_section_ref *s)
{
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(r, s), 8);
    return hp_get_u32(&b);
}

/* 1 if this section was already seen in the current thread (and marks it seen). */
static int seen_twice(walk *w, const hp_section_ref *s)
{
    uint64_t *mask = &w->summaries_seen;
    uint64_t bit = 0;
    if (s->type == HP_SEC_INTERVALS) return 0; /* one per stream (value, edges) in a thread */
    if (s->type == HP_SEC_SUMMARY) {
        uint32_t id = summary_id(w->r, s);
        bit = id < 64 ? (uint64_t)1 << id : 0;
    } else if (s->type < 32) {
        uint32_t m = w->types_seen;
        w->types_seen |= (uint32_t)1 << s->type;
        return (m >> s->type) & 1;
    }
    int twice = (*mask & bit) != 0;
    *mask |= bit;
    return twice;
}

static int on_thread(walk *w, size_t i)
{
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(w->r, &w->r->p->sections[i]), 16);
    w->tid = hp_get_u64(&b);
    w->in_thread = 1, w->types_seen = 0, w->summaries_seen = 0;
    hp_pair_item *it = hp_pairmap_get(&w->tids, w->tid, 0);
    if (!it) return hp_rd_oom(w->r);
    if (it->v1++) warn(w, i, "thread %" PRIu64 " appears twice in group %d", w->tid, w->group);
    return 1;
}

static void on_group_end(walk *w, size_t i)
{
    hp_rbuf b = hp_rbuf_make(hp_rd_payload(w->r, &w->r->p->sections[i]), 24);
    uint64_t seq = hp_get_u64(&b), flags = hp_get_u64(&b);
    int64_t status = (int64_t)hp_get_u64(&b);
    int final = (flags & HP_GROUP_FINAL) != 0, crash = (flags & HP_GROUP_CRASH) != 0;
    int exec = (flags & HP_GROUP_EXEC) != 0;
    if (flags & ~(uint64_t)(HP_GROUP_FINAL | HP_GROUP_CRASH | HP_GROUP_EXEC))
        warn(w, i, "unknown flags 0x%" PRIx64, flags);
    if (final && crash) warn(w, i, "flags say both final and crash (0x%" PRIx64 ")", flags);
    if (exec && (!final || status != 0)) warn(w, i, "an exec group that is not final with status 0 (0x%" PRIx64 ")", flags);
    if (crash && (status < -MAX_SIGNAL || status > -1))
        warn(w, i, "exit status %" PRId64 " of a crash is not a signal", status);
    if (final && !crash && (status < INT32_MIN || status > INT32_MAX))
        warn(w, i, "exit status %" PRId64 " is not an exit status", status);
    if (!final && !crash && status != 0)
        warn(w, i, "a periodic snapshot with an exit status (%" PRId64 ")", status);
    if (w->have_seq && seq <= w->last_seq) warn(w, i, "sequence %" PRIu64 " does not follow %" PRIu64, seq, w->last_seq);
    w->have_seq = 1, w->last_seq = seq;
}

/* A section of a profile type: inside a thread, once per thread; checked if not decoded later. */
static int on_typed(walk *w, size_t i, const hp_section_ref *s, int last_group)
{
    const hp_aptype *t = s->type == HP_SEC_SUMMARY ? hp_aptype_by_summary(summary_id(w->r, s))
                                                   : hp_aptype_by_section(s->type);
    int group_level = t && hp_ptypes[t->id]->group_level;
    if (group_level) {
        if (w->in_thread) warn(w, i, "a group-level %s section inside a thread", hp_section_type_name(s->type));
    } else if (!w->in_thread) warn(w, i, "comes before any thread (THREAD section) of its group");
    else if (seen_twice(w, s))
        warn(w, i, "second %s section of thread %" PRIu64 " (they add up)", hp_section_type_name(s->type), w->tid);
    return last_group || !t || !t->check || t->check(w->r, i, s);
}

static void start_group(walk *w, int group)
{
    hp_pairmap_free(&w->tids);
    memset(&w->tids, 0, sizeof w->tids);
    w->group = group, w->in_thread = 0;
}

int hp_rd_check_groups(hp_reader *r)
{
    hp_profile *p = r->p;
    walk w = {.r = r, .group = -1};
    int ok = 1;
    for (size_t i = 0; ok && i < p->nsections; i++) {
        const hp_section_ref *s = &p->sections[i];
        if (s->group < 0 || !s->complete) continue;
        if (s->group != w.group) start_group(&w, s->group);
        if (s->type == HP_SEC_THREAD) ok = on_thread(&w, i);
        else if (s->type == HP_SEC_GROUP_END) on_group_end(&w, i);
        else if (s->type == HP_SEC_SUMMARY || hp_ptype_by_section(s->type))
            ok = on_typed(&w, i, s, (size_t)s->group + 1 == p->ngroups);
    }
    hp_pairmap_free(&w.tids);
    if (w.warnings > MAX_WARNINGS)
        hp_rd_warn(r, "%s: ... and %zu more inconsistencies", p->name, w.warnings - MAX_WARNINGS);
    return ok;
}

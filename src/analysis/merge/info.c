/* info.c — the INFO sections of a merged profile (merge.h, step 5).
 *
 * File INFO: every key of the first input whose value is the same in every input (program,
 * mode, sample.*, version, ...; pid, args, start_time usually differ and are dropped), except
 * the per-group keys recomputed below and earlier merge.* keys; then merge.inputs=N and per input
 * i (1..N) merge.input.<i>=FILE, .program, .pid and .threads.
 * Group INFO: group, group_flags, exit_status (0, or hp_merge_opts.status_from's), threads=1 (one merged thread, tid 0; 0 if no input
 * has a thread); total.* and
 * thread.0 = the inputs' sums; in a bursty merge thread.0.events.TYPE / thread.0.sampled.TYPE =
 * the inputs' events seen / sampled per type, so that `report` scales by the pooled frequency;
 * then the caller's extra lines (hp_merge_opts.extra_info), if any.
 * Every key is spelled through core/format/info_keys.h. Counts saturate.
 */
#define _GNU_SOURCE
#include "analysis/merge/merge.h"
#include "core/control/spec.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREAD_FIELDS 6 /* thread.TID = calls blocks backedges loads stores compares */

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Keys a merge recomputes (group INFO) or replaces (merge.*). */
static int recomputed(const char *key)
{
    static const char *const exact[] = {HP_INFO_GROUP, HP_INFO_GROUP_FLAGS, HP_INFO_EXIT_STATUS, HP_INFO_THREADS};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(key, exact[i]) == 0) return 1;
    return starts(key, "total.") || starts(key, HP_INFO_THREAD_PREFIX) || starts(key, HP_INFO_MERGE_PREFIX);
}

static int equal_everywhere(const hp_merge *m, const char *key, const char *value)
{
    for (size_t i = 1; i < m->nin; i++) {
        const char *v = hp_merge_info(m, i, key);
        if (!v || strcmp(v, value) != 0) return 0;
    }
    return 1;
}

static uint64_t threads_events(const hp_profile *p)
{
    uint64_t s = 0;
    for (size_t t = 0; t < p->nthreads; t++) s = hp_sat_add(s, p->threads[t].events);
    return s;
}

static void file_info(const hp_merge *m, FILE *f)
{
    const hp_profile *p0 = m->in[0];
    for (size_t k = 0; k < p0->ninfo; k++) {
        const hp_info_kv *kv = &p0->info[k];
        if (!recomputed(kv->key) && equal_everywhere(m, kv->key, kv->value)) fprintf(f, "%s=%s\n", kv->key, kv->value);
    }
    fprintf(f, HP_INFO_MERGE_INPUTS "=%zu\n", m->nin);
    for (size_t i = 0; i < m->nin; i++) {
        const char *prog = hp_merge_info(m, i, HP_INFO_PROGRAM), *pid = hp_merge_info(m, i, HP_INFO_PID);
        fprintf(f, HP_INFO_MERGE_INPUT_PREFIX "%zu=%s\n", i + 1, m->in[i]->name);
        if (prog) fprintf(f, HP_INFO_MERGE_INPUT_PREFIX "%zu." HP_INFO_PROGRAM "=%s\n", i + 1, prog);
        if (pid) fprintf(f, HP_INFO_MERGE_INPUT_PREFIX "%zu." HP_INFO_PID "=%s\n", i + 1, pid);
        fprintf(f, HP_INFO_MERGE_INPUT_PREFIX "%zu." HP_INFO_THREADS "=%zu\n", i + 1, m->in[i]->nthreads);
    }
}

/* "thread.<digits>" = six counts: added into sum. */
static void add_thread_line(const hp_info_kv *kv, uint64_t sum[THREAD_FIELDS])
{
    const char *tid = kv->key + strlen(HP_INFO_THREAD_PREFIX);
    if (!*tid || strspn(tid, "0123456789") != strlen(tid)) return;
    uint64_t v[THREAD_FIELDS];
    if (sscanf(kv->value, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1],
               &v[2], &v[3], &v[4], &v[5]) != THREAD_FIELDS) return;
    for (int k = 0; k < THREAD_FIELDS; k++) sum[k] = hp_sat_add(sum[k], v[k]);
}

static void group_totals(const hp_merge *m, FILE *f)
{
    static const char *const totals[] = {HP_INFO_TOTAL_CALLS, HP_INFO_TOTAL_BLOCKS, HP_INFO_TOTAL_BACKEDGES,
                                         HP_INFO_TOTAL_LOADS, HP_INFO_TOTAL_STORES, HP_INFO_TOTAL_COMPARES};
    uint64_t thread[THREAD_FIELDS] = {0};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
        uint64_t sum = 0, v;
        int any = 0;
        for (size_t i = 0; i < m->nin; i++) {
            const char *s = hp_merge_info(m, i, totals[t]);
            if (s && sscanf(s, "%" SCNu64, &v) == 1) sum = hp_sat_add(sum, v), any = 1;
        }
        if (any) fprintf(f, "%s=%" PRIu64 "\n", totals[t], sum);
    }
    for (size_t i = 0; i < m->nin; i++)
        for (size_t k = 0; k < m->in[i]->ninfo; k++)
            if (starts(m->in[i]->info[k].key, HP_INFO_THREAD_PREFIX)) add_thread_line(&m->in[i]->info[k], thread);
    fprintf(f, HP_INFO_THREAD_PREFIX "0=%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
            thread[0], thread[1], thread[2], thread[3], thread[4], thread[5]);
}

static void group_sampling(const hp_merge *m, FILE *f)
{
    if (!m->in[0]->bursty) return;
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        uint64_t events = 0, sampled = 0;
        for (size_t i = 0; i < m->nin; i++) {
            events = hp_sat_add(events, m->in[i]->sample[t].events);
            sampled = hp_sat_add(sampled, m->in[i]->sample[t].sampled);
        }
        const char *name = hp_sample_type_name(t);
        fprintf(f, HP_INFO_THREAD_PREFIX "0." HP_INFO_THREAD_EVENTS ".%s=%" PRIu64 "\n", name, events);
        fprintf(f, HP_INFO_THREAD_PREFIX "0." HP_INFO_THREAD_SAMPLED ".%s=%" PRIu64 "\n", name, sampled);
    }
}

int hp_merge_all_final(const hp_merge *m)
{
    for (size_t i = 0; i < m->nin; i++)
        if (!(m->in[i]->group_flags & HP_GROUP_FINAL)) return 0;
    return 1;
}

uint64_t hp_merge_group_flags(const hp_merge *m)
{
    const hp_profile *s = m->opts.status_from;
    return (hp_merge_all_final(m) ? HP_GROUP_FINAL : 0) | (s ? s->group_flags & HP_GROUP_CRASH : 0);
}

int64_t hp_merge_status(const hp_merge *m) { return m->opts.status_from ? m->opts.status_from->exit_status : 0; }

static void group_info(const hp_merge *m, FILE *f)
{
    fprintf(f, HP_INFO_GROUP "=0\n" HP_INFO_GROUP_FLAGS "=%" PRIu64 "\n" HP_INFO_EXIT_STATUS "=%" PRId64 "\n" HP_INFO_THREADS "=%d\n",
            hp_merge_group_flags(m), hp_merge_status(m), hp_merge_threads(m));
    group_totals(m, f);
    group_sampling(m, f);
    if (m->opts.extra_info) fputs(m->opts.extra_info, f);
}

int hp_merge_write_info(hp_merge *m, hp_pbuild *b, int group)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return hp_merge_fail(m, "out of memory");
    if (group) group_info(m, f);
    else file_info(m, f);
    if (fclose(f) != 0 || !text) return free(text), hp_merge_fail(m, "out of memory");
    hp_pbuild_section(b, HP_SEC_INFO, text, len);
    free(text);
    return 0;
}

int hp_merge_threads(const hp_merge *m)
{
    for (size_t i = 0; i < m->nin; i++)
        if (m->in[i]->nthreads) return 1;
    return 0;
}

/* The THREAD record of the merged group: tid 0, the events of every input's threads. */
uint64_t hp_merge_thread_events(const hp_merge *m)
{
    uint64_t s = 0;
    for (size_t i = 0; i < m->nin; i++) s = hp_sat_add(s, threads_events(m->in[i]));
    return s;
}

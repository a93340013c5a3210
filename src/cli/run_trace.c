/* run_trace.c — raw runtime records into a trace file (run_trace.h). */
#define _GNU_SOURCE
#include "cli/run_trace.h"
#include "cli/outfile.h"
#include "sim/trace.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW_KIND (UINT64_MAX - 1) /* runtime/pt/trace.h: HP_RAW_KIND, HP_RAW_END, HP_RAW_EXEC */
#define RAW_END UINT64_MAX
#define RAW_EXEC (UINT64_MAX - 2)

/* What the raw records said: the kind, whether the last record ended the trace (an end record,
 * or an exec record into an image that did not trace), the OR of their flags, the tuples kept
 * (at most the limit over all images: each exec'd image had the whole budget) and cut. */
typedef struct raw_state { uint32_t kind; int ended; uint64_t flags, kept; int cut, images; } raw_state;

int hp_run_trace_prepare(hp_run_trace *rt, int *usage)
{
    char num[32], cwd[4096];
    *usage = 0;
    if (rt->kind && !hp_trace_kind_parse(rt->kind)) {
        fprintf(stderr, "hotprof run: option '--trace-kind': '%s' is not values, edges or calls\n", rt->kind);
        *usage = 1;
        return -1;
    }
    if (!rt->limit) {
        fprintf(stderr, "hotprof run: option '--trace-limit': must be at least 1\n");
        *usage = 1;
        return -1;
    }
    const char *dir = rt->file[0] == '/' ? "" : getcwd(cwd, sizeof cwd) ? cwd : ".";
    snprintf(rt->raw, sizeof rt->raw, "%s%s%s.raw.%ld", dir, *dir ? "/" : "", rt->file, (long)getpid());
    FILE *probe = fopen(rt->raw, "w");
    if (!probe) {
        fprintf(stderr, "hotprof: cannot write the trace %s: %s\n", rt->file, strerror(errno));
        return -1;
    }
    fclose(probe);
    snprintf(num, sizeof num, "%" PRIu64, rt->limit);
    if (setenv("HOTPROF_TRACE", rt->raw, 1) || setenv("HOTPROF_TRACE_LIMIT", num, 1) ||
        (rt->kind ? setenv("HOTPROF_TRACE_KIND", rt->kind, 1) : unsetenv("HOTPROF_TRACE_KIND"))) {
        fprintf(stderr, "hotprof: out of memory\n");
        unlink(rt->raw);
        return -1;
    }
    return 0;
}

/* One image's kind record: the first makes the writer; later ones (exec'd images) must agree. */
static int kind_record(hp_trace_writer **w, raw_state *st, uint64_t kind, const char *program, uint64_t limit)
{
    st->ended = 0, st->images++;
    if (*w) {
        if (kind == st->kind) return 0;
        fprintf(stderr, "hotprof: trace: an exec'd image traced another kind (%" PRIu64 ", not %u)\n", kind, st->kind);
        return -1;
    }
    if (!(*w = hp_trace_writer_new(st->kind = (uint32_t)kind, program, limit))) { fprintf(stderr, "hotprof: out of memory\n"); return -1; }
    return 0;
}

/* Feeds every raw record into w, at most `limit` tuples in all. 0, or -1 after a message. */
static int read_raw(FILE *f, hp_trace_writer **w, const char *program, uint64_t limit, raw_state *st)
{
    uint64_t head[2], buf[2 * 4096];
    char err[300];
    while (fread(head, sizeof head, 1, f) == 1) {
        if (head[0] == RAW_KIND) {
            if (kind_record(w, st, head[1], program, limit)) return -1;
            continue;
        }
        if (head[0] == RAW_END || head[0] == RAW_EXEC) { st->ended = 1, st->flags |= head[1]; continue; }
        if (!*w) { fprintf(stderr, "hotprof: the raw trace has no header record\n"); return -1; }
        st->ended = 0;
        for (uint64_t left = head[1]; left;) {
            size_t take = left > 4096 ? 4096 : (size_t)left;
            if (fread(buf, 16, take, f) != take) return 0; /* cut short: the end record is missing too */
            size_t keep = limit - st->kept < take ? (size_t)(limit - st->kept) : take;
            st->cut |= keep < take, st->kept += keep;
            if (keep && hp_trace_writer_add(*w, head[0], (const hp_trace_tuple *)buf, keep, err, sizeof err)) {
                fprintf(stderr, "hotprof: trace: %s\n", err);
                return -1;
            }
            left -= take;
        }
    }
    return 0;
}

int hp_run_trace_finish(hp_run_trace *rt, const char *program, int quiet)
{
    FILE *f = fopen(rt->raw, "rb");
    hp_trace_writer *w = NULL;
    raw_state st = {0};
    int rc = f ? read_raw(f, &w, program, rt->limit, &st) : -1;
    uint32_t kind = st.kind;
    int64_t end_flags = st.ended ? (int64_t)(st.flags | (st.cut ? HP_TRACE_CUT : 0)) : -1;
    if (f) fclose(f);
    unlink(rt->raw);
    if (rc) return -1;
    if (!w) {
        fprintf(stderr, "hotprof: no trace recorded to %s: the program's runtime did not trace (not built with 'hotprof cc'?)\n", rt->file);
        return -1;
    }
    if (end_flags < 0) hp_trace_writer_flag(w, HP_TRACE_LOST | (st.cut ? HP_TRACE_CUT : 0));
    else hp_trace_writer_flag(w, (uint32_t)end_flags & (HP_TRACE_CUT | HP_TRACE_LOST));
    hp_outfile o;
    char err[300];
    if (hp_outfile_open(&o, rt->file)) { hp_trace_writer_free(w); return -1; }
    int ok = hp_trace_writer_finish(w, o.f, err, sizeof err) == 0;
    if (!ok) fprintf(stderr, "hotprof: trace %s: %s\n", rt->file, err);
    hp_trace_writer_free(w);
    if (hp_outfile_close(&o, ok)) return -1;
    if (end_flags < 0)
        fprintf(stderr, "hotprof: warning: the program did not finish normally; trace %s is incomplete (marked lost)\n", rt->file);
    else if ((end_flags & HP_TRACE_CUT) && !quiet)
        fprintf(stderr, "hotprof: trace %s was cut at --trace-limit %" PRIu64 " events\n", rt->file, rt->limit);
    if (!quiet) fprintf(stderr, "hotprof: wrote %s trace %s%s\n", hp_trace_kind_name(kind), rt->file,
                        st.images > 1 ? " (the process's exec'd images appended)" : "");
    return 0;
}

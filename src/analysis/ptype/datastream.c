/* datastream.c — the datastream profile type on the analysis side (aptype.h): the group's SUMMARY
 * sections of id datastream (one detector per thread, core/summary/datastream.h) deserialized with
 * the validating hp_ds_deserialize (a corrupt one refuses the file, in any complete group: those
 * of earlier groups are validated by `check` and dropped), merged (hp_ds_merge; a
 * detector of another configuration is skipped with a warning), and kept as the merged detector's
 * hot streams in p->ds (at most HP_PROFILE_MAX_STREAMS, hottest first); the "Hot data streams"
 * table of `report --streams`. It has no compare view and no totals. The merged detector is kept
 * (p->ds.state) so that `hotprof merge` merges it with other profiles' (hp_ds_merge: same
 * configuration and seed, else the input's detector is dropped with a note) and writes it back as
 * one SUMMARY. Its references are data addresses, which are not rebased.
 *
 * A stream's frequency counts the *sampled* references the detectors saw; its estimated whole-run
 * frequency is freq / f, f the datastream type's observed frequency (sampled / events over all
 * threads, INFO), or B/(B+S) when no events were counted, or no estimate (0 / null) when neither
 * is known: so in patched-burst profiles (INFO mode=patch or xray: no sample.* keys are read,
 * p->bursty = 0) the frequencies stay raw sampled counts, and the text table says so.
 * Text: one row per stream with its first references (addresses; "..." when there are more),
 * cut to 100 columns. JSON: every reference of every stream row. Rows: the report's `top`.
 */
#define _GNU_SOURCE
#include "analysis/ptype/aptype.h"
#include "analysis/merge/merge.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define D HP_BURSTY_DATA_STREAMS /* the HPS type its references are sampled under */
#define DS_MAX_BUDGET ((size_t)256 << 20) /* a detector needing more memory is not ours */
#define STREAM_COLS 100

/* ---- reader ---- */

static int corrupt(hp_reader *r, size_t index, const hp_section_ref *s, const char *why)
{
    return hp_rd_fail(r, "section %zu (summary) at offset %" PRIu64 ": corrupt datastream summary (%s)", index,
                      s->offset, why);
}

/* Deserializes one detector into fresh memory; *mem owns it. NULL after hp_rd_fail. */
static hp_ds_state *load(hp_reader *r, size_t index, const hp_section_ref *s, void **mem)
{
    const uint8_t *blob = hp_rd_payload(r, s) + 8;
    size_t len = (size_t)s->length - 8;
    hp_ds_config c;
    if (hp_ds_peek_config(blob, len, &c)) return corrupt(r, index, s, "bad header"), NULL;
    size_t budget = hp_ds_bytes_for(&c);
    if (!budget || budget > DS_MAX_BUDGET) return corrupt(r, index, s, "configuration too large"), NULL;
    *mem = aligned_alloc(64, (budget + 63) / 64 * 64);
    if (!*mem) return hp_rd_oom(r), NULL;
    hp_ds_state *ds = hp_ds_deserialize(*mem, budget, blob, len);
    if (!ds) free(*mem), *mem = NULL, corrupt(r, index, s, "failed validation");
    return ds;
}

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    void *mem = NULL;
    hp_ds_state *ds = load(r, index, s, &mem);
    if (!ds) return 0;
    r->p->ds.states++;
    if (!acc->obj) {
        acc->obj = ds, acc->mem = mem;
        return 1;
    }
    if (hp_ds_merge(acc->obj, ds)) {
        hp_rd_warn(r, "%s: section %zu (summary): datastream detector of another configuration skipped",
                   r->p->name, index);
        r->p->ds.states--;
    }
    free(mem);
    return 1;
}

/* A summary of an earlier group: validated like the last group's, then dropped. */
static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    void *mem = NULL;
    hp_ds_state *ds = load(r, index, s, &mem);
    free(mem);
    return ds != NULL;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    hp_stream_set *set = &r->p->ds;
    hp_ds_state *ds = acc->obj;
    if (!ds) return 1;
    set->streams = calloc(HP_PROFILE_MAX_STREAMS, sizeof *set->streams);
    if (!set->streams) return hp_rd_oom(r);
    set->refs_seen = ds->refs_seen;
    set->bursts = ds->bursts;
    set->nstreams = hp_ds_hot(ds, set->streams, HP_PROFILE_MAX_STREAMS);
    set->state = ds, set->state_mem = acc->mem; /* kept for `hotprof merge` */
    acc->obj = acc->mem = NULL;
    return 1;
}

static void release(hp_profile *p)
{
    free(p->ds.streams);
    free(p->ds.state_mem);
}
static size_t rows(const hp_profile *p) { return p->ds.nstreams; }

/* ---- report ---- */

static int wanted(const hp_report_opts *o) { return o->streams; }

/* "0xa 0xb 0xc ..." cut so that it fits `room` characters. */
static void refs_cell(char *out, size_t room, const hp_ds_stream *st)
{
    size_t len = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < st->len; i++) {
        char one[24];
        int n = snprintf(one, sizeof one, "%s0x%" PRIx64, i ? " " : "", st->addr[i]);
        if (len + (size_t)n + 4 > room) {
            snprintf(out + len, room - len, " ...");
            return;
        }
        memcpy(out + len, one, (size_t)n + 1);
        len += (size_t)n;
    }
}

static void text_row(FILE *out, const hp_ds_stream *st, size_t rank, double f)
{
    char est[32] = "", refs[STREAM_COLS];
    if (f > 0) snprintf(est, sizeof est, "~%.0f", (double)st->freq / f);
    refs_cell(refs, STREAM_COLS - 44, st);
    fprintf(out, "%4zu %10" PRIu64 " %3u%s %9" PRIu64 " %11s  %s\n", rank, st->heat, st->len,
            st->truncated ? "+" : " ", st->freq, est, refs);
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t n = hp_rt_rows(p->ds.nstreams, o);
    double f = hp_rt_frequency(p, D);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot data streams (heat = length x frequency): %zu of %zu", n, p->ds.nstreams);
    fprintf(out, "  from %zu detector%s (threads), %" PRIu64 " sampled references in %" PRIu64 " bursts\n",
            p->ds.states, p->ds.states == 1 ? "" : "s", p->ds.refs_seen, p->ds.bursts);
    if (n && f <= 0) fputs("  freq: raw sampled counts (no observed sampling frequency to estimate from)\n", out);
    fprintf(out, "%4s %10s %4s %9s %11s  %s\n", "rank", "heat", "len", "freq", f > 0 ? "est.freq" : "", "references");
    for (size_t i = 0; i < n; i++) text_row(out, &p->ds.streams[i], i + 1, f);
    if (!n) fprintf(out, "  (no hot data streams in this profile: record them with --sample datastream:... and "
                    "a program built with hotprof cc --hooks=memory)\n");
    return 0;
}

static void json_row(FILE *out, const hp_ds_stream *st, size_t rank, double f)
{
    fprintf(out, "\n    {\"rank\": %zu, \"heat\": %" PRIu64 ", \"length\": %u, \"truncated\": %s, \"freq\": %" PRIu64
            ", \"err\": %" PRIu64 ", \"window\": %u, \"estimated_freq\": ", rank, st->heat, st->len,
            st->truncated ? "true" : "false", st->freq, st->err, st->window);
    if (f > 0) fprintf(out, "%.0f", (double)st->freq / f);
    else fputs("null", out);
    fputs(", \"addrs\": [", out);
    for (uint32_t i = 0; i < st->len; i++) fprintf(out, "%s\"0x%" PRIx64 "\"", i ? ", " : "", st->addr[i]);
    fputs("]}", out);
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t n = hp_rt_rows(p->ds.nstreams, o);
    double f = hp_rt_frequency(p, D);
    fprintf(out, "  \"datastream\": {\"detectors\": %zu, \"refs_seen\": %" PRIu64 ", \"bursts\": %" PRIu64
            ", \"frequency\": %.9g, \"streams\": %zu},\n  \"streams\": [", p->ds.states, p->ds.refs_seen,
            p->ds.bursts, f, p->ds.nstreams);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', out);
        json_row(out, &p->ds.streams[i], i + 1, f);
    }
    fputs(n ? "\n  ]" : "]", out);
    return 0;
}

/* ---- merge ---- */

/* A copy of ds in fresh memory (*mem owns it); NULL out of memory. */
static hp_ds_state *copy_state(const hp_ds_state *ds, void **mem)
{
    size_t len = hp_ds_serialized_size(ds), budget = hp_ds_bytes_for(&ds->cfg);
    void *blob = malloc(len ? len : 1);
    hp_ds_state *out = NULL;
    *mem = aligned_alloc(64, (budget + 63) / 64 * 64);
    if (blob && *mem && hp_ds_serialize(ds, blob, len) == len) out = hp_ds_deserialize(*mem, budget, blob, len);
    free(blob);
    if (!out) free(*mem), *mem = NULL;
    return out;
}

static int merge_add(hp_merge *m, hp_apt_acc *acc, size_t i)
{
    const hp_profile *p = m->in[i];
    if (!p->ds.state) return 0;
    if (!acc->obj) {
        acc->obj = copy_state(p->ds.state, &acc->mem);
        return acc->obj ? 0 : hp_merge_fail(m, "out of memory (datastream summary of %s)", p->name);
    }
    if (hp_ds_merge(acc->obj, p->ds.state))
        hp_merge_note(m, "%s: its datastream summary is dropped (its detector's configuration or seed differs from "
                      "the first one's; hp_ds_merge needs them equal)", p->name);
    return 0;
}

static int merge_write(hp_merge *m, hp_pbuild *b, const hp_apt_acc *acc)
{
    if (!acc->obj) return 0;
    size_t len = hp_ds_serialized_size(acc->obj);
    void *blob = malloc(len ? len : 1);
    if (!blob || hp_ds_serialize(acc->obj, blob, len) != len) return free(blob), hp_merge_fail(m, "out of memory");
    hp_pbuild_summary(b, hp_ptypes[HP_PT_DATASTREAM]->summary_id, blob, len);
    free(blob);
    return 0;
}

const hp_aptype hp_aptype_datastream = {
    .id = HP_PT_DATASTREAM,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .wanted = wanted,
    .text = text,
    .json = json,
    .merge_add = merge_add,
    .merge_write = merge_write,
};

/* report_streams.c — the hot data streams table of `hotprof report --streams` (report.h).
 *
 * Input: p->ds, the group's data stream detectors merged over threads (profile.h), whose streams
 * are hottest first (heat = length x frequency, core/datastream.h). A stream's frequency counts
 * the *sampled* references the detectors saw; its estimated whole-run frequency is freq / f, f
 * the datastream type's observed frequency (sampled / events over all threads, INFO), or
 * B/(B+S) when no events were counted, or no estimate (0 / null) when neither is known: so in
 * patched-burst profiles (INFO mode=patch or xray: no sample.* keys are read, p->bursty = 0)
 * the frequencies stay raw sampled counts, and the text table says so.
 * Text: one row per stream with its first references (addresses; "..." when there are more),
 * cut to 100 columns. JSON: every reference of every stream row. Rows: the report's `top`.
 */
#define _GNU_SOURCE
#include "analysis/report.h"
#include "core/control/spec.h"
#include <inttypes.h>
#include <string.h>

#define STREAM_COLS 100

/* The frequency to scale stream frequencies by, 0 if unknown. */
static double ds_frequency(const hp_profile *p)
{
    const int D = HP_BURSTY_DATA_STREAMS;
    double f = hp_profile_sample_frequency(p, D);
    if (f <= 0.0 && p->sample[D].known) f = hp_bursty_frequency(p->sample[D].burst, p->sample[D].period);
    return f;
}

static size_t stream_rows(const hp_profile *p, const hp_report_opts *o)
{
    size_t n = p->ds.nstreams;
    return o->top && o->top < n ? o->top : n;
}

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

void hp_report_streams_text(FILE *out, const hp_profile *p, const hp_report_opts *o)
{
    size_t n = stream_rows(p, o);
    double f = ds_frequency(p);
    fprintf(out, "\nHot data streams (heat = length x frequency): %zu of %zu\n", n, p->ds.nstreams);
    fprintf(out, "  from %zu detector%s (threads), %" PRIu64 " sampled references in %" PRIu64 " bursts\n",
            p->ds.states, p->ds.states == 1 ? "" : "s", p->ds.refs_seen, p->ds.bursts);
    if (n && f <= 0) fputs("  freq: raw sampled counts (no observed sampling frequency to estimate from)\n", out);
    fprintf(out, "%4s %10s %4s %9s %11s  %s\n", "rank", "heat", "len", "freq", f > 0 ? "est.freq" : "", "references");
    for (size_t i = 0; i < n; i++) {
        const hp_ds_stream *st = &p->ds.streams[i];
        char est[32] = "", refs[STREAM_COLS];
        if (f > 0) snprintf(est, sizeof est, "~%.0f", (double)st->freq / f);
        refs_cell(refs, STREAM_COLS - 44, st);
        fprintf(out, "%4zu %10" PRIu64 " %3u%s %9" PRIu64 " %11s  %s\n", i + 1, st->heat, st->len,
                st->truncated ? "+" : " ", st->freq, est, refs);
    }
    if (!n) fprintf(out, "  (no hot data streams in this profile: record them with --sample datastream:... and "
                    "a program built with hotprof cc --hooks=memory)\n");
}

static void json_stream(FILE *out, const hp_ds_stream *st, size_t rank, double f)
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

void hp_report_streams_json(FILE *out, const hp_profile *p, const hp_report_opts *o)
{
    size_t n = stream_rows(p, o);
    double f = ds_frequency(p);
    fprintf(out, ",\n  \"datastream\": {\"detectors\": %zu, \"refs_seen\": %" PRIu64 ", \"bursts\": %" PRIu64
            ", \"frequency\": %.9g, \"streams\": %zu},\n  \"streams\": [", p->ds.states, p->ds.refs_seen,
            p->ds.bursts, f, p->ds.nstreams);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', out);
        json_stream(out, &p->ds.streams[i], i + 1, f);
    }
    fputs(n ? "\n  ]" : "]", out);
}

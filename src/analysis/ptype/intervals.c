/* intervals.c — the intervals profile type on the analysis side (aptype.h): each INTERVALS
 * section of the last group (one thread's timeline of one stream, core/format/ivsec.h) decoded
 * with the validating codec into p->ivs (a corrupt one refuses the file; earlier groups' are
 * checked the same way), and its report (analysis/ivstats.h): per section a heading with the
 * configuration, the hot tuples with the share of intervals in which each was a candidate
 * (value: pc -> function file:line, value hex and decimal; edges: from -> to), the phases, the
 * change rate, the per-slot candidate counts (a timeline row), and E with its FP/FN/NP/NN parts
 * when exact sets were recorded. Shown whenever the profile has interval sections.
 * Interval counts are of the stream's events in the thread (every event: exhaustive mode).
 */
#define _GNU_SOURCE
#include "analysis/ptype/aptype.h"
#include "analysis/ivstats.h"
#include "analysis/rtable.h"
#include "core/format/format.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define IV_MAX_SECTIONS 4096

/* ---- reader ---- */

static int corrupt(hp_reader *r, size_t index, const hp_section_ref *s, const char *why)
{
    return hp_rd_fail(r, "section %zu (intervals) at offset %" PRIu64 ": corrupt interval profile (%s)", index, s->offset, why);
}

static int name_cmp(const void *x, const void *y)
{
    uint64_t a = ((const hp_ivsec_name *)x)->key, b = ((const hp_ivsec_name *)y)->key;
    return a < b ? -1 : a > b;
}

/* The tid of the THREAD section this one follows (0 if none). */
static uint64_t thread_of(hp_reader *r, size_t index)
{
    for (size_t i = index; i-- > 0;) {
        const hp_section_ref *s = &r->p->sections[i];
        if (s->type != HP_SEC_THREAD) continue;
        const uint8_t *b = hp_rd_payload(r, s);
        uint64_t tid = 0;
        for (int k = 7; k >= 0; k--) tid = tid << 8 | b[k];
        return tid;
    }
    return 0;
}

/* Decodes section s into t (fresh arrays). 0 after hp_rd_fail / hp_rd_oom. */
static int load(hp_reader *r, size_t index, const hp_section_ref *s, hp_iv_thread *t)
{
    const uint8_t *p = hp_rd_payload(r, s);
    const char *why = NULL;
    memset(t, 0, sizeof *t);
    if (hp_ivsec_get_head(p, (size_t)s->length, &t->h, &why)) return corrupt(r, index, s, why);
    t->slots = malloc((t->h.nslots + 1) * sizeof *t->slots);
    t->entries = malloc((t->h.nentries + 1) * sizeof *t->entries);
    t->names = malloc((t->h.nnames + 1) * sizeof *t->names);
    if (!t->slots || !t->entries || !t->names) return free(t->slots), free(t->entries), free(t->names), hp_rd_oom(r);
    if (hp_ivsec_get_body(p, (size_t)s->length, &t->h, t->slots, t->entries, t->names, &why)) {
        free(t->slots), free(t->entries), free(t->names);
        return corrupt(r, index, s, why);
    }
    qsort(t->names, t->h.nnames, sizeof *t->names, name_cmp);
    t->tid = thread_of(r, index);
    return 1;
}

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s)
{
    hp_profile *p = r->p;
    (void)acc;
    if (p->nivs == IV_MAX_SECTIONS) return hp_rd_fail(r, "more than %d interval sections", IV_MAX_SECTIONS);
    hp_iv_thread *grown = realloc(p->ivs, (p->nivs + 1) * sizeof *grown);
    if (!grown) return hp_rd_oom(r);
    p->ivs = grown;
    if (!load(r, index, s, &p->ivs[p->nivs])) return 0;
    p->nivs++;
    return 1;
}

static int check(hp_reader *r, size_t index, const hp_section_ref *s)
{
    hp_iv_thread t;
    if (!load(r, index, s, &t)) return 0;
    free(t.slots), free(t.entries), free(t.names);
    return 1;
}

static int finish(hp_reader *r, hp_apt_acc *acc)
{
    (void)r, (void)acc; /* decode filled p->ivs directly */
    return 1;
}

static void release(hp_profile *p)
{
    for (size_t i = 0; i < p->nivs; i++) free(p->ivs[i].slots), free(p->ivs[i].entries), free(p->ivs[i].names);
    free(p->ivs);
}

static size_t rows(const hp_profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nivs; i++) n += p->ivs[i].h.nentries;
    return n;
}

/* ---- tuples ---- */

typedef struct tuple_text { char tuple[96]; hp_rt_sym at, to; int have_to; } tuple_text;

/* The tuple a key stands for, described: value: "0x6f (111)" and the pc's function and line
 * (the hook's return address: the line of the call to the hook); edges: from and to. */
static void describe(const hp_iv_thread *t, hp_symbolizer *s, uint64_t key, tuple_text *d)
{
    const hp_ivsec_name *n = hp_iv_name(t, key);
    uint64_t a = n ? n->a : key >> 32, b = n ? n->b : (uint32_t)key;
    d->have_to = 0;
    hp_rt_describe(s, t->h.stream == HP_IV_VALUE && a ? a - 1 : a, &d->at);
    if (t->h.stream == HP_IV_VALUE) {
        snprintf(d->tuple, sizeof d->tuple, "0x%" PRIx64 " (%" PRId64 ")%s", b, (int64_t)b, n ? "" : " [low 32 bits]");
    } else {
        hp_rt_describe(s, b, &d->to);
        d->have_to = 1;
        snprintf(d->tuple, sizeof d->tuple, "0x%" PRIx64 " -> 0x%" PRIx64, a, b);
    }
}

/* The variant and the structure in use: "paper's design" or "rebalanced from Z=2048: Z=2616 A=50". */
static void variant_text(char *buf, size_t n, const hp_iv_thread *t)
{
    const hp_iv_params *q = &t->h.p;
    if (q->variant == 0) snprintf(buf, n, "variant paper (the design as given): Z=%u A=%u", t->h.counters_used, t->h.acc_entries);
    else snprintf(buf, n, "variant %s of the Z=%u design: Z=%u A=%u", hp_iv_variant_name(q->variant), q->total_counters, t->h.counters_used, t->h.acc_entries);
}

static void config_text(char *buf, size_t n, const hp_iv_thread *t)
{
    const hp_iv_params *q = &t->h.p;
    char var[120];
    variant_text(var, sizeof var, t);
    snprintf(buf, n, "L=%" PRIu64 " t=%g%% (T=%" PRIu64 "), n=%u bits=%u C%d R%d%s%s, %s hash; %s", q->interval,
             q->threshold * 100, t->h.T, q->n_tables, q->counter_bits, q->conservative, q->reset,
             q->shield ? " shield" : "", q->retain ? " retain" : "", q->fast_hash ? "fast" : "paper's", var);
}

/* ---- text ---- */

static void text_hot(FILE *out, const hp_iv_thread *t, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t n = 0;
    hp_iv_hot *hot = hp_iv_hot_tuples(t, &n);
    size_t shown = hp_rt_rows(n, o);
    fprintf(out, "  hot tuples (%zu; share of intervals in which each was a candidate):\n", n);
    for (size_t i = 0; i < shown; i++) {
        tuple_text d;
        describe(t, s, hot[i].key, &d);
        fprintf(out, "  %5.1f%% %6" PRIu64 "  %-28s %s %s", hot[i].share * 100, hot[i].hits, d.tuple, d.at.name, d.at.where);
        if (d.have_to) fprintf(out, " → %s %s", d.to.name, d.to.where);
        fputc('\n', out);
    }
    free(hot);
}

static void text_phases(FILE *out, const hp_iv_thread *t)
{
    size_t n = 0;
    hp_iv_phase *ph = hp_iv_phases(t, &n);
    fprintf(out, "  phases: %zu (runs of slots with the same hot set); change rate %.1f%%\n", n, hp_iv_change_rate(t) * 100);
    for (size_t i = 0; i < n && i < 40; i++) {
        const hp_ivt_slot *a = &t->slots[ph[i].first_slot], *z = &t->slots[ph[i].first_slot + ph[i].nslots - 1];
        uint32_t hot = 0;
        for (uint32_t j = 0; j < a->n; j++) hot += t->entries[a->off + j].hw_hits > 0;
        fprintf(out, "    intervals %" PRIu64 "-%" PRIu64 ": %u hot\n", a->first, z->first + z->span - 1, hot);
    }
    if (n > 40) fprintf(out, "    ... %zu more\n", n - 40);
    free(ph);
}

static void text_timeline(FILE *out, const hp_iv_thread *t)
{
    fprintf(out, "  candidates per slot:");
    for (uint32_t i = 0; i < t->h.nslots; i++) {
        uint32_t c = 0;
        for (uint32_t j = 0; j < t->slots[i].n; j++) c += t->entries[t->slots[i].off + j].hw_hits > 0;
        fprintf(out, "%s%u", i % 32 ? " " : "\n   ", c);
    }
    fputc('\n', out);
}

static int text_one(FILE *out, const hp_iv_thread *t, hp_symbolizer *s, const hp_report_opts *o)
{
    char cfg[320];
    config_text(cfg, sizeof cfg, t);
    hp_rt_heading(out, o, "\nInterval profile: %s, thread %" PRIu64, hp_iv_stream_name((int)t->h.stream), t->tid);
    fprintf(out, "  %s\n  %" PRIu64 " intervals of %" PRIu64 " events (%s), %" PRIu64
                 " events in an incomplete last interval (not scored)",
            cfg, hp_iv_scored_intervals(t), t->h.p.interval,
            t->h.flags & HP_IVSEC_PATCH    ? "bursty (patched windows): intervals count the sampled events, seen in windows"
            : t->h.flags & HP_IVSEC_BURSTY ? "bursty: intervals count the sampled events, seen during bursts"
                                           : "exhaustive: every event of the stream",
            t->h.tail_events);
    if (t->h.span > 1) fprintf(out, "; timeline merged: %" PRIu64 " intervals per slot", t->h.span);
    if (t->h.dropped) fprintf(out, "; %" PRIu64 " intervals dropped", t->h.dropped);
    fputc('\n', out);
    if ((t->h.flags & HP_IVSEC_BURSTY) && t->h.intervals < HP_IVSEC_FEW_INTERVALS)
        fprintf(out, "  warning: only %" PRIu64 " complete intervals of sampled events: too few to show phases (sample more, or a smaller interval=)\n",
                t->h.intervals);
    hp_iv_error e;
    if (hp_iv_error_of(t, &e)) return -1;
    if (e.have)
        fprintf(out, "  error E %.4f%% (FP %.4f%%, FN %.4f%%, NP %.4f%%, NN %.4f%%) over %zu slots, against the exact sets\n",
                e.e * 100, e.fp * 100, e.fn * 100, e.np * 100, e.nn * 100, e.scored);
    text_hot(out, t, s, o);
    text_phases(out, t);
    text_timeline(out, t);
    return 0;
}

static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    for (size_t i = 0; i < p->nivs; i++)
        if (text_one(out, &p->ivs[i], s, o)) return -1;
    return 0;
}

/* ---- JSON ---- */

static void json_hot(FILE *out, const hp_iv_thread *t, hp_symbolizer *s)
{
    size_t n = 0;
    hp_iv_hot *hot = hp_iv_hot_tuples(t, &n);
    fputs("\"hot\": [", out);
    for (size_t i = 0; i < n; i++) {
        tuple_text d;
        const hp_ivsec_name *nm = hp_iv_name(t, hot[i].key);
        describe(t, s, hot[i].key, &d);
        fprintf(out, "%s\n      {\"key\": %" PRIu64 ", \"a\": %" PRIu64 ", \"b\": %" PRIu64 ", \"named\": %s, \"hits\": %" PRIu64
                     ", \"share\": %.6f, \"count\": %" PRIu64 ", \"function\": ",
                i ? "," : "", hot[i].key, nm ? nm->a : hot[i].key >> 32, nm ? nm->b : (uint32_t)hot[i].key, nm ? "true" : "false",
                hot[i].hits, hot[i].share, hot[i].count);
        hp_json_string(out, d.at.name);
        fputs(", \"location\": ", out);
        hp_json_string(out, d.at.where);
        if (d.have_to) fputs(", \"to_function\": ", out), hp_json_string(out, d.to.name), fputs(", \"to_location\": ", out), hp_json_string(out, d.to.where);
        fputc('}', out);
    }
    fputs(n ? "\n    ]" : "]", out);
    free(hot);
}

static void json_slots(FILE *out, const hp_iv_thread *t)
{
    fputs("\"slots\": [", out);
    for (uint32_t i = 0; i < t->h.nslots; i++) {
        const hp_ivt_slot *sl = &t->slots[i];
        fprintf(out, "%s\n      {\"first\": %" PRIu64 ", \"span\": %" PRIu64 ", \"events\": %" PRIu64 ", \"hot\": [", i ? "," : "",
                sl->first, sl->span, sl->events);
        int k = 0;
        for (uint32_t j = 0; j < sl->n; j++)
            if (t->entries[sl->off + j].hw_hits) fprintf(out, "%s%" PRIu64, k++ ? ", " : "", t->entries[sl->off + j].key);
        fputs("], \"exact\": [", out);
        k = 0;
        for (uint32_t j = 0; j < sl->n; j++)
            if (t->entries[sl->off + j].exact_hits) fprintf(out, "%s%" PRIu64, k++ ? ", " : "", t->entries[sl->off + j].key);
        fputs("]}", out);
    }
    fputs(t->h.nslots ? "\n    ]" : "]", out);
}

static int json_one(FILE *out, const hp_iv_thread *t, hp_symbolizer *s, int first)
{
    const hp_iv_params *q = &t->h.p;
    hp_iv_error e;
    size_t nph = 0;
    if (hp_iv_error_of(t, &e)) return -1;
    free(hp_iv_phases(t, &nph));
    fprintf(out, "%s\n    {\"stream\": \"%s\", \"tid\": %" PRIu64 ", \"mode\": \"%s\", \"interval\": %" PRIu64
                 ", \"threshold\": %.17g, \"T\": %" PRIu64 ", \"tables\": %u, \"counters\": %u, \"bits\": %u, \"conservative\": %d"
                 ", \"reset\": %d, \"retain\": %d, \"shield\": %d, \"hash\": \"%s\", \"variant\": \"%s\", \"counters_used\": %u"
                 ", \"acc_entries\": %u, \"seed\": %" PRIu64 ", \"exact\": %s, \"intervals\": %" PRIu64
                 ", \"dropped\": %" PRIu64 ", \"span\": %" PRIu64 ", \"events\": %" PRIu64 ", \"tail_events\": %" PRIu64
                 ", \"phases\": %zu, \"change_rate\": %.6f, ",
            first ? "" : ",", hp_iv_stream_name((int)t->h.stream), t->tid,
            t->h.flags & HP_IVSEC_PATCH ? "patch" : t->h.flags & HP_IVSEC_BURSTY ? "bursty" : "exhaustive", q->interval, q->threshold, t->h.T, q->n_tables,
            q->total_counters, q->counter_bits, q->conservative, q->reset, q->retain, q->shield, q->fast_hash ? "fast" : "paper",
            hp_iv_variant_name(q->variant), t->h.counters_used, t->h.acc_entries, t->h.seed,
            e.have ? "true" : "false", hp_iv_scored_intervals(t), t->h.dropped, t->h.span, t->h.events, t->h.tail_events, nph,
            hp_iv_change_rate(t));
    if (e.have)
        fprintf(out, "\"error\": {\"e\": %.9f, \"fp\": %.9f, \"fn\": %.9f, \"np\": %.9f, \"nn\": %.9f, \"slots\": %zu}, ", e.e, e.fp,
                e.fn, e.np, e.nn, e.scored);
    json_hot(out, t, s);
    fputs(", ", out);
    json_slots(out, t);
    fputc('}', out);
    return 0;
}

static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    (void)o;
    fputs("  \"intervals\": [", out);
    for (size_t i = 0; i < p->nivs; i++)
        if (json_one(out, &p->ivs[i], s, i == 0)) return -1;
    fputs(p->nivs ? "\n  ]" : "]", out);
    return 0;
}

const hp_aptype hp_aptype_intervals = {
    .id = HP_PT_INTERVALS,
    .decode = decode,
    .check = check,
    .finish = finish,
    .release = release,
    .rows = rows,
    .text = text,
    .json = json,
};

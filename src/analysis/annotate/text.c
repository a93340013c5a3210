/* text.c — `hotprof annotate` as text, perf annotate's layout (annotate.h): a header (function,
 * file, module, total, sampling), then every source line of the function (from its first to its
 * last line with a block, widened by --context) with the count and share of the line's blocks,
 * then the lines elsewhere (inlined from other files, or without a line), each once; with --asm,
 * every instruction with its block's count, the source line printed above where it changes.
 *
 * Invariant: each (file, line) of f->lines is printed with its count exactly once in the source
 * view, so the printed line counts sum to f->total. In the asm view every instruction shows its
 * block's count and the first instruction of a block is marked '>': the marked counts sum to the
 * total of the blocks that start inside the listing. Colour (o->colour) only adds escapes around
 * rows: red from 5% of the total, green from 0.5% (perf's thresholds). A timer profile's counts are
 * samples at each instruction (f->samples), followed by the instruction's top values.
 */
#include "analysis/annotate/annotate.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <string.h>

#define RED "\033[31m"
#define GREEN "\033[32m"
#define RESET "\033[0m"

#define SAMPLED_TYPE HP_BURSTY_EDGES /* blocks are recorded by the edge hooks (ptype/blocks.c) */

double hp_annot_factor(const hp_profile *p)
{
    return hp_rt_estimated(p, SAMPLED_TYPE) ? 1.0 / hp_rt_frequency(p, SAMPLED_TYPE) : 1.0;
}

const char *hp_annot_sampling_note(const hp_profile *p, char *buf, size_t len)
{
    const char *mode = hp_profile_info(p, "mode");
    if (mode && strcmp(mode, HP_MODE_TIMER) == 0)
        snprintf(buf, len, "SAMPLED counts (timer): interrupts whose pc was there, at %s Hz of CPU time per thread",
                 hp_profile_info(p, HP_INFO_TIMER_FREQ) ? hp_profile_info(p, HP_INFO_TIMER_FREQ) : "?");
    else if (hp_rt_estimated(p, SAMPLED_TYPE))
        snprintf(buf, len, "SAMPLED counts (bursty): the recorded ones; estimate = count x %.4g", hp_annot_factor(p));
    else if (p->bursty || (mode && strcmp(mode, "exhaustive") != 0))
        snprintf(buf, len, "SAMPLED counts (%s): raw, recorded during bursts only; no estimate", mode ? mode : "bursty");
    else if (len)
        buf[0] = 0;
    return buf;
}

static const char *colour_of(const hp_annot_opts *o, uint64_t count, uint64_t total)
{
    double pc = hp_rt_percent(count, total);
    if (!o->colour || !count) return "";
    return pc >= 5.0 ? RED : pc >= 0.5 ? GREEN : "";
}

static void count_cells(FILE *out, const hp_annot_opts *o, const hp_annot_line *l, uint64_t total, const char **col)
{
    *col = l ? colour_of(o, l->count, total) : "";
    if (l) fprintf(out, "%s%12" PRIu64 " %7.2f%%", *col, l->count, hp_rt_percent(l->count, total));
    else fprintf(out, "%12s %8s", "", "");
}

/* The entry of f->lines for (file, line), or NULL. */
static const hp_annot_line *line_entry(const hp_annot_func *f, int file, int line)
{
    for (size_t i = 0; i < f->nlines; i++)
        if (f->lines[i].file == file && f->lines[i].line == line) return &f->lines[i];
    return NULL;
}

static void source_range(const hp_annot_func *f, const hp_annot_opts *o, int *lo, int *hi)
{
    *lo = 0, *hi = -1;
    for (size_t i = 0; i < f->nlines; i++) {
        const hp_annot_line *l = &f->lines[i];
        if (l->file != 0 || l->line <= 0) continue;
        if (*hi < *lo) *lo = *hi = l->line;
        if (l->line < *lo) *lo = l->line;
        if (l->line > *hi) *hi = l->line;
    }
    if (*hi < *lo) return;
    *lo = *lo > (int)o->context ? *lo - (int)o->context : 1;
    *hi += (int)o->context;
}

static void source_row(FILE *out, const hp_annot_view *v, const hp_annot_opts *o, int line, const hp_annot_line *l)
{
    const char *text = hp_annot_source_line(v->src, line), *col;
    count_cells(out, o, l, v->f->total, &col);
    fprintf(out, "  %6d  %s%s\n", line, text ? text : "", col[0] ? RESET : "");
}

/* The function's own file, from its first to its last line (source or line numbers only). */
static void write_source_lines(FILE *out, const hp_annot_view *v, const hp_annot_opts *o)
{
    int lo, hi;
    source_range(v->f, o, &lo, &hi);
    for (int line = lo; line <= hi; line++) {
        const hp_annot_line *l = line_entry(v->f, 0, line);
        if (!l && !hp_annot_source_line(v->src, line)) continue; /* past the end, or no source */
        source_row(out, v, o, line, l);
    }
}

/* Lines of other files (inlined code) and blocks without a line. */
static void write_other_lines(FILE *out, const hp_annot_view *v, const hp_annot_opts *o)
{
    const hp_annot_func *f = v->f;
    int heading = 0;
    for (size_t i = 0; i < f->nlines; i++) {
        const hp_annot_line *l = &f->lines[i];
        const char *col;
        if (l->file == 0 && l->line > 0) continue;
        if (!heading++) fprintf(out, "\n%12s %8s  elsewhere (inlined from other files, or no line known)\n", "count", "%");
        count_cells(out, o, l, f->total, &col);
        if (l->file < 0) fprintf(out, "  (no file or line)");
        else if (l->line <= 0) fprintf(out, "  %s (no line)", f->files[l->file]);
        else fprintf(out, "  %s:%d", f->files[l->file], l->line);
        fprintf(out, "%s\n", col[0] ? RESET : "");
    }
}

static void write_header(FILE *out, const hp_annot_view *v)
{
    const hp_annot_func *f = v->f;
    size_t executed = 0;
    char note[160];
    for (size_t i = 0; i < f->nblocks; i++) executed += f->blocks[i].count > 0;
    fprintf(out, "Annotate: %s  (0x%" PRIx64 ")\n", f->name, f->start);
    fprintf(out, "  file:   %s\n", f->nfiles ? f->files[0] : "(no source file known)");
    fprintf(out, "  module: %s\n", f->module && f->module->path[0] ? f->module->path : "(unknown)");
    if (f->samples)
        fprintf(out, "  total:  %" PRIu64 " timer samples (self) at %zu distinct pcs\n", f->total, f->nblocks);
    else
        fprintf(out, "  total:  %" PRIu64 " block executions, %zu of %zu blocks executed\n", f->total, executed,
                f->nblocks);
    hp_annot_sampling_note(v->p, note, sizeof note);
    if (note[0]) fprintf(out, "  %s\n", note);
}

static void write_asm(FILE *out, const hp_annot_view *v, const hp_annot_opts *o)
{
    const char *last_file = NULL;
    int last_line = -1;
    if (v->f->samples)
        fprintf(out, "\n%12s %8s  %s\n", "samples", "%", "address: instruction  (samples at it, '>' sampled; after ';' its top values)");
    else
        fprintf(out, "\n%12s %8s  %s\n", "count", "%", "address: instruction  (count: its block's; '>' a block start)");
    for (size_t i = 0; i < v->ninsns; i++) {
        const hp_annot_insn *in = &v->insns[i];
        int same_file = in->file == last_file || (in->file && last_file && strcmp(in->file, last_file) == 0);
        if (in->line != last_line || !same_file) {
            const char *text = v->f->nfiles && in->file && strcmp(in->file, v->f->files[0]) == 0
                                   ? hp_annot_source_line(v->src, in->line) : NULL;
            if (in->line > 0) fprintf(out, "%12s %8s  :%d  %s\n", "", "", in->line, text ? text : "");
            last_file = in->file, last_line = in->line;
        }
        const char *col = in->in_block ? colour_of(o, in->count, v->f->total) : "";
        if (in->in_block && (in->count || !v->f->samples)) fprintf(out, "%s%12" PRIu64 " %7.2f%%", col, in->count, hp_rt_percent(in->count, v->f->total));
        else fprintf(out, "%12s %8s", "", "");
        fprintf(out, " %c %" PRIx64 ":  %s%s%s%s\n", in->block_start ? '>' : ' ', in->addr, in->text,
                in->values[0] ? "    ; " : "", in->values, col[0] ? RESET : "");
    }
}

int hp_annot_write_text(FILE *out, const hp_annot_view *v, const hp_annot_opts *o)
{
    write_header(out, v);
    if (o->asm_view) {
        write_asm(out, v, o);
        return 0;
    }
    fprintf(out, "\n%12s %8s  %6s  %s\n", "count", "%", "line", "source");
    write_source_lines(out, v, o);
    write_other_lines(out, v, o);
    return 0;
}

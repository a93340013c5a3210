/* json.c — `hotprof annotate --format json` (annotate.h): one object for tools,
 *   {"function", "start", "module", "file", "sampled", "factor", "total", "blocks",
 *    "executed_blocks", "lines": [{"file", "line", "count", "percent", "blocks", "source"}],
 *    "instructions": [...]}   (instructions only with --asm)
 * lines: one entry per (file, line) holding blocks of the function (line 0: no line known),
 * sorted by file then line, counts as recorded (they sum to "total"); "source" is the line's
 * text when the function's own file could be read, else null. instructions: {"addr", "text",
 * "count" (its block's, null before the first block), "block_start", "file", "line", and in a
 * timer profile with values "values" (its top values)}. A timer profile also has "samples": true
 * (counts are samples at each pc).
 */
#include "analysis/annotate/annotate.h"
#include "analysis/report.h"
#include "analysis/rtable.h"
#include <inttypes.h>

static void json_str_or_null(FILE *out, const char *s)
{
    if (s) hp_json_string(out, s);
    else fputs("null", out);
}

static void write_lines(FILE *out, const hp_annot_view *v)
{
    const hp_annot_func *f = v->f;
    fputs(",\n  \"lines\": [", out);
    for (size_t i = 0; i < f->nlines; i++) {
        const hp_annot_line *l = &f->lines[i];
        fprintf(out, "%s\n    {\"file\": ", i ? "," : "");
        json_str_or_null(out, l->file >= 0 ? f->files[l->file] : NULL);
        fprintf(out, ", \"line\": %d, \"count\": %" PRIu64 ", \"percent\": %.2f, \"blocks\": %zu, \"source\": ",
                l->line, l->count, hp_rt_percent(l->count, f->total), l->nblocks);
        json_str_or_null(out, l->file == 0 ? hp_annot_source_line(v->src, l->line) : NULL);
        fputs("}", out);
    }
    fputs(f->nlines ? "\n  ]" : "]", out);
}

static void write_insns(FILE *out, const hp_annot_view *v)
{
    fputs(",\n  \"instructions\": [", out);
    for (size_t i = 0; i < v->ninsns; i++) {
        const hp_annot_insn *in = &v->insns[i];
        fprintf(out, "%s\n    {\"addr\": \"0x%" PRIx64 "\", \"text\": ", i ? "," : "", in->addr);
        hp_json_string(out, in->text);
        if (in->in_block) fprintf(out, ", \"count\": %" PRIu64, in->count);
        else fputs(", \"count\": null", out);
        fprintf(out, ", \"block_start\": %s, \"file\": ", in->block_start ? "true" : "false");
        json_str_or_null(out, in->file);
        fprintf(out, ", \"line\": %d", in->line);
        if (in->values[0]) fputs(", \"values\": ", out), hp_json_string(out, in->values);
        fputs("}", out);
    }
    fputs(v->ninsns ? "\n  ]" : "]", out);
}

int hp_annot_write_json(FILE *out, const hp_annot_view *v, const hp_annot_opts *o)
{
    const hp_annot_func *f = v->f;
    size_t executed = 0;
    char note[160];
    for (size_t i = 0; i < f->nblocks; i++) executed += f->blocks[i].count > 0;
    fputs("{\n  \"function\": ", out);
    hp_json_string(out, f->name);
    fprintf(out, ",\n  \"start\": \"0x%" PRIx64 "\",\n  \"module\": ", f->start);
    json_str_or_null(out, f->module && f->module->path[0] ? f->module->path : NULL);
    fputs(",\n  \"file\": ", out);
    json_str_or_null(out, f->nfiles ? f->files[0] : NULL);
    fprintf(out, ",\n  \"source_read\": %s", v->src ? "true" : "false");
    fprintf(out, ",\n  \"sampled\": %s", hp_annot_sampling_note(v->p, note, sizeof note)[0] ? "true" : "false");
    fprintf(out, ",\n  \"factor\": %.9g", hp_annot_factor(v->p));
    fprintf(out, ",\n  \"samples\": %s", f->samples ? "true" : "false");
    fprintf(out, ",\n  \"total\": %" PRIu64 ",\n  \"blocks\": %zu,\n  \"executed_blocks\": %zu", f->total, f->nblocks,
            executed);
    write_lines(out, v);
    if (o->asm_view) write_insns(out, v);
    fputs("\n}\n", out);
    return 0;
}

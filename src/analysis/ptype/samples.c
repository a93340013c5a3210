/* samples.c — the samples profile type in analysis (aptype.h). SKELETON: its sections are skipped and it
 * has no rows yet (the value-sampling branch fills it in). */
#include "analysis/ptype/aptype.h"

static int decode(hp_reader *r, hp_apt_acc *acc, size_t index, const hp_section_ref *s) { return 1; }
static int finish(hp_reader *r, hp_apt_acc *acc) { return 1; }
static void release(hp_profile *p) {}
static size_t rows(const hp_profile *p) { return 0; }
static int text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o) { return 0; }
static int json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o) { fputs("  \"samples\": []", out); return 0; }

const hp_aptype hp_aptype_samples = {
    .id = HP_PT_SAMPLES,
    .decode = decode,
    .finish = finish,
    .release = release,
    .rows = rows,
    .text = text,
    .json = json,
};

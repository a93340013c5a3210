/* path_report.c — the path type's `hotprof report` parts (path.h): the "Hot paths" table (rank,
 * count, share of all completed paths, length, the path as `function file:line → file:line → …`
 * with consecutive blocks on one line collapsed: hp_subpath_path_text) and the "paths" JSON member.
 * They appear when the profile holds paths (`shown`) or --type path asks for them (report.c).
 * Rows: p->paths in count order, at most the report's top.
 */
#define _GNU_SOURCE
#include "analysis/ptype/path.h"
#include "analysis/ptype/subpath.h"
#include "analysis/rtable.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int hp_path_shown(const hp_profile *p, const hp_report_opts *o)
{
    (void)o;
    return p->npaths > 0;
}

static double share(const hp_subpath_stat *sp, uint64_t total) { return total ? 100.0 * (double)sp->count / (double)total : 0; }

int hp_path_text(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t n = hp_rt_rows(p->npaths, o);
    uint64_t total = hp_path_total(p);
    const char *spec = hp_profile_info(p, HP_INFO_PATHVAL_SPEC), *unkept = hp_profile_info(p, HP_INFO_PATH_UNKEPT);
    fputc('\n', out);
    hp_rt_heading(out, o, "Hot paths: %zu of %zu, by count", n, p->npaths);
    fprintf(out, "  %" PRIu64 " paths completed (blocks between taken back-edges, across calls; %s)", total,
            spec ? spec : "path");
    const char *dropped = hp_profile_info(p, HP_INFO_PATH_DROPPED);
    if (unkept && strcmp(unkept, "0")) fprintf(out, ", %s without their blocks (arena full)", unkept);
    if (dropped && strcmp(dropped, "0")) fprintf(out, ", %s completions of paths past the cap not counted", dropped);
    fputc('\n', out);
    fprintf(out, "%4s %12s %7s %5s  %s\n", "rank", "count", "share", "len", "path");
    for (size_t i = 0; i < n; i++) {
        const hp_subpath_stat *sp = &p->paths[i];
        char *path = hp_subpath_path_text(s, sp);
        if (!path) return -1;
        fprintf(out, "%4zu %12" PRIu64 " %6.2f%% %5" PRIu32 "  %s\n", i + 1, sp->count, share(sp, total), sp->length, path);
        free(path);
    }
    if (!n) fprintf(out, "  (no paths in this profile: record them with hotprof run --sample path)\n");
    return 0;
}

int hp_path_text_totals(char *buf, size_t len, const hp_profile *p)
{
    if (!p->npaths) return 0;
    return snprintf(buf, len, "%zu paths (%" PRIu64 " completed)", p->npaths, hp_path_total(p));
}

int hp_path_json(FILE *out, const hp_profile *p, hp_symbolizer *s, const hp_report_opts *o)
{
    size_t n = hp_rt_rows(p->npaths, o);
    uint64_t total = hp_path_total(p);
    const char *spec = hp_profile_info(p, HP_INFO_PATHVAL_SPEC);
    fputs("  \"paths\": {\"spec\": ", out);
    hp_json_string(out, spec ? spec : "");
    fprintf(out, ", \"completed\": %" PRIu64 ", \"paths\": %zu, \"rows\": [", total, p->npaths);
    for (size_t i = 0; i < n; i++) {
        const hp_subpath_stat *sp = &p->paths[i];
        char *path = hp_subpath_path_text(s, sp);
        if (!path) return -1;
        fprintf(out, "%s\n    {\"rank\": %zu, \"key\": \"0x%016" PRIx64 "\", \"count\": %" PRIu64 ", \"share\": %.6g, "
                "\"length\": %" PRIu32 ", ", i ? "," : "", i + 1, sp->key, sp->count, share(sp, total) / 100, sp->length);
        hp_subpath_json_blocks(out, s, sp);
        fputs(", \"text\": ", out);
        hp_json_string(out, path);
        fputs("}", out);
        free(path);
    }
    fputs(n ? "\n  ]}" : "]}", out);
    return 0;
}

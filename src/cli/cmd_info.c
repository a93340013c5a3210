/* cmd_info.c — `hotprof info [FILE]`: a debugging view of a profile file: the header, the INFO
 * keys, the modules with their build-ids, every section with its offset, size and group, the
 * groups, what the last complete group holds, and the reader's warnings.
 */
#include "analysis/profile.h"
#include "cli/commands.h"
#include <inttypes.h>

static const hp_command_desc info_desc = {
    "info", "[FILE]",
    "Show what a profile file (default " HP_DEFAULT_PROFILE ") holds: header, info keys, modules,\n"
    "sections and sizes, groups, and warnings. For debugging the file itself; 'hotprof report'\n"
    "is the view for finding hot code.",
    NULL};

void cmd_info_usage(FILE *out) { hp_print_usage(out, &info_desc, NULL); }

static void print_header(const hp_profile *p)
{
    printf("file      %s (%" PRIu64 " bytes)\n", p->name, p->file_size);
    printf("format    version %u.%u, seed %" PRIu64 ", flags 0x%x\n", (unsigned)p->header.major,
           (unsigned)p->header.minor, p->header.seed, (unsigned)p->header.flags);
}

static void print_info_keys(const hp_profile *p)
{
    printf("\ninfo (%zu keys)\n", p->ninfo);
    for (size_t i = 0; i < p->ninfo; i++) printf("  %-20s %s\n", p->info[i].key, p->info[i].value);
}

static void print_modules(const hp_profile *p)
{
    printf("\nmodules (%zu)\n", p->nmodules);
    for (size_t i = 0; i < p->nmodules; i++) {
        const hp_module *m = &p->modules[i];
        printf("  %2zu base 0x%" PRIx64 "  [0x%" PRIx64 ", 0x%" PRIx64 ")  build-id ", i, m->base, m->lo, m->hi);
        for (uint32_t b = 0; b < m->buildid_len && b < 40; b++) printf("%02x", m->buildid[b]);
        printf("%s  %s\n", m->buildid_len ? "" : "(none)", m->path[0] ? m->path : "(no path)");
    }
}

static void print_sections(const hp_profile *p)
{
    printf("\nsections (%zu)\n  %5s %12s  %-10s %12s  %s\n", p->nsections, "#", "offset", "type", "length", "group");
    for (size_t i = 0; i < p->nsections; i++) {
        const hp_section_ref *s = &p->sections[i];
        char group[32];
        if (s->group >= 0) snprintf(group, sizeof group, "%d", s->group);
        else snprintf(group, sizeof group, "-");
        printf("  %5zu %12" PRIu64 "  %-10s %12" PRIu64 "  %s%s\n", i, s->offset, hp_section_type_name(s->type),
               s->length, group, s->complete ? "" : "  (unfinished: cut short or header never written)");
    }
}

static void print_group(const hp_profile *p)
{
    printf("\ngroups    %zu complete\n", p->ngroups);
    if (!p->have_group) return;
    printf("last      sequence %" PRIu64 ", flags 0x%" PRIx64 "%s%s, exit status %" PRId64 "\n", p->group_seq,
           p->group_flags, p->group_flags & HP_GROUP_FINAL ? " final" : "",
           p->group_flags & HP_GROUP_CRASH ? " crash" : "", p->exit_status);
    printf("          %zu threads, %zu functions, %zu call pairs, %zu blocks (%zu in block map), %zu edges, "
           "%zu summaries\n", p->nthreads, p->nfuncs, p->npairs, p->nblocks, p->nblockmap, p->nedges,
           p->nsummaries);
    for (size_t i = 0; i < p->nthreads; i++)
        printf("          thread %" PRIu64 ": %" PRIu64 " events\n", p->threads[i].tid, p->threads[i].events);
}

int cmd_info(int argc, char **argv)
{
    char **pos, err[512];
    int npos;
    hp_option none[] = {{HP_OPT_END, 0, NULL, NULL, NULL, NULL}};
    int rc = hp_parse_options(&info_desc, none, argc, argv, HP_PARSE_PERMUTE, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (npos > 1) return hp_usage_error(&info_desc, "one profile at a time");
    hp_profile *p = hp_profile_read_file(npos ? pos[0] : HP_DEFAULT_PROFILE, err, sizeof err);
    if (!p) {
        fprintf(stderr, "hotprof: %s\n", err);
        return 1;
    }
    print_header(p);
    print_info_keys(p);
    print_modules(p);
    print_sections(p);
    print_group(p);
    printf("\nwarnings  %zu\n", p->nwarnings);
    for (size_t i = 0; i < p->nwarnings; i++) printf("  %s\n", p->warnings[i]);
    hp_profile_free(p);
    return 0;
}

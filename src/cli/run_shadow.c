/* run_shadow.c — `hotprof run --mode shadow` (run_shadow.h, docs/shadow.md): options into
 * HOTPROF_SHADOW with the runtime's grammar, the program's hooks checked in its ELF symbol
 * tables (and a hint when it has no two-version code, section __hotprof_dual), and after the run
 * the shadows' profiles merged into the output.
 */
#define _GNU_SOURCE
#include "cli/run_shadow.h"
#include "cli/find_program.h"
#include "cli/run_timer.h"
#include "cli/read_profile.h"
#include "cli/outfile.h"
#include "analysis/merge/merge.h"
#include "core/control/shadow_spec.h"
#include "core/format/info_keys.h"
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hp_run_shadow_resolve(const hp_command_desc *d, hp_run_shadow *s, int shadow_mode)
{
    char err[256];
    hp_shadow_spec spec;
    hp_shadow_spec_default(&spec);
    if (!shadow_mode && (s->load || s->sample_size || s->signal || s->slice))
        return hp_usage_error(d, "options '--load', '--sample-size', '--shadow-signal' and '--shadow-slice' need --mode shadow");
    if (s->load && hp_shadow_load_parse(s->load, &spec.load, err, sizeof err))
        return hp_usage_error(d, "option '--load': %s", err);
    if (s->sample_size && hp_shadow_sample_parse(s->sample_size, &spec.sample, err, sizeof err))
        return hp_usage_error(d, "option '--sample-size': %s", err);
    if (s->signal && hp_shadow_signal_parse(s->signal, &spec.signal, err, sizeof err))
        return hp_usage_error(d, "option '--shadow-signal': %s", err);
    if (s->slice && hp_shadow_slice_parse(s->slice, &spec.slice_ms, err, sizeof err))
        return hp_usage_error(d, "option '--shadow-slice': %s", err);
    hp_shadow_spec_format(s->spec, sizeof s->spec, &spec);
    return 0;
}

/* ---------------------------------------------------------------- the program's hooks */

static int is_hook(const char *name)
{
    return strcmp(name, "__cyg_profile_func_enter") == 0 || strcmp(name, "__sanitizer_cov_trace_pc_guard") == 0;
}

/* 1 if the symbol table sh (with its string table) defines a hook. */
static int table_has_hook(int fd, const Elf64_Shdr *sh, const Elf64_Shdr *strsh)
{
    if (sh->sh_entsize != sizeof(Elf64_Sym) || strsh->sh_size == 0 || strsh->sh_size > (64u << 20)) return 0;
    char *str = malloc(strsh->sh_size + 1);
    int found = 0;
    if (!str || pread(fd, str, strsh->sh_size, (off_t)strsh->sh_offset) != (ssize_t)strsh->sh_size) return free(str), 0;
    str[strsh->sh_size] = 0;
    for (uint64_t i = 0; !found && i < sh->sh_size / sizeof(Elf64_Sym); i++) {
        Elf64_Sym sym;
        if (pread(fd, &sym, sizeof sym, (off_t)(sh->sh_offset + i * sizeof sym)) != (ssize_t)sizeof sym) break;
        found = sym.st_shndx != SHN_UNDEF && sym.st_name < strsh->sh_size && is_hook(str + sym.st_name);
    }
    free(str);
    return found;
}

/* 1: a 64-bit ELF that defines a hotprof hook; 0: an ELF without; -1: not an ELF (or unreadable). */
static int has_hooks(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
    Elf64_Ehdr eh;
    if (fd < 0) return -1;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
        return close(fd), -1;
    for (unsigned i = 0; !found && i < eh.e_shnum; i++) {
        Elf64_Shdr sh, strsh;
        if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * sizeof sh)) != (ssize_t)sizeof sh) break;
        if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_link >= eh.e_shnum) continue;
        if (pread(fd, &strsh, sizeof strsh, (off_t)(eh.e_shoff + (uint64_t)sh.sh_link * sizeof strsh)) != (ssize_t)sizeof strsh) break;
        found = table_has_hook(fd, &sh, &strsh);
    }
    close(fd);
    return found;
}

/* 1 if the ELF at path has a section named name (two-version code: "__hotprof_dual"), else 0. */
static int has_section(const char *path, const char *name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
    Elf64_Ehdr eh;
    Elf64_Shdr strsh;
    if (fd < 0) return 0;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
        pread(fd, &strsh, sizeof strsh, (off_t)(eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof strsh)) != (ssize_t)sizeof strsh)
        return close(fd), 0;
    size_t len = strlen(name) + 1;
    for (unsigned i = 0; !found && i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        char buf[64];
        if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * sizeof sh)) != (ssize_t)sizeof sh) break;
        found = sh.sh_name < strsh.sh_size && len <= sizeof buf &&
                pread(fd, buf, len, (off_t)(strsh.sh_offset + sh.sh_name)) == (ssize_t)len && memcmp(buf, name, len) == 0;
    }
    close(fd);
    return found;
}

/* ---------------------------------------------------------------- the shadows' directory */

static void shadows_dir(char *out, size_t cap, const char *output) { snprintf(out, cap, "%s.shadows", output); }

/* Removes dir/shadow.* and dir itself (what a shadow run leaves). */
static void remove_shadows(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[PATH_MAX];
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "shadow.", 7) == 0 && snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p) unlink(p);
    if (d) closedir(d);
    rmdir(dir);
}

int hp_run_shadow_prepare(const hp_run_shadow *s, const char *program, const char *output)
{
    char path[PATH_MAX], dir[PATH_MAX];
    if (hp_find_program(program, NULL, path, sizeof path)) {
        fprintf(stderr, "hotprof: cannot run '%s': %s\n", program, strerror(errno ? errno : ENOENT));
        return 127;
    }
    if (has_hooks(path) != 1) {
        fprintf(stderr, "hotprof: %s was not built with hotprof's hooks: --mode shadow needs a program built with "
                "'hotprof cc' (no __cyg_profile_func_enter or __sanitizer_cov_trace_pc_guard in it)\n", program);
        return 2;
    }
    if (!has_section(path, "__hotprof_dual") && !getenv("HOTPROF_QUIET")) /* a hint, not an error */
        fprintf(stderr, "hotprof: shadow: %s has no two-version code: its hooks are patched off, but the hooked code "
                "itself is slower than a native build; 'hotprof cc --hooks=dual-all' lets it run clean copies "
                "(docs/shadow.md)\n", program);
    shadows_dir(dir, sizeof dir, output);
    remove_shadows(dir); /* a stale one of an earlier run */
    return setenv("HOTPROF_SHADOW", s->spec, 1) ? 1 : 0;
}

/* ---------------------------------------------------------------- after the run */

static int by_name(const struct dirent **a, const struct dirent **b) { return strverscmp((*a)->d_name, (*b)->d_name); }
static int is_shadow(const struct dirent *e) { return strncmp(e->d_name, "shadow.", 7) == 0; }

/* The parent's shadow.* lines ("k=v\n"), malloc'd; NULL if none. */
static char *shadow_lines(const hp_profile *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    for (size_t i = 0; i < p->ninfo; i++)
        if (strncmp(p->info[i].key, HP_INFO_SHADOW ".", strlen(HP_INFO_SHADOW) + 1) == 0)
            fprintf(f, "%s=%s\n", p->info[i].key, p->info[i].value);
    fclose(f);
    return text;
}

static int merge_into(const char *output, hp_profile **in, int n, const char *extra, const hp_profile *parent)
{
    char err[1024], notes[4096];
    hp_pbuild b = {0};
    hp_merge_opts o = {.force = 0, .extra_info = extra, .status_from = parent};
    if (hp_merge_profiles(in, (size_t)n, &o, &b, err, sizeof err, notes, sizeof notes) != 0) {
        fprintf(stderr, "hotprof: shadow: cannot merge the shadows' profiles: %s\n", err);
        return 1;
    }
    hp_outfile of;
    int rc = hp_outfile_open(&of, output) ? 1 : 0;
    if (!rc) {
        fwrite(b.buf, 1, b.len, of.f);
        rc = hp_outfile_close(&of, 1) ? 1 : 0;
    }
    hp_pbuild_free(&b);
    return rc;
}

int hp_run_shadow_finish(const char *output, int quiet)
{
    char dir[PATH_MAX], p[PATH_MAX + 300];
    struct dirent **names = NULL;
    shadows_dir(dir, sizeof dir, output);
    int n = scandir(dir, &names, is_shadow, by_name), rc = 0, nread = 0;
    hp_profile *parent = hp_cli_read_profile(output);
    hp_profile **in = n > 0 ? calloc((size_t)n, sizeof *in) : NULL;
    for (int i = 0; in && i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]->d_name);
        if ((in[nread] = hp_cli_read_profile(p))) nread++; /* a shadow killed mid-write: skipped (read says why) */
    }
    char *extra = parent ? shadow_lines(parent) : NULL;
    if (nread) rc = merge_into(output, in, nread, extra, parent);
    else if (!quiet) fprintf(stderr, "hotprof: shadow: no shadow wrote a profile; %s holds the parent's counters only\n", output);
    if (!quiet && nread && !rc) fprintf(stderr, "hotprof: shadow: merged %d shadow profile%s into %s\n", nread, nread == 1 ? "" : "s", output);
    for (int i = 0; i < nread; i++) hp_profile_free(in[i]);
    for (int i = 0; i < n; i++) free(names[i]);
    free(names), free(in), free(extra);
    if (parent) hp_profile_free(parent);
    if (!rc) remove_shadows(dir);
    return rc;
}

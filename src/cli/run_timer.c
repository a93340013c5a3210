/* run_timer.c — `hotprof run --mode timer` (run_timer.h): options, the program check, the preload,
 * the summary line. Everything said here goes to hotprof's stderr: the program's own stdout and
 * stderr carry nothing of ours (the runtime is quiet in timer mode).
 */
#define _GNU_SOURCE
#include "cli/run_timer.h"
#include "cli/find_program.h"
#include "cli/value_module.h"
#include "analysis/profile.h"
#include "core/control/timer_spec.h"
#include "core/format/info_keys.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- options */

typedef struct one_opt { const char *name, *text; } one_opt;

int hp_run_timer_resolve(const hp_command_desc *d, hp_run_timer *t, int timer_mode)
{
    one_opt given[] = {{"freq", t->freq}, {"values", t->values}, {"engine", t->engine},
                       {"debias", t->debias}, {"signal", t->signal}, {"depth", t->depth},
                       {"clock", t->clock}};
    hp_timer_spec s;
    char err[256];
    hp_timer_spec_default(&s);
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++) {
        if (!given[i].text) continue;
        if (!timer_mode) return hp_usage_error(d, "option '--%s' needs --mode timer", given[i].name);
        int rc = i == 0 ? hp_timer_freq_parse(t->freq, &s.freq, err, sizeof err)
                 : i == 1 ? hp_timer_values_parse(t->values, &s.len, &s.every, err, sizeof err)
                 : i == 2 ? hp_timer_engine_parse(t->engine, &s.engine, err, sizeof err)
                 : i == 3 ? hp_timer_debias_parse(t->debias, &s.debias, err, sizeof err)
                 : i == 4 ? hp_timer_signal_parse(t->signal, &s.signal, err, sizeof err)
                 : i == 5 ? hp_timer_depth_parse(t->depth, &s.depth, err, sizeof err)
                          : hp_timer_clock_parse(t->clock, &s.clock, err, sizeof err);
        if (rc) return hp_usage_error(d, "option '--%s': %s", given[i].name, err);
    }
    if (t->module && !timer_mode) return hp_usage_error(d, "option '--module' needs --mode timer --values L/K");
    if (!s.len && (t->engine || t->debias || t->module))
        return hp_usage_error(d, "options '--engine', '--debias' and '--module' need --values L/K");
    t->module_path[0] = 0;
    if (t->module && !hp_value_module_open(t->module, t->module_path, sizeof t->module_path, err, sizeof err))
        return hp_usage_error(d, "option '--module': %s", err);
    hp_timer_spec_format(t->spec, sizeof t->spec, &s);
    return 0;
}

/* ---------------------------------------------------------------- the program */

/* 1: dynamically linked ELF (a PT_INTERP) or a #! script; 0: a static ELF; -1: unreadable or not a
 * 64-bit little-endian ELF (exec will say what it thinks). */
static int is_dynamic(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    Elf64_Ehdr eh;
    int r = -1;
    ssize_t n = pread(fd, &eh, sizeof eh, 0);
    if (n >= 2 && memcmp(&eh, "#!", 2) == 0) r = 1;
    else if (n == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64) {
        r = 0;
        for (unsigned i = 0; i < eh.e_phnum && r == 0; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof ph) break;
            if (ph.p_type == PT_INTERP) r = 1;
        }
    }
    close(fd);
    return r;
}

/* The runtime next to this hotprof: <dir of hotprof>/../lib/libhotprof_rt.so. */
static int find_runtime(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = 0;
    if (snprintf(out, cap, "%s/../lib/libhotprof_rt.so", exe) >= (int)cap) return -1;
    char real[PATH_MAX];
    if (!realpath(out, real)) return -1;
    snprintf(out, cap, "%s", real);
    return 0;
}

int hp_run_timer_prepare(const hp_run_timer *t, const char *program)
{
    char path[PATH_MAX], rt[PATH_MAX];
    if (hp_find_program(program, NULL, path, sizeof path)) {
        fprintf(stderr, "hotprof: cannot run '%s': %s\n", program, strerror(errno ? errno : ENOENT));
        return 127;
    }
    if (is_dynamic(path) == 0) {
        fprintf(stderr, "hotprof: %s is statically linked: --mode timer needs a dynamically linked program (LD_PRELOAD)\n", program);
        return 2;
    }
    if (find_runtime(rt, sizeof rt)) {
        fprintf(stderr, "hotprof: --mode timer: cannot find libhotprof_rt.so next to hotprof (../lib/)\n");
        return 1;
    }
    const char *old = getenv("LD_PRELOAD");
    char *preload = NULL;
    if (asprintf(&preload, "%s%s%s", rt, old && *old ? ":" : "", old && *old ? old : "") < 0) return 1;
    int rc = setenv("LD_PRELOAD", preload, 1) | setenv("HOTPROF_TIMER", t->spec, 1) |
             (t->module_path[0] ? setenv("HOTPROF_VALUE_MODULE", t->module_path, 1) : unsetenv("HOTPROF_VALUE_MODULE"));
    free(preload);
    return rc ? 1 : 0;
}

/* ---------------------------------------------------------------- after the run */

static uint64_t info_u64(const hp_profile *p, const char *key)
{
    const char *v = hp_profile_info(p, key);
    return v ? strtoull(v, NULL, 10) : 0;
}

void hp_run_timer_summary(const char *path)
{
    char err[256];
    hp_profile *p = hp_profile_read_file(path, err, sizeof err);
    if (!p) return; /* finish() already says whether a profile was written */
    uint64_t samples = info_u64(p, HP_INFO_TIMER_SAMPLES), dropped = info_u64(p, HP_INFO_TIMER_DROPPED);
    uint64_t ns = info_u64(p, HP_INFO_TIMER_HANDLER_NS) + info_u64(p, HP_INFO_VALUES_NS);
    uint64_t cpu = info_u64(p, HP_INFO_TIMER_CPU_NS), moves = info_u64(p, HP_INFO_TIMER_MOVES);
    double rate = cpu ? (double)samples * 1e9 / (double)cpu : 0;
    fprintf(stderr, "hotprof: wrote %s: %" PRIu64 " samples in %.3f s of CPU (%.0f per CPU second), %" PRIu64
            " dropped; overhead %.2f%% (%" PRIu64 " ns in handlers)\n",
            path, samples, (double)cpu / 1e9, rate, dropped, cpu ? 100.0 * (double)ns / (double)cpu : 0.0, ns);
    if (moves) fprintf(stderr, "hotprof: the program took our signal: moved %" PRIu64 " time(s)\n", moves);
    const char *values = hp_profile_info(p, HP_INFO_VALUES);
    if (values) {
        fprintf(stderr, "hotprof: values %s: %" PRIu64 " interpretations, %" PRIu64 " instructions; stops:", values,
                info_u64(p, HP_INFO_VALUES_RUNS), info_u64(p, HP_INFO_VALUES_INSNS));
        for (size_t i = 0; i < p->ninfo; i++)
            if (strncmp(p->info[i].key, HP_INFO_VALUES_STOP ".", sizeof HP_INFO_VALUES_STOP) == 0)
                fprintf(stderr, " %s=%s", p->info[i].key + sizeof HP_INFO_VALUES_STOP, p->info[i].value);
        fprintf(stderr, "\n");
    }
    hp_profile_free(p);
}

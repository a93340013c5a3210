/* export.c — the writer of `hotprof report --format pprof` (export.h): mappings from the
 * recorded modules, the chosen type's samples through its `pprof` hook (ptype/aptype.h), the
 * comments that say what the counts are, then one gzip stream (zlib) of the encoded message.
 * It loops over hp_aptypes[] and names no profile type; the per-type sampling notes come from
 * the hook's call to hp_pprof_export_sampling with its own HPS type.
 * Invariant: the output stream sees either nothing (out of memory before the end) or the whole
 * gzip member; a half-written file is the caller's outfile.h to remove.
 */
#include "analysis/pprof/export.h"
#include "analysis/ptype/aptype.h"
#include "analysis/rtable.h"
#include "core/control/bursty.h"
#include "core/control/spec.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <zlib.h>

int hp_pprof_parse_symbols(const char *word, hp_pprof_symbols *out)
{
    if (!strcmp(word, "full")) return *out = HP_PPROF_SYMBOLS_FULL, 0;
    if (!strcmp(word, "none")) return *out = HP_PPROF_SYMBOLS_NONE, 0;
    return -1;
}

/* ---- which type ---- */

int hp_pprof_type_check(const char *name, char *msg, size_t len)
{
    return hp_aptype_export_check(name, HP_EXPORT_PPROF, msg, len);
}

/* ---- mappings and locations ---- */

static void hex(const uint8_t *bytes, uint32_t n, char *out, size_t len)
{
    size_t w = 0;
    for (uint32_t i = 0; i < n && w + 3 <= len; i++) w += (size_t)snprintf(out + w, len - w, "%02x", bytes[i]);
    out[w] = 0;
}

/* The module's executable PT_LOAD segment at run time, page-aligned, as /proc/PID/maps shows it
 * (pprof readers find the file address of a location from start and offset: `go tool pprof`
 * from the executable segment's address, google/pprof from the segment holding the offset).
 * 0, or -1 if the file cannot be read (then the caller maps [lo, hi) from offset 0). */
static int exec_segment(const hp_module *m, uint64_t *start, uint64_t *limit, uint64_t *offset)
{
    int fd = m->path[0] == '/' ? open(m->path, O_RDONLY | O_CLOEXEC) : -1, rc = -1;
    Elf *e = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    size_t n = 0;
    if (e && elf_getphdrnum(e, &n) == 0) {
        for (size_t i = 0; i < n && rc; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
            uint64_t pad = ph.p_vaddr & 0xfff;
            *start = m->base + ph.p_vaddr - pad, *offset = ph.p_offset - (ph.p_offset & 0xfff);
            *limit = (m->base + ph.p_vaddr + ph.p_memsz + 0xfff) & ~(uint64_t)0xfff;
            rc = 0;
        }
    }
    if (e) elf_end(e);
    if (fd >= 0) close(fd);
    return rc;
}

/* One mapping per module: its executable segment, else [lo, hi) from file offset 0. */
static int add_mappings(hp_pprof_export *x)
{
    const hp_profile *p = x->p;
    int full = x->symbols == HP_PPROF_SYMBOLS_FULL;
    for (size_t i = 0; i < p->nmodules; i++) {
        const hp_module *m = &p->modules[i];
        char id[2 * 64 + 1];
        hex(m->buildid, m->buildid_len, id, sizeof id);
        hp_pprof_mapping_desc d = {m->lo, m->hi, 0, m->path, id, full, full, full};
        exec_segment(m, &d.start, &d.limit, &d.offset);
        if (!(x->module_mapping[i] = hp_pprof_mapping(x->b, &d))) return -1;
    }
    return 0;
}

static uint64_t mapping_of(hp_pprof_export *x, uint64_t addr)
{
    const hp_module *m = hp_profile_module_at(x->p, addr);
    return m ? x->module_mapping[m - x->p->modules] : 0;
}

/* The line of a function's first instruction, 0 if unknown. */
static int64_t start_line(hp_symbolizer *s, const hp_symbol *sym)
{
    const hp_symbol *start = sym->func_start == sym->addr ? sym : hp_sym_lookup(s, sym->func_start);
    return start && start->file && sym->file && !strcmp(start->file, sym->file) ? start->line : 0;
}

uint64_t hp_pprof_export_location(hp_pprof_export *x, uint64_t addr)
{
    uint64_t mapping = mapping_of(x, addr), fn;
    if (x->symbols == HP_PPROF_SYMBOLS_NONE) return hp_pprof_location(x->b, mapping, addr, 0, 0);
    const hp_symbol *sym = hp_sym_lookup(x->s, addr);
    if (sym && sym->function) {
        fn = hp_pprof_function(x->b, sym->function, sym->symbol, sym->file, start_line(x->s, sym));
        return fn ? hp_pprof_location(x->b, mapping, addr, fn, sym->line) : 0;
    }
    hp_rt_sym r;
    hp_rt_describe(x->s, addr, &r); /* "module+0xOFF" or "0xADDR", as the report */
    fn = hp_pprof_function(x->b, r.name, NULL, NULL, 0);
    return fn ? hp_pprof_location(x->b, mapping, addr, fn, 0) : 0;
}

uint64_t hp_pprof_export_named(hp_pprof_export *x, const char *name)
{
    uint64_t fn = hp_pprof_function(x->b, name, NULL, NULL, 0);
    return fn ? hp_pprof_location(x->b, 0, 0, fn, 0) : 0;
}

/* ---- comments ---- */

static int commentf(hp_pprof *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int commentf(hp_pprof *b, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return hp_pprof_comment(b, buf);
}

int hp_pprof_export_sampling(hp_pprof_export *x, int t, const char *what)
{
    const hp_profile *p = x->p;
    const hp_sample_stat *st = &p->sample[t];
    if (!p->bursty || !st->known) return hp_pprof_period(x->b, what, "count", 1);
    double f = hp_rt_frequency(p, t);
    int64_t period = f > 0 ? (int64_t)(1.0 / f + 0.5) : 1; /* events per recorded one, on average */
    if (hp_pprof_period(x->b, what, "count", period) ||
        commentf(x->b, "sampling %s: bursty (HPS), %s, period S=%u, burst B=%u, jitter %u%%",
                 hp_sample_type_name(t), st->enabled ? "enabled" : "disabled", st->period, st->burst, st->jitter) ||
        commentf(x->b, "sampled %" PRIu64 " of %" PRIu64 " events: observed frequency %.6f (B/(B+S) %.6f)",
                 st->sampled, st->events, hp_profile_sample_frequency(p, t), hp_bursty_frequency(st->burst, st->period)))
        return -1;
    if (f > 0) return commentf(x->b, "values are RECORDED (sampled) counts; estimate of the true count = value * %.6f "
                                     "(1 / frequency; hotprof report shows estimates)", 1.0 / f);
    return hp_pprof_comment(x->b, "values are RECORDED (sampled) counts; no frequency known to estimate from");
}

/* Profile.time_nanos from INFO start_time ("SECONDS.NANOSECONDS"); left 0 when absent or odd. */
static void add_time(hp_pprof_export *x)
{
    const char *v = hp_profile_info(x->p, HP_INFO_START_TIME);
    char *end;
    if (!v) return;
    unsigned long long sec = strtoull(v, &end, 10), ns = 0;
    int digits = 0;
    if (end == v || sec > (unsigned long long)INT64_MAX / 1000000000ull) return;
    if (*end == '.')
        for (end++; *end >= '0' && *end <= '9' && digits < 9; end++, digits++) ns = ns * 10 + (unsigned)(*end - '0');
    for (; digits < 9; digits++) ns *= 10;
    hp_pprof_time(x->b, (int64_t)(sec * 1000000000ull + ns));
}

static int add_comments(hp_pprof_export *x, const hp_aptype *t)
{
    const hp_profile *p = x->p;
    const char *program = hp_profile_info(p, HP_INFO_PROGRAM), *args = hp_profile_info(p, HP_INFO_ARGS);
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    if (commentf(x->b, "hotprof profile %s, profile type %s", p->name, hp_ptypes[t->id]->name) ||
        (program && commentf(x->b, "program %s", program)) || (args && args[0] && commentf(x->b, "command %s", args)) ||
        commentf(x->b, "mode %s", mode ? mode : "(unknown)"))
        return -1;
    if (mode && (!strcmp(mode, HP_MODE_XRAY) || !strcmp(mode, HP_MODE_PATCH)))
        return hp_pprof_comment(x->b, "patched bursts: values are raw sampled counts (no estimate)");
    return 0;
}

/* ---- gzip and the driver ---- */

static int gzip_write(FILE *out, const uint8_t *data, size_t len)
{
    z_stream z = {0};
    uLong cap = compressBound((uLong)len) + 64;
    uint8_t *buf = malloc(cap);
    int rc = -1;
    if (buf && deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
        z.next_in = (Bytef *)data, z.avail_in = (uInt)len, z.next_out = buf, z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END && fwrite(buf, 1, z.total_out, out) == z.total_out) rc = 0;
        deflateEnd(&z);
    }
    free(buf);
    return rc;
}

static int build(hp_pprof_export *x, const hp_aptype *t)
{
    if (add_mappings(x) || t->pprof(x) || add_comments(x, t)) return -1;
    add_time(x);
    return 0;
}

int hp_pprof_write(FILE *out, const hp_profile *p, hp_symbolizer *s, const char *type, hp_pprof_symbols symbols)
{
    const hp_aptype *t = type ? hp_aptype_export_named(type, HP_EXPORT_PPROF) : hp_aptype_export_default(p, HP_EXPORT_PPROF);
    hp_pprof_export x = {hp_pprof_new(), p, s, symbols, calloc(p->nmodules + 1, sizeof(uint64_t))};
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = -1;
    if (t && x.b && x.module_mapping && build(&x, t) == 0 && hp_pprof_encode(x.b, &data, &len) == 0)
        rc = gzip_write(out, data, len);
    free(data);
    free(x.module_mapping);
    hp_pprof_free(x.b);
    return rc;
}

/* record.c — a recorder of real event streams for the summaries benchmark (not the profiler's
 * runtime). Linked into a workload built with -finstrument-functions-after-inlining and
 * -fsanitize-coverage=trace-cmp, it appends one little-endian uint64 key per event to a file:
 *   calls:  key = mix(call site, callee)         -> $RECORD_CALLS   (call-pair stream)
 *   values: key = mix(compare pc, operand value) -> $RECORD_VALUES  (<pc, value> tuple stream)
 * Only the first RECORD_LIMIT events (default 4,000,000) of each stream are kept. Single-threaded
 * workloads only (one buffer per stream, no locking). Build with trace-cmp plus a coverage kind
 * that needs no hooks (inline-8bit-counters): clang emits compare hooks only with one.
 * mix() is splitmix64's finalizer, so keys are spread like the profiler's own hashed keys. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINST __attribute__((no_instrument_function))

typedef struct stream { FILE *f; uint64_t left; uint64_t buf[4096]; unsigned n; } stream;
static stream calls_stream, values_stream;
static int ready;

static NOINST uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9e3779b97f4a7c15ull ^ b;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static NOINST void flush(stream *s)
{
    if (s->f && s->n) fwrite(s->buf, sizeof s->buf[0], s->n, s->f);
    s->n = 0;
}

static NOINST void finish(void)
{
    flush(&calls_stream);
    flush(&values_stream);
    if (calls_stream.f) fclose(calls_stream.f);
    if (values_stream.f) fclose(values_stream.f);
    calls_stream.f = values_stream.f = NULL;
}

static NOINST void open_stream(stream *s, const char *env, uint64_t limit)
{
    const char *path = getenv(env);
    if (path && *path && !(s->f = fopen(path, "wb"))) perror(path);
    s->left = limit;
}

static NOINST void setup(void)
{
    ready = 1;
    const char *lim = getenv("RECORD_LIMIT");
    uint64_t limit = lim ? strtoull(lim, NULL, 10) : 4000000;
    open_stream(&calls_stream, "RECORD_CALLS", limit);
    open_stream(&values_stream, "RECORD_VALUES", limit);
    atexit(finish);
}

static inline NOINST void put(stream *s, uint64_t key)
{
    if (!s->f || !s->left) return;
    s->left--;
    s->buf[s->n++] = key;
    if (s->n == sizeof s->buf / sizeof s->buf[0]) flush(s);
}

NOINST void __cyg_profile_func_enter(void *fn, void *site)
{
    if (!ready) setup();
    put(&calls_stream, mix((uint64_t)(uintptr_t)site, (uint64_t)(uintptr_t)fn));
}
NOINST void __cyg_profile_func_exit(void *fn, void *site) { (void)fn, (void)site; }

#define CMP_HOOK(name, type)                                                                       \
    NOINST void name(type a, type b)                                                               \
    {                                                                                              \
        (void)b;                                                                                   \
        if (!ready) setup();                                                                       \
        put(&values_stream, mix((uint64_t)(uintptr_t)__builtin_return_address(0), (uint64_t)a));   \
    }
CMP_HOOK(__sanitizer_cov_trace_cmp1, uint8_t)
CMP_HOOK(__sanitizer_cov_trace_cmp2, uint16_t)
CMP_HOOK(__sanitizer_cov_trace_cmp4, uint32_t)
CMP_HOOK(__sanitizer_cov_trace_cmp8, uint64_t)
CMP_HOOK(__sanitizer_cov_trace_const_cmp1, uint8_t)
CMP_HOOK(__sanitizer_cov_trace_const_cmp2, uint16_t)
CMP_HOOK(__sanitizer_cov_trace_const_cmp4, uint32_t)
CMP_HOOK(__sanitizer_cov_trace_const_cmp8, uint64_t)
NOINST void __sanitizer_cov_trace_switch(uint64_t v, uint64_t *cases) { (void)v, (void)cases; }

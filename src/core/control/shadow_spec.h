/* shadow_spec.h — the grammar of shadow profiling's settings (HOTPROF_SHADOW, and `hotprof run
 * --mode shadow` options --load, --sample-size, --shadow-signal), their defaults and range checks.
 * The CLI builds the string with hp_shadow_spec_format, the runtime (runtime/config.c) parses it
 * with hp_shadow_spec_parse: both accept and reject exactly the same texts (docs/shadow.md).
 *
 * HOTPROF_SHADOW is KEY=V pairs separated by ',', each optional, no spaces:
 *   load=X      the average number of shadows alive the monitor aims at, 0.0625..2.0 (a decimal
 *               number: digits, optionally '.' and digits); default 0.25
 *   sample=N    events (calls + blocks) a shadow records before it ends, 1..2^40; a suffix K, M
 *               or G multiplies by 10^3, 10^6, 10^9 (decimal, as event counts are); default 10M
 *   signal=S    the monitor's timer signal: a number or a name (timer_spec.h's list: USR1 USR2
 *               ALRM VTALRM PROF RTMIN+N); default RTMIN+6 (40)
 *   slice=MS    a shadow also ends after MS milliseconds of its CPU time, 0..60000 (0: no limit),
 *               so that shadows, spaced per load, spread over the run's phases; default 50
 * e.g. "load=0.25,sample=10000000,signal=40,slice=50" — the canonical form (hp_shadow_spec_format), which
 * is also the profile's INFO line shadow.spec. A key given twice takes the later value.
 *
 * Pure C11: no allocation, no system calls, no writable data; errors are one sentence in err.
 */
#ifndef HOTPROF_CORE_CONTROL_SHADOW_SPEC_H
#define HOTPROF_CORE_CONTROL_SHADOW_SPEC_H
#include <stddef.h>
#include <stdint.h>

#define HP_SHADOW_DEFAULT_LOAD 0.25
#define HP_SHADOW_MIN_LOAD 0.0625
#define HP_SHADOW_MAX_LOAD 2.0
#define HP_SHADOW_DEFAULT_SAMPLE 10000000ull
#define HP_SHADOW_MAX_SAMPLE (1ull << 40)
#define HP_SHADOW_DEFAULT_SIGNAL 40 /* glibc's SIGRTMIN (34) + 6 */
#define HP_SHADOW_DEFAULT_SLICE_MS 50u
#define HP_SHADOW_MAX_SLICE_MS 60000u

typedef struct hp_shadow_spec {
    double load;     /* shadows alive on average, 0.0625..2 */
    uint64_t sample; /* events per shadow */
    int signal;      /* the monitor's timer signal */
    uint32_t slice_ms; /* a shadow's CPU time at most (0: no limit) */
} hp_shadow_spec;

void hp_shadow_spec_default(hp_shadow_spec *s);
/* The whole HOTPROF_SHADOW text: s reset to the defaults, then each key applied. NULL or "": the
 * defaults. 0, or -1 with one sentence in err. */
int hp_shadow_spec_parse(const char *text, hp_shadow_spec *s, char *err, size_t errlen);
/* One setting, as the CLI options give them (the same checks as the keys). */
int hp_shadow_load_parse(const char *text, double *out, char *err, size_t errlen);
int hp_shadow_sample_parse(const char *text, uint64_t *out, char *err, size_t errlen);
int hp_shadow_signal_parse(const char *text, int *out, char *err, size_t errlen);
int hp_shadow_slice_parse(const char *text, uint32_t *out, char *err, size_t errlen);
/* The canonical form, NUL-terminated, truncated to cap; returns its full length. */
size_t hp_shadow_spec_format(char *out, size_t cap, const hp_shadow_spec *s);

#endif

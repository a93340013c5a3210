/* timer_spec.h — the grammar of timer mode's settings (HOTPROF_TIMER, and `hotprof run --mode timer`
 * options --freq, --values, --engine, --debias, --signal, --depth), their defaults and range checks.
 * The CLI builds the string with hp_timer_spec_format, the runtime (runtime/config.c) parses it with
 * hp_timer_spec_parse: both accept and reject exactly the same texts.
 *
 * HOTPROF_TIMER is KEY=V pairs separated by ',', each optional, no spaces:
 *   freq=HZ       interrupts per second of each thread's CPU time, 1..100000 (default 1000)
 *   values=L/K    interpret L instructions (1..64) at every K-th interrupt (1..1000000); absent or
 *                 "off": PC + stack samples only (the default)
 *   engine=E      ool (out-of-line execution, default) | tf (trap flag) | check (test-only: tf, and
 *                 each step also run out of line and compared; docs/value-sampling.md)
 *   debias=N      0..64: step a random 0..N-1 instructions before capturing (0: off, default)
 *   signal=S      the timer's signal: a number or a name (PROF, SIGPROF, USR1, RTMIN+5, SIGRTMIN+5);
 *                 allowed: USR1 USR2 ALRM VTALRM PROF and RTMIN..RTMAX. Default RTMIN+5.
 *   depth=N       stack depth cap, 1..HP_STACK_MAX_DEPTH (256); default 64
 *   clock=C       the interrupt source: auto (default: perf if perf_event_open works, else posix) |
 *                 perf (a per-thread perf_event task-clock, hrtimer-driven: the full rate) |
 *                 posix (timer_create(CLOCK_THREAD_CPUTIME_ID): at most CONFIG_HZ per CPU second)
 * e.g. "freq=1000,values=4/2,engine=ool,debias=0,signal=39,depth=64,clock=auto". A key given twice takes the
 * later value. The canonical form (hp_timer_spec_format) names every key, the signal as a number,
 * and leaves values out when off: it is also the profile's INFO line "timer.spec".
 *
 * Signal numbers are Linux x86-64's with glibc's SIGRTMIN (34: glibc keeps 32 and 33 for itself);
 * the runtime checks the number against the libc it runs on.
 *
 * Pure C11: no allocation, no system calls, no writable data; errors are one sentence in err.
 */
#ifndef HOTPROF_CORE_CONTROL_TIMER_SPEC_H
#define HOTPROF_CORE_CONTROL_TIMER_SPEC_H
#include <stddef.h>
#include <stdint.h>

#define HP_TIMER_DEFAULT_FREQ 1000u
#define HP_TIMER_MAX_FREQ 100000u
#define HP_TIMER_MAX_LEN 64u          /* L at most */
#define HP_TIMER_MAX_EVERY 1000000u   /* K at most */
#define HP_TIMER_MAX_DEBIAS 64u
#define HP_TIMER_DEFAULT_DEPTH 64u
#define HP_TIMER_SIGRTMIN 34          /* glibc's SIGRTMIN on Linux */
#define HP_TIMER_SIGRTMAX 64
#define HP_TIMER_DEFAULT_SIGNAL (HP_TIMER_SIGRTMIN + 5)
enum { HP_TIMER_ENGINE_OOL = 0, HP_TIMER_ENGINE_TF = 1, HP_TIMER_ENGINE_CHECK = 2 }; /* = enum hp_interp_engine */
enum { HP_TIMER_CLOCK_AUTO = 0, HP_TIMER_CLOCK_PERF = 1, HP_TIMER_CLOCK_POSIX = 2 };

typedef struct hp_timer_spec {
    uint32_t freq;    /* Hz of thread CPU time */
    uint32_t len;     /* L; 0: no value sampling */
    uint32_t every;   /* K (meaningful when len > 0) */
    int engine;       /* HP_TIMER_ENGINE_* */
    uint32_t debias;
    int signal;       /* the signal number */
    uint32_t depth;
    int clock;        /* HP_TIMER_CLOCK_* */
    const char *module; /* not in the grammar: a value-sampling customization module's path, which the
                         * runtime's config takes from HOTPROF_VALUE_MODULE (a path may hold ','); NULL */
} hp_timer_spec;

void hp_timer_spec_default(hp_timer_spec *s);
/* The whole HOTPROF_TIMER text: s reset to the defaults, then each key applied. NULL or "": the
 * defaults. 0, or -1 with one sentence in err (s is then unspecified). */
int hp_timer_spec_parse(const char *text, hp_timer_spec *s, char *err, size_t errlen);
/* One setting, as the CLI options give them (the same checks as the keys of the same name). */
int hp_timer_freq_parse(const char *text, uint32_t *out, char *err, size_t errlen);
int hp_timer_values_parse(const char *text, uint32_t *len, uint32_t *every, char *err, size_t errlen);
int hp_timer_engine_parse(const char *text, int *out, char *err, size_t errlen);
int hp_timer_debias_parse(const char *text, uint32_t *out, char *err, size_t errlen);
int hp_timer_signal_parse(const char *text, int *out, char *err, size_t errlen);
int hp_timer_depth_parse(const char *text, uint32_t *out, char *err, size_t errlen);
int hp_timer_clock_parse(const char *text, int *out, char *err, size_t errlen);
/* The canonical form (above), NUL-terminated, truncated to cap; returns its full length. */
size_t hp_timer_spec_format(char *out, size_t cap, const hp_timer_spec *s);
const char *hp_timer_engine_name(int engine); /* "ool", "tf", "check"; "?" otherwise */
const char *hp_timer_clock_name(int clock);   /* "auto", "perf", "posix"; "?" otherwise */
/* A signal's name without "SIG" ("PROF", "RTMIN+5") into out; returns its length. */
size_t hp_timer_signal_name(char *out, size_t cap, int signo);
/* 1 if signo may carry the timer (the allowed list above). */
int hp_timer_signal_allowed(int signo);

#endif

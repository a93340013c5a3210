/* sampling.h — the text form of bursty-sampling settings, shared by the runtime (HOTPROF_SAMPLE),
 * the CLI (`hotprof run --sample`) and the reader (the profile's `sample.<type>` INFO keys).
 *
 * A spec is clauses separated by ';':   TYPE[:KEY=N[,KEY=N...]]
 *   TYPE  methods | callpairs | edges | datastream       (hp_bursty_type order)
 *   KEY   period (S, boundary events between bursts, 0..2^30), burst (B, 1..2^30),
 *         jitter (percent, 0..99)
 * e.g. "methods:period=1000,burst=1;edges:period=5000,burst=10,jitter=20". A named type is
 * enabled; a key it leaves out takes HP_SAMPLE_DEFAULT_*; types not named are disabled. A type
 * named twice takes the later clause. Whitespace is not allowed (the spec travels in one
 * environment variable). The parameter list "period=N,burst=M,jitter=J" is also the value of the
 * profile's INFO key sample.<type> (hp_sample_params_format).
 *
 * Pure C11: no allocation, no system calls; errors are one sentence in the caller's buffer.
 */
#ifndef HOTPROF_CORE_SAMPLING_H
#define HOTPROF_CORE_SAMPLING_H
#include <stddef.h>
#include "core/control/bursty.h"

#define HP_SAMPLE_DEFAULT_PERIOD 1000u
#define HP_SAMPLE_DEFAULT_BURST 1u

/* "methods", "callpairs", "edges", "datastream"; NULL for a bad type. */
const char *hp_sample_type_name(int type);
/* The type named by the len bytes at word, or -1. */
int hp_sample_type_parse(const char *word, size_t len);
/* Every type disabled, with the default period, burst and no jitter. */
void hp_sample_defaults(hp_bursty_params p[HP_BURSTY_NTYPES]);
/* One clause (len bytes at text): enables its type in p with its values. 0, or -1 and err. */
int hp_sample_clause_parse(const char *text, size_t len, hp_bursty_params p[HP_BURSTY_NTYPES], char *err,
                           size_t errlen);
/* A whole spec: p is reset to hp_sample_defaults, then each clause applied. 0, or -1 and err
 * (p is then unspecified). An empty spec is an error. */
int hp_sample_spec_parse(const char *text, hp_bursty_params p[HP_BURSTY_NTYPES], char *err, size_t errlen);
/* "period=N,burst=M,jitter=J" into *p (keys in any order, each optional: missing keys keep *p's
 * values; `enabled` is not touched). 0, or -1 and err. */
int hp_sample_params_parse(const char *text, size_t len, hp_bursty_params *p, char *err, size_t errlen);
/* Writes "period=N,burst=M,jitter=J" (NUL-terminated, truncated to cap); returns its length. */
size_t hp_sample_params_format(char *out, size_t cap, const hp_bursty_params *p);

#endif

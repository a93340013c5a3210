/* spec.h — the ONE grammar of hotprof's run-time settings, their defaults and range checks, shared
 * by the CLI (`hotprof run` options), the runtime (HOTPROF_* variables, read once by
 * runtime/config.c) and the reader (the profile's INFO keys). A setting is parsed here and nowhere
 * else, so `--seed 5` and `HOTPROF_SEED=5` accept and reject exactly the same texts.
 *
 * Settings: seed (HOTPROF_SEED, --seed), mode (HOTPROF_MODE, --mode), bursts (HOTPROF_BURSTS,
 * --bursts), window (HOTPROF_WINDOW), flags (HOTPROF_QUIET, HOTPROF_FOLLOW_FORK), and the
 * bursty-sampling spec (HOTPROF_SAMPLE, --sample) whose grammar follows.
 *
 * A spec is clauses separated by ';':   TYPE[:KEY=N[,KEY=N...]]
 *   TYPE  methods | callpairs | edges | datastream       (hp_bursty_type order), or a synonym
 *         of the profile-type registry (core/ptype: "calls" is methods)
 *   KEY   period (S, boundary events between bursts, 0..2^30), burst (B, 1..2^30),
 *         jitter (percent, 0..99)
 * e.g. "methods:period=1000,burst=1;edges:period=5000,burst=10,jitter=20". A named type is
 * enabled; a key it leaves out takes HP_SAMPLE_DEFAULT_*; types not named are disabled. A type
 * named twice takes the later clause. Whitespace is not allowed (the spec travels in one
 * environment variable). The parameter list "period=N,burst=M,jitter=J" is also the value of the
 * profile's INFO key sample.<type> (hp_sample_params_format).
 *
 * The `subpath` clause (online subpath profiling, core/control/osp.h; synonym "subpaths") has keys
 * of its own, each optional:
 *   subpath[:mem=BYTES,len=LAW,maxlen=N,enc=ENC,minf=N,weight=W,list=L,prefixes=on|off,skiponly=0|1]
 *   mem      hot-list budget in bytes, suffix K (x1024) or M (x1048576); 1K..1G; default 64K
 *   len      pow2 (default) | uniform | any | pow2+3+5 (osp.h gives the laws)
 *   maxlen   2..1024; default 32 (1024 with len=any); a power of two for pow2 and uniform
 *   enc      xor (default) | exact (core/ptype/subpath.h)
 *   minf     the smallest mean skip in blocks, 1..2^30; default 64
 *   weight   count (default) | length | cost
 *   list     counting (default) | concise (core/summary/osplist.h)
 *   prefixes on (default; off with len=any unless given): a sample also offers its shorter
 *            prefixes the law draws (hp_osp_prefix_next, osp.h)
 *   skiponly 1: skip but never record a subpath (measures the skipping overhead alone)
 * Only hp_sample_*_osp accept it (the others say "subpath" is not an HPS type). Its canonical
 * form (hp_osp_params_format, INFO subpath.params) is
 *   mem=65536,len=pow2,maxlen=32,enc=xor,minf=64,weight=count,list=counting,prefixes=on
 * (",skiponly=1" when set).
 *
 * Pure C11: no allocation, no system calls; errors are one sentence in the caller's buffer.
 */
#ifndef HOTPROF_CORE_CONTROL_SPEC_H
#define HOTPROF_CORE_CONTROL_SPEC_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/bursty.h"
#include "core/control/osp.h"

#define HP_SAMPLE_DEFAULT_PERIOD 1000u
#define HP_SAMPLE_DEFAULT_BURST 1u
#define HP_SAMPLE_DEFAULT_JITTER HP_BURSTY_DEFAULT_JITTER /* percent (bursty.h says why 50) */
/* Types sampled when bursty mode is asked for without a spec: methods and call pairs. */
#define HP_SAMPLE_DEFAULT_TYPES ((1u << HP_BURSTY_METHODS) | (1u << HP_BURSTY_CALL_PAIRS))
#define HP_SPEC_DEFAULT_WINDOW 100u /* units per patched-burst window at least (HOTPROF_WINDOW) */
#define HP_SPEC_DEFAULT_OUTPUT "hotprof.data"

/* ---- scalar settings: each returns 0 and sets *out, or -1 with one sentence in err ---- */

enum hp_run_mode { HP_RUN_EXHAUSTIVE = 0, HP_RUN_OFF = 1, HP_RUN_BURSTY = 2, HP_RUN_TIMER = 3, HP_RUN_SHADOW = 4 };
/* count: count-triggered bursts on two-version code (runtime/ctl/dual.h, docs/dual.md) */
enum hp_bursts_mode { HP_BURSTS_AUTO = 0, HP_BURSTS_LIVE = 1, HP_BURSTS_PATCH = 2, HP_BURSTS_COUNT = 3 };

/* An unsigned number in [lo, hi]: decimal, or hex with 0x; no sign, no spaces, no overflow. */
int hp_spec_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* A seed: any 64-bit unsigned number (decimal or 0x hex). */
int hp_spec_seed(const char *text, uint64_t *out, char *err, size_t errlen);
/* exhaustive | off | bursty | timer | shadow (HP_RUN_TIMER: core/control/timer_spec.h has its settings;
 * HP_RUN_SHADOW: core/control/shadow_spec.h). */
int hp_spec_mode(const char *text, int *out, char *err, size_t errlen);
/* auto | live | patch. */
int hp_spec_bursts(const char *text, int *out, char *err, size_t errlen);
/* Units per window, 1..HP_BURSTY_MAX_COUNT. */
int hp_spec_window(const char *text, uint32_t *out, char *err, size_t errlen);
/* A flag: "" or "0" is off, "1" is on; anything else is an error. */
int hp_spec_flag(const char *text, int *out, char *err, size_t errlen);
const char *hp_spec_mode_name(int mode);   /* "exhaustive", "off", "bursty", "timer", "shadow" */
const char *hp_spec_bursts_name(int mode); /* "auto", "live", "patch" */

/* ---- the bursty-sampling spec ---- */

/* The i-th type name --sample accepts (the HPS types in order, then "subpath"); NULL after the last. */
const char *hp_sample_word(int i);
/* "methods", "callpairs", "edges", "datastream"; NULL for a bad type. */
const char *hp_sample_type_name(int type);
/* The type named by the len bytes at word (a name or a registry synonym), or -1. */
int hp_sample_type_parse(const char *word, size_t len);
/* Every type disabled, with the default period, burst and jitter. */
void hp_sample_defaults(hp_bursty_params p[HP_BURSTY_NTYPES]);
/* One clause (len bytes at text): enables its type in p with its values. 0, or -1 and err. */
int hp_sample_clause_parse(const char *text, size_t len, hp_bursty_params p[HP_BURSTY_NTYPES], char *err,
                           size_t errlen);
/* A whole spec: p is reset to hp_sample_defaults, then each clause applied. 0, or -1 and err
 * (p is then unspecified). An empty spec is an error. */
int hp_sample_spec_parse(const char *text, hp_bursty_params p[HP_BURSTY_NTYPES], char *err, size_t errlen);
/* The same two with the subpath clause: osp is reset to hp_osp_params_default (disabled) by the
 * spec parse, and a subpath clause enables it with its keys. osp NULL: a subpath clause is an error. */
int hp_sample_clause_parse_osp(const char *text, size_t len, hp_bursty_params p[HP_BURSTY_NTYPES],
                               hp_osp_params *osp, char *err, size_t errlen);
int hp_sample_spec_parse_osp(const char *text, hp_bursty_params p[HP_BURSTY_NTYPES], hp_osp_params *osp,
                             char *err, size_t errlen);
/* The subpath clause's keys ("mem=64K,enc=exact", len bytes) into *p (missing keys keep *p's
 * values, except maxlen, which follows len=any when not given). 0, or -1 and err. */
int hp_osp_params_parse(const char *text, size_t len, hp_osp_params *p, char *err, size_t errlen);
/* The canonical form (see above), NUL-terminated, truncated to cap; returns its length. */
size_t hp_osp_params_format(char *out, size_t cap, const hp_osp_params *p);
/* "pow2", "uniform", "any", "pow2+3+5"; "xor", "exact"; "count", "length", "cost". */
const char *hp_osp_law_name(uint32_t law);
const char *hp_osp_enc_name(uint32_t enc);
const char *hp_osp_weight_name(uint32_t weight);
const char *hp_osp_list_name(uint32_t list);

/* "period=N,burst=M,jitter=J" into *p (keys in any order, each optional: missing keys keep *p's
 * values; `enabled` is not touched). 0, or -1 and err. */
int hp_sample_params_parse(const char *text, size_t len, hp_bursty_params *p, char *err, size_t errlen);
/* Writes "period=N,burst=M,jitter=J" (NUL-terminated, truncated to cap); returns its length. */
size_t hp_sample_params_format(char *out, size_t cap, const hp_bursty_params *p);

/* ---- interval profiles (docs/intervals.md): clauses of --sample / HOTPROF_INTERVALS ----
 * STREAM:summary=multihash[,KEY=V...] with STREAM value (<pc, value> of trace-cmp operands and
 * trace-loads values) or edges (<branch pc, target>), both recorded by the one `intervals` profile
 * type. Keys: tables (n, 1..64, default 4), counters (Z, divisible by n, default 2048), bits
 * (1..32, default the narrowest that holds T), conservative, reset, retain, shield (0|1; defaults
 * 1, 0, 1, 1: the paper's best C1 R0 with shielding and retaining), interval (L, 1..2^40, default
 * 10000), threshold (t: "1%" or a fraction "0.01", in (0, 1]; default 1%), exact (0|1: also record
 * the exact per-interval candidate sets), budget (timeline slots, 2..2^20, default 4096), hash
 * (paper: the paper's byte-table hash, the default; fast: one mixer per table, multihash.h),
 * variant (paper: the design as given; rebalanced, the default: the same area with half the
 * accumulator and more counters; half: half the area; hp_multihash_rebalance, docs/intervals.md).
 * T = ceil(t L) must fit the counters; the variant must leave room for n counters. The multi-hash seed is the run seed. Clauses are separated
 * by ';' (HOTPROF_INTERVALS holds them in the canonical form hp_iv_params_format writes). */
enum hp_iv_stream { HP_IV_VALUE = 0, HP_IV_EDGES = 1, HP_IV_NSTREAMS = 2 };
#define HP_IV_DEFAULT_INTERVAL 10000u
#define HP_IV_DEFAULT_THRESHOLD 0.01
#define HP_IV_DEFAULT_BUDGET 4096u
#define HP_IV_DEFAULT_VARIANT 1 /* HP_MH_VARIANT_REBALANCED: measured better than the paper's (docs/intervals.md) */

typedef struct hp_iv_params {
    int enabled, exact;
    uint32_t budget;
    uint32_t n_tables, total_counters, counter_bits; /* counter_bits 0: the narrowest that holds T */
    int conservative, reset, retain, shield;
    int fast_hash;    /* hash=fast */
    int variant;      /* HP_MH_VARIANT_* (core/summary/multihash.h); default HP_IV_DEFAULT_VARIANT */
    uint64_t interval;
    double threshold; /* fraction */
} hp_iv_params;

const char *hp_iv_stream_name(int stream); /* "value", "edges"; NULL for a bad stream */
void hp_iv_defaults(hp_iv_params iv[HP_IV_NSTREAMS]);
/* 1 if the clause (len bytes) is an interval clause: a "summary=" key after the colon whose value
 * is not a summary of the value profile (tnv, gm: core/control/pathval_spec.h). */
int hp_iv_clause_is(const char *text, size_t len);
/* One clause into iv[its stream] (enabled). 0, or -1 and err. */
int hp_iv_clause_parse(const char *text, size_t len, hp_iv_params iv[HP_IV_NSTREAMS], char *err, size_t errlen);
/* ';'-separated clauses; iv is reset to hp_iv_defaults first. 0, or -1 and err. */
int hp_iv_spec_parse(const char *text, hp_iv_params iv[HP_IV_NSTREAMS], char *err, size_t errlen);
/* T = ceil(t L) of p, and the counter width in use (p->counter_bits or the narrowest for T). */
uint64_t hp_iv_threshold_count(const hp_iv_params *p);
uint32_t hp_iv_counter_bits(const hp_iv_params *p);
/* "paper", "rebalanced", "half"; NULL for a bad variant. */
const char *hp_iv_variant_name(int variant);
/* The multi-hash structure p stands for (the variant applied to the design tables x counters),
 * seeded with seed: 0, or -1 if the variant leaves no room for n counters. */
struct hp_multihash_params;
int hp_iv_multihash_params(const hp_iv_params *p, uint64_t seed, struct hp_multihash_params *out);
/* "STREAM:summary=multihash,tables=..,...": every key, canonical (NUL-terminated, truncated to cap). */
size_t hp_iv_params_format(char *out, size_t cap, int stream, const hp_iv_params *p);

#endif

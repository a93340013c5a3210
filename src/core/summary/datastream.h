/* datastream.h — hot data stream detector (Chilimbi; HPS Section 4.3 "hot data stream"):
 * finds repeated sequences of data references whose heat = length x frequency is high, from the
 * references a thread makes during sampling bursts. Algorithm and its reasons: docs/datastream.md.
 *
 * Use (one state per thread, in memory the caller owns):
 *     size_t n = hp_ds_bytes_for(&cfg);  void *mem = <n bytes, 8-aligned>;
 *     hp_ds_state *s = hp_ds_init(mem, n, &cfg);
 *     during a burst:      hp_ds_access(s, addr)          (or hp_ds_access_pc(s, pc, addr))
 *     when the burst ends: hp_ds_burst_end(s)             (processes the buffered trace)
 *     any time:            hp_ds_hot(s, out, max)         (streams with heat >= cfg.min_heat)
 * hp_ds_access only appends to the trace buffer (an inline store and a compare); a full buffer is
 * processed at once, as if the burst had ended there. Nothing here allocates, locks, makes a
 * system call or touches a global, so a signal handler may call hp_ds_access / hp_ds_burst_end on
 * a state no other code is using at the same time.
 *
 * Algorithm in short: for every window length L = 2^k in [min_window, max_window] and every start
 * position of a burst trace, the window's 64-bit hash is counted in a Space-Saving summary of that
 * length (core/spacesaving.h), and each held key keeps one exemplar (the window's references).
 * hp_ds_hot chains held windows of one length that overlap by L - 1 references and have similar
 * counts into streams (so a stream of any length >= 2 is recovered exactly, up to
 * HP_DS_MAX_STREAM), estimates a stream's frequency as the smallest count of its windows, and
 * reports those with heat >= min_heat, dropping a stream contained in a longer one at least as hot.
 *
 * Guarantees (per window length L, N_L = windows counted so far, m = cfg.counters): a window
 * occurring more than N_L / m times in the processed traces is held, with count - err <= true <=
 * count. For a stream S each of whose windows is held: freq(S) >= the occurrences of S that lie
 * wholly inside one processed trace, and freq(S) <= the occurrences of its rarest window + err
 * (<= N_L / m). So a stream is found when it occurs more than N_L / m times (and at least
 * min_freq); its frequency is overestimated only by Space-Saving's error and by occurrences of its
 * windows outside it. Frequencies count the *observed* trace: scale by refs_seen / (references the
 * program made) to estimate whole-run frequencies under sampling.
 *
 * Invariants: every key held by a level's Space-Saving summary has exactly one exemplar, whose
 * hash is the key; trace_len <= trace_cap. The state holds pointers into its own memory: move it
 * with serialize/deserialize, never memcpy. Serialized form: little-endian, magic "HPDS", version,
 * configuration, counters, each level's Space-Saving blob and exemplars, CRC-32 of everything
 * before it; deserialize checks all of it (sizes, ranges, each exemplar's hash, CRC) and returns
 * NULL on any mismatch.
 */
#ifndef HOTPROF_CORE_DATASTREAM_H
#define HOTPROF_CORE_DATASTREAM_H
#include <stddef.h>
#include <stdint.h>

#define HP_DS_VERSION 1u
#define HP_DS_MIN_WINDOW 2u
#define HP_DS_MAX_WINDOW 32u
#define HP_DS_MAX_LEVELS 5u     /* window lengths 2, 4, 8, 16, 32 */
#define HP_DS_MAX_STREAM 64u    /* longest stream reported (a longer chain is cut, see truncated) */
#define HP_DS_MAX_TRACE (1u << 24)
#define HP_DS_MAX_COUNTERS (1u << 20)

typedef struct hp_ds_config {
    uint32_t trace_cap;  /* references buffered per burst (>= 2 * max_window); default 4096 */
    uint32_t min_window; /* shortest window, a power of 2 in [2, 32]; default 2 */
    uint32_t max_window; /* longest window, a power of 2 in [min_window, 32]; default 32 */
    uint32_t counters;   /* Space-Saving counters per window length (>= 2); default 256 */
    uint32_t with_pc;    /* 1: a reference is (pc, addr); 0: addr only. default 0 */
    uint32_t min_freq;   /* a window seen fewer times never joins a stream (>= 2); default 2 */
    uint64_t min_heat;   /* report streams with length * freq >= min_heat; default 0 */
    uint64_t seed;       /* hash seed (two states merge only with equal seeds) */
} hp_ds_config;

typedef struct hp_ds_stream {
    uint32_t len;                     /* references in the stream, 2..HP_DS_MAX_STREAM */
    uint32_t truncated;               /* 1 if the chain went on beyond HP_DS_MAX_STREAM */
    uint32_t window;                  /* window length it was chained from */
    uint32_t pad;
    uint64_t freq;                    /* estimated occurrences in the observed trace */
    uint64_t err;                     /* Space-Saving error of its windows (largest) */
    uint64_t heat;                    /* len * freq */
    uint64_t addr[HP_DS_MAX_STREAM];  /* the reference sequence */
    uint64_t pc[HP_DS_MAX_STREAM];    /* their pcs (0 without with_pc) */
} hp_ds_stream;

typedef struct hp_ds_level hp_ds_level; /* one window length: summary + exemplars (datastream.c) */

/* Fields are private to datastream.c except where the inline hp_ds_access reads them. */
typedef struct hp_ds_state {
    uint64_t *trace, *trace_pc;  /* buffered references of the current burst */
    uint32_t trace_len, trace_cap;
    hp_ds_config cfg;
    uint32_t nlevels, pad;
    uint64_t refs_seen;          /* references given to hp_ds_access* */
    uint64_t bursts;             /* traces processed */
    uint64_t *prefix;            /* rolling-hash prefix array, trace_cap + 1 */
    hp_ds_level *levels;
    void *scratch;               /* hp_ds_hot's working memory */
    size_t scratch_bytes, bytes;
} hp_ds_state;

void hp_ds_default_config(hp_ds_config *c);
/* 0 if c is usable, else -1. */
int hp_ds_config_check(const hp_ds_config *c);
/* Bytes hp_ds_init needs for c (0 if c is not usable). */
size_t hp_ds_bytes_for(const hp_ds_config *c);
/* Places the state in mem[0..budget) (mem 8-aligned); NULL if c is not usable or too big. */
hp_ds_state *hp_ds_init(void *mem, size_t budget, const hp_ds_config *c);

/* Processes the buffered trace (windows never span two traces) and empties it. */
void hp_ds_burst_end(hp_ds_state *s);

static inline void hp_ds_access(hp_ds_state *s, uint64_t addr)
{
    if (__builtin_expect(s->trace_len == s->trace_cap, 0)) hp_ds_burst_end(s);
    if (s->trace_pc) s->trace_pc[s->trace_len] = 0;
    s->trace[s->trace_len++] = addr;
    s->refs_seen++;
}

static inline void hp_ds_access_pc(hp_ds_state *s, uint64_t pc, uint64_t addr)
{
    if (__builtin_expect(s->trace_len == s->trace_cap, 0)) hp_ds_burst_end(s);
    if (s->trace_pc) s->trace_pc[s->trace_len] = pc;
    s->trace[s->trace_len++] = addr;
    s->refs_seen++;
}

/* Writes up to max hot streams, hottest first (ties: longer first, then by content); returns
 * how many. Uses the state's scratch memory (not concurrently with other calls on s). The trace
 * still buffered is not included: call hp_ds_burst_end first. */
size_t hp_ds_hot(hp_ds_state *s, hp_ds_stream *out, size_t max);
/* Changes the report threshold (e.g. a fraction of refs_seen, see docs/datastream.md). */
void hp_ds_set_min_heat(hp_ds_state *s, uint64_t min_heat);
/* Held windows of one length with count >= min_freq (for tests and tools). */
size_t hp_ds_windows(const hp_ds_state *s, uint32_t window);

/* dst += src (both processed traces; pending references of src are not merged). Same
 * configuration required (min_heat and trace_cap may differ); -1 otherwise or if dst == src. */
int hp_ds_merge(hp_ds_state *dst, const hp_ds_state *src);

size_t hp_ds_serialized_size(const hp_ds_state *s);
/* Bytes written, 0 if cap is too small. The buffered trace is not written. */
size_t hp_ds_serialize(const hp_ds_state *s, void *buf, size_t cap);
/* The configuration a serialized state was made with (0), so a reader can size the memory
 * hp_ds_deserialize needs (hp_ds_bytes_for); -1 if the header is short, foreign or unusable. */
int hp_ds_peek_config(const void *buf, size_t len, hp_ds_config *out);
/* Rebuilds into mem[0..budget); NULL if buf is corrupt or does not fit. */
hp_ds_state *hp_ds_deserialize(void *mem, size_t budget, const void *buf, size_t len);

#endif

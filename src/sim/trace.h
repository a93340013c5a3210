/* trace.h — the event-trace file of `hotprof run --record-trace` (docs/trace.md): encoder and
 * decoder. A trace is one profile type's tuples per thread, in event order (paper §3 names them):
 *   values  <pc, value>        compare operands and loaded values
 *   edges   <branch pc, target> consecutive blocks of one thread
 *   calls   <fn, call site> for a function entry, <fn, 0> for a loop back-edge in fn (HPS stream)
 * Layout: header (magic, version, kind, flags, thread count, events, limit, program, CRC), then
 * zstd-compressed chunks of one thread's tuples each (CRC of the compressed bytes), then an end
 * record (chunk count, events, CRC). Tuples are delta + zigzag + varint coded within a chunk.
 *
 * Invariants: a decoded trace passed every check (magic, version, kind, CRCs, sizes, the end
 * record's counts match the header's): a truncated or corrupt file is refused with one message,
 * never half-read. The writer buffers compressed chunks in memory and writes the whole file at
 * hp_trace_writer_finish, so the header can carry the final counts.
 */
#ifndef HOTPROF_SIM_TRACE_H
#define HOTPROF_SIM_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HP_TRACE_MAGIC "HPTRACE\0"
#define HP_TRACE_VERSION 1u
#define HP_TRACE_CHUNK_MAGIC 0x43545048u /* "HPTC" */
#define HP_TRACE_END_MAGIC 0x45545048u   /* "HPTE" */
#define HP_TRACE_CHUNK_TUPLES 65536u     /* tuples per chunk at most */
#define HP_TRACE_PROGRAM_MAX 255u
#define HP_TRACE_MAX_THREADS 4096u

enum hp_trace_kind { HP_TRACE_VALUES = 1, HP_TRACE_EDGES = 2, HP_TRACE_CALLS = 3 };
enum hp_trace_flags {
    HP_TRACE_CUT = 1u,  /* --trace-limit reached: later events were not recorded */
    HP_TRACE_LOST = 2u, /* the runtime could not hand over some buffers (events missing) */
};

typedef struct hp_trace_tuple { uint64_t a, b; } hp_trace_tuple;

typedef struct hp_trace_thread {
    uint64_t tid;
    size_t n, cap;
    hp_trace_tuple *t;
} hp_trace_thread;

typedef struct hp_trace {
    uint32_t kind, flags;
    uint64_t events, limit;
    char program[HP_TRACE_PROGRAM_MAX + 1];
    size_t nthreads;
    hp_trace_thread *threads;
} hp_trace;

/* "values", "edges", "calls"; NULL for an unknown kind. */
const char *hp_trace_kind_name(uint32_t kind);
/* The kind a name stands for, or 0. */
uint32_t hp_trace_kind_parse(const char *name);

/* ---- writing ---- */
typedef struct hp_trace_writer hp_trace_writer;
/* NULL on allocation failure. program is cut to HP_TRACE_PROGRAM_MAX bytes. */
hp_trace_writer *hp_trace_writer_new(uint32_t kind, const char *program, uint64_t limit);
/* Appends tuples of thread tid (in its event order). 0, or -1 with a message in err. */
int hp_trace_writer_add(hp_trace_writer *w, uint64_t tid, const hp_trace_tuple *t, size_t n, char *err, size_t errlen);
void hp_trace_writer_flag(hp_trace_writer *w, uint32_t flags);
/* Writes the whole trace to f. 0, or -1 with a message in err. Frees nothing. */
int hp_trace_writer_finish(hp_trace_writer *w, FILE *f, char *err, size_t errlen);
void hp_trace_writer_free(hp_trace_writer *w);

/* ---- reading ---- */
/* Decodes a whole trace file held in memory. 0, or -1 with one message in err (out is empty). */
int hp_trace_decode(const void *buf, size_t len, hp_trace *out, char *err, size_t errlen);
/* Reads and decodes path. 0, or -1 with one message in err naming the file. */
int hp_trace_read_file(const char *path, hp_trace *out, char *err, size_t errlen);
void hp_trace_free(hp_trace *t);

/* Delta/zigzag/varint coding of one chunk's tuples (exposed for tests). encode returns the bytes
 * written into out (cap >= n * 20 always suffices); decode returns 0, or -1 if the bytes do not
 * hold exactly n tuples. */
size_t hp_trace_pack(const hp_trace_tuple *t, size_t n, uint8_t *out);
int hp_trace_unpack(const uint8_t *in, size_t len, hp_trace_tuple *t, size_t n);

#endif

/* live.h — the layout of the live segment a profiled process publishes for `hotprof top`
 * (runtime/live.c writes it, analysis/live.c reads it; docs/runtime.md, "The live segment"), and
 * its seqlock.
 *
 * The segment is the file /dev/shm/hotprof.<pid> (mode 0600: the same user only), one
 * hp_live_segment, native byte order (it never leaves the machine). Everything after `seq` is
 * written by the process's publisher thread under the seqlock: seq odd while it writes, even and
 * advanced by 2 once a refresh is complete. A reader copies the segment and keeps the copy only
 * if seq was even and unchanged around the copy (hp_live_read_begin / hp_live_read_valid).
 * The one word a reader writes is `want_until_ns`: a CLOCK_MONOTONIC time (system-wide) until
 * which the publisher refreshes (every 250 ms); the publisher writes nothing while nobody wants.
 *
 * Invariants: magic and version first, pid, program and the type slots' ptype ids set before the
 * segment is linked into /dev/shm under its name; nrows <= HP_LIVE_K; modules_len <=
 * HP_LIVE_MODULES_BYTES (the MODULES section payload, core/format/format.h encoding).
 * Pure: types and inline functions over the caller's memory.
 */
#ifndef HOTPROF_CORE_FORMAT_LIVE_H
#define HOTPROF_CORE_FORMAT_LIVE_H
#include <stdint.h>

#define HP_LIVE_MAGIC 0x45564c49464f5250ull /* "PROFILVE" little-endian */
#define HP_LIVE_VERSION 1u
#define HP_LIVE_K 64                      /* rows per type */
#define HP_LIVE_TYPES 8                   /* type slots (core/ptype ids below this) */
#define HP_LIVE_ROW_PCS 16                /* = HP_LIVE_PCS of runtime/pt/pt.h */
#define HP_LIVE_MODULES_BYTES (64u * 1024u)
#define HP_LIVE_PROGRAM_BYTES 4096u
#define HP_LIVE_NAME_PREFIX "/dev/shm/hotprof."
#define HP_LIVE_REFRESH_NS 250000000ull   /* publisher period while wanted */
#define HP_LIVE_WANT_NS 3000000000ull     /* a reader's ask lasts this long */

/* One row: as runtime/pt/pt.h's hp_live_row. */
typedef struct hp_live_shm_row {
    uint64_t key, key2;
    double value;
    uint32_t npcs, pad;
    uint64_t pcs[HP_LIVE_ROW_PCS];
} hp_live_shm_row;

/* One profile type's top list: ptype 0xffffffff marks an unused slot; live = 0 when the type
 * has no live view in this process (it then has no rows). */
typedef struct hp_live_table {
    uint32_t ptype, live, nrows, pad;
    hp_live_shm_row rows[HP_LIVE_K];
} hp_live_table;

typedef struct hp_live_segment {
    uint64_t magic;
    uint32_t version, segment_bytes; /* sizeof(hp_live_segment) */
    uint64_t pid;
    uint64_t want_until_ns;          /* written by readers (relaxed), read by the publisher */
    uint64_t seq;                    /* the seqlock word */
    /* ---- under the seqlock */
    uint64_t refreshed_ns;           /* CLOCK_MONOTONIC of the last refresh (0: none yet) */
    uint64_t refreshes;              /* completed refreshes */
    char mode[16];                   /* exhaustive | bursty | patch | xray */
    char program[HP_LIVE_PROGRAM_BYTES]; /* the executable's path, NUL-terminated */
    uint32_t ntypes, modules_len;
    hp_live_table types[HP_LIVE_TYPES];
    uint8_t modules[HP_LIVE_MODULES_BYTES];
} hp_live_segment;

/* Writer: a refresh in between; the segment's words in between are plain stores. */
static inline void hp_live_write_begin(hp_live_segment *s)
{
    __atomic_store_n(&s->seq, __atomic_load_n(&s->seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
static inline void hp_live_write_end(hp_live_segment *s)
{
    __atomic_store_n(&s->seq, __atomic_load_n(&s->seq, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

/* Reader: the seq to pass to hp_live_read_valid (odd: a write is under way, retry). */
static inline uint64_t hp_live_read_begin(const hp_live_segment *s)
{
    return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
}
/* 1 if a copy made after hp_live_read_begin returned seq is whole. */
static inline int hp_live_read_valid(const hp_live_segment *s, uint64_t seq)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return !(seq & 1) && __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq;
}

/* A reader's ask: refresh until now_ns + HP_LIVE_WANT_NS. */
static inline void hp_live_want(hp_live_segment *s, uint64_t now_ns)
{
    __atomic_store_n(&s->want_until_ns, now_ns + HP_LIVE_WANT_NS, __ATOMIC_RELAXED);
}

/* 1 if the header identifies a segment of this layout. */
static inline int hp_live_header_ok(const hp_live_segment *s)
{
    return s->magic == HP_LIVE_MAGIC && s->version == HP_LIVE_VERSION && s->segment_bytes == sizeof(hp_live_segment);
}

#endif

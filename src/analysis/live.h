/* live.h — reading a running program's live segment (core/format/live.h, published by the
 * runtime's live.c) for `hotprof top`: attach by pid, take consistent snapshots without stopping
 * the program, name its rows with the symbolizer over the segment's module list.
 *
 * Attach answers one of hp_live_status; its message (for the user, one line) says which. A
 * segment whose process is gone is stale: attach and the close of a reader whose process died
 * unlink it. The reader maps the segment read-write only to bump want_until_ns (the publisher
 * refreshes while asked), and writes nothing else.
 *
 * Invariants: a snapshot is a whole copy taken between two equal even seqlock words; row counts
 * are clamped to HP_LIVE_K and the module length to HP_LIVE_MODULES_BYTES whatever the segment
 * says, so a corrupt segment cannot make the reader read out of bounds.
 */
#ifndef HOTPROF_ANALYSIS_LIVE_H
#define HOTPROF_ANALYSIS_LIVE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/symbolize.h"
#include "core/format/live.h"

typedef enum hp_live_status {
    HP_LIVE_OK = 0,
    HP_LIVE_NO_PROCESS,  /* no such process (or it has exited) */
    HP_LIVE_NOT_HOTPROF, /* alive, but publishes no segment (not built with hotprof, or HOTPROF_LIVE=0) */
    HP_LIVE_NOT_YOURS,   /* the segment or the process belongs to another user */
    HP_LIVE_BAD,         /* the segment is not one this hotprof reads (version, size), or no memory */
} hp_live_status;

typedef struct hp_live_reader hp_live_reader;

/* Attaches to pid's segment: HP_LIVE_OK with *out set, or another status with msg filled. */
hp_live_status hp_live_attach(uint64_t pid, hp_live_reader **out, char *msg, size_t len);
/* Detaches; unlinks the segment if its process is gone. */
void hp_live_close(hp_live_reader *r);
/* Asks the publisher to refresh for the next few seconds (the reader's "want" word). */
void hp_live_ask(hp_live_reader *r);
/* After the process exec'd a new hotprof image (its name now holds another segment): moves the
 * reader to the new segment and returns 1; else 0 (nothing changed). */
int hp_live_follow_exec(hp_live_reader *r);
/* A consistent copy of the segment into snap: 1 if it holds a refresh, 0 if the program has not
 * refreshed yet or no consistent copy could be taken now (snap is then not to be used). *gone = 1
 * when the process no longer exists (a copy taken then is its last state). */
int hp_live_snapshot(hp_live_reader *r, hp_live_segment *snap, int *gone);
/* 1 while pid exists (signal 0 or EPERM). */
int hp_live_pid_alive(uint64_t pid);

/* Names for a snapshot's rows: a symbolizer over its modules, rebuilt when they change. */
typedef struct hp_live_names hp_live_names;
hp_live_names *hp_live_names_new(void);
void hp_live_names_free(hp_live_names *n);
/* Row i of table t of snap as text (the type's live_text hook, else pcs as a path, else keys). */
void hp_live_row_text(hp_live_names *n, const hp_live_segment *snap, const hp_live_table *t, size_t i,
                      char *buf, size_t len);

/* The core type name of a table ("methods"), or "?" for an unknown id. */
const char *hp_live_type_name(const hp_live_table *t);
/* Index of the table of type name (a registry name or synonym) in snap, or -1. */
int hp_live_table_named(const hp_live_segment *snap, const char *name);

#endif

/* run_trace.h — `hotprof run --record-trace FILE`: the CLI half of trace recording. Before the
 * program starts, the settings go to its runtime through HOTPROF_TRACE (a raw file beside FILE),
 * HOTPROF_TRACE_KIND and HOTPROF_TRACE_LIMIT (runtime/pt/trace.h); after it ends, the raw
 * records are compressed into FILE (sim/trace.h, docs/trace.md) and the raw file is removed.
 * Invariants: FILE appears whole or not at all (outfile.h); a trace whose program did not write
 * the end record (killed, exec'd) is still written but flagged lost, and said so.
 */
#ifndef HOTPROF_CLI_RUN_TRACE_H
#define HOTPROF_CLI_RUN_TRACE_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_run_trace {
    const char *file;       /* --record-trace FILE, NULL if not tracing */
    const char *kind;       /* --trace-kind, NULL: edges if blocks are compiled in, else calls */
    uint64_t limit;         /* --trace-limit */
    char raw[4200];         /* the raw file the runtime appends to */
} hp_run_trace;

#define HP_RUN_TRACE_DEFAULT_LIMIT 100000000ull

/* Checks the options and sets the environment. 0, or -1 after one message (usage: *usage = 1). */
int hp_run_trace_prepare(hp_run_trace *rt, int *usage);
/* After the program: writes FILE from the raw records. 0, or -1 after one message. */
int hp_run_trace_finish(hp_run_trace *rt, const char *program, int quiet);

#endif

/* top.h — the state of one `hotprof top` session, shared by cmd_top.c (options, starting or
 * attaching, the --stdio loop) and top_screen.c (the ncurses view, the only curses user).
 *
 * Invariants: snap holds the last whole snapshot that carried a refresh (have = 1), and is never
 * replaced by a torn or empty copy; type_name is always a core type name (the row table shown is
 * the snapshot's table of that type, or none when the program has no live view of it); once
 * exited is set it stays set and status_text says how the program ended.
 */
#ifndef HOTPROF_CLI_TOP_H
#define HOTPROF_CLI_TOP_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/live.h"

typedef struct hp_top {
    hp_live_reader *reader;
    hp_live_names *names;
    hp_live_segment *snap, *tmp; /* the last good snapshot; scratch for the next */
    int have;                    /* snap holds a refresh */
    uint64_t pid;
    int child;                   /* the program we started (0: attached with -p) */
    const char *type_name;       /* the type shown */
    double delay;                /* seconds between refreshes of the view */
    uint64_t iterations;         /* refreshes of the view before top quits (0: no limit) */
    int exited;                  /* the program is gone */
    char status_text[96];        /* "program exited (status N)" once exited */
    volatile int *quit;          /* set by SIGINT, SIGTERM, SIGHUP */
} hp_top;

/* Asks for data, takes a snapshot and notices the program's end. 1 if the view has new data. */
int hp_top_poll(hp_top *t);
/* Waits the delay (asking the program to keep refreshing), returning early on quit or exit.
 * key_wait, if not NULL, waits up to ms for a key (curses) and returns it, or -1. */
int hp_top_wait(hp_top *t, int (*key_wait)(int ms));
/* The table of the type shown in snap, or NULL (no live view of it, or no data yet). */
const hp_live_table *hp_top_table(const hp_top *t);
/* Row i of the shown table as "RANK VALUE NAME" text. */
void hp_top_row(hp_top *t, size_t i, char *buf, size_t len);
/* The next type with a live view in the program, after the one shown (t key). */
void hp_top_next_type(hp_top *t);
/* The curses view until q (or a quit signal): 0, or 1 if the terminal cannot be used. */
int hp_top_screen(hp_top *t);

#endif

/* top.c — one `hotprof top` session's polling and rows (top.h): snapshots of the live segment,
 * the program's end, the table of the type shown, its rows as text. No terminal I/O here.
 */
#define _GNU_SOURCE
#include "cli/top.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* Our child's end (waitpid, no hang): 1 and status_text set once it has ended. */
static int child_ended(hp_top *t)
{
    int status;
    if (!t->child || waitpid(t->child, &status, WNOHANG) != t->child) return 0;
    if (WIFSIGNALED(status))
        snprintf(t->status_text, sizeof t->status_text, "program exited (killed by signal %d)", WTERMSIG(status));
    else
        snprintf(t->status_text, sizeof t->status_text, "program exited (status %d)", WEXITSTATUS(status));
    t->child = 0;
    return 1;
}

static void note_exit(hp_top *t)
{
    if (t->exited) return;
    if (!child_ended(t) && !t->status_text[0]) snprintf(t->status_text, sizeof t->status_text, "program exited");
    t->exited = 1;
}

int hp_top_poll(hp_top *t)
{
    if (t->exited) return 0;
    if (child_ended(t)) t->exited = 1;
    int gone;
    hp_live_follow_exec(t->reader);
    hp_live_ask(t->reader);
    int rc = hp_live_snapshot(t->reader, t->tmp, &gone);
    if (rc == 1) {
        hp_live_segment *s = t->snap;
        t->snap = t->tmp, t->tmp = s, t->have = 1;
    }
    if (gone || t->exited) note_exit(t);
    return rc == 1;
}

int hp_top_wait(hp_top *t, int (*key_wait)(int ms))
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (*t->quit) return -1;
        if (!t->exited) hp_live_ask(t->reader);
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
        if (waited >= t->delay) return -1;
        int ms = (int)((t->delay - waited) * 1000) + 1;
        if (ms > 50) ms = 50;
        if (key_wait) {
            int key = key_wait(ms);
            if (key >= 0) return key;
        } else {
            struct timespec step = {0, (long)ms * 1000000L};
            nanosleep(&step, NULL);
        }
        if (!t->exited && t->child && child_ended(t)) return -1; /* shown at once */
    }
}

const hp_live_table *hp_top_table(const hp_top *t)
{
    if (!t->have) return NULL;
    int i = hp_live_table_named(t->snap, t->type_name);
    return i >= 0 && t->snap->types[i].live ? &t->snap->types[i] : NULL;
}

void hp_top_row(hp_top *t, size_t i, char *buf, size_t len)
{
    const hp_live_table *tab = hp_top_table(t);
    char name[2048];
    if (!tab || i >= tab->nrows) {
        buf[0] = 0;
        return;
    }
    hp_live_row_text(t->names, t->snap, tab, i, name, sizeof name);
    snprintf(buf, len, "%4zu %14.0f  %s", i + 1, tab->rows[i].value, name);
}

void hp_top_next_type(hp_top *t)
{
    if (!t->have) return;
    int n = (int)t->snap->ntypes, at = hp_live_table_named(t->snap, t->type_name);
    for (int k = 1; k <= n; k++) {
        const hp_live_table *tab = &t->snap->types[(at + k + n) % n];
        if (tab->live) {
            t->type_name = hp_live_type_name(tab);
            return;
        }
    }
}

/* top_screen.c — the ncurses view of `hotprof top` (the only file that uses curses): a title
 * line, a status line, the column heading and the rows of the type shown, redrawn every delay
 * and on each key. Keys: q quits, t shows the next type with a live view, Up/Down scroll by a
 * row, PgUp/PgDn by a page, Home goes back to the top. The program never writes on this
 * terminal (cmd_top.c sends its output elsewhere); endwin restores the terminal on every way out
 * (q, SIGINT, SIGTERM, SIGHUP, the end of a -n count). Names are drawn in the locale's
 * encoding: "→" stays in a UTF-8 locale (ncursesw) and becomes "->" in any other.
 */
#define _GNU_SOURCE
#include "cli/top.h"
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int key_wait(int ms)
{
    timeout(ms);
    int c = getch();
    return c == ERR ? -1 : c;
}

static void draw_title(const hp_top *t)
{
    const hp_live_segment *s = t->snap;
    const char *prog = t->have ? s->program : "";
    const char *slash = strrchr(prog, '/');
    mvprintw(0, 0, "hotprof top  pid %llu  %s  mode %s  type %s", (unsigned long long)t->pid, slash ? slash + 1 : prog,
             t->have ? s->mode : "?", t->type_name);
    clrtoeol();
}

static void draw_status(const hp_top *t, size_t nrows)
{
    char when[32] = "";
    time_t now = time(NULL);
    strftime(when, sizeof when, "%H:%M:%S", localtime(&now));
    if (t->exited) mvprintw(1, 0, "%s  (q quits)", t->status_text);
    else if (!t->have) mvprintw(1, 0, "%s  waiting for the program's first refresh...", when);
    else mvprintw(1, 0, "%s  %zu rows  (t: next type, arrows/PgUp/PgDn: scroll, q: quit)", when, nrows);
    clrtoeol();
    attron(A_REVERSE);
    mvprintw(2, 0, "%4s %14s  %-*s", "RANK", "VALUE", COLS > 22 ? COLS - 21 : 1, "NAME");
    attroff(A_REVERSE);
}

static int g_utf8; /* the terminal's locale is UTF-8: "→" is drawn as it is, else as "->" */

/* line with each "→" written "->" (same length or shorter), for a terminal that is not UTF-8. */
static void ascii_arrows(char *line)
{
    char *w = line;
    for (const char *r = line; *r;) {
        if (strncmp(r, "→", strlen("→")) == 0) *w++ = '-', *w++ = '>', r += strlen("→");
        else *w++ = *r++;
    }
    *w = 0;
}

/* The rows from *scroll (clamped to what there is). */
static void draw_rows(hp_top *t, int *scroll)
{
    const hp_live_table *tab = hp_top_table(t);
    int n = tab ? (int)tab->nrows : 0, room = LINES - 3;
    if (*scroll > n - room) *scroll = n - room;
    if (*scroll < 0) *scroll = 0;
    char line[4096];
    for (int y = 0; y < room; y++) {
        move(3 + y, 0);
        clrtoeol();
        if (*scroll + y >= n) continue;
        hp_top_row(t, (size_t)(*scroll + y), line, sizeof line);
        if (!g_utf8) ascii_arrows(line);
        addnstr(line, COLS > 0 ? COLS : 1);
    }
    if (t->have && !tab && room > 0) mvprintw(3, 0, "(this program has no live view of %s; t: next type)", t->type_name);
}

static void draw(hp_top *t, int *scroll)
{
    const hp_live_table *tab = hp_top_table(t);
    draw_title(t);
    draw_status(t, tab ? tab->nrows : 0);
    draw_rows(t, scroll);
    refresh();
}

/* A key's effect on the view; 1 if it quits. */
static int on_key(hp_top *t, int key, int *scroll)
{
    int page = LINES > 4 ? LINES - 4 : 1;
    switch (key) {
    case 'q': case 'Q': return 1;
    case 't': case 'T': hp_top_next_type(t), *scroll = 0; break;
    case KEY_UP: (*scroll)--; break;
    case KEY_DOWN: (*scroll)++; break;
    case KEY_PPAGE: *scroll -= page; break;
    case KEY_NPAGE: *scroll += page; break;
    case KEY_HOME: *scroll = 0; break;
    default: break;
    }
    return 0;
}

int hp_top_screen(hp_top *t)
{
    setlocale(LC_ALL, "");
    g_utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) return 1;
    set_term(scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    int scroll = 0, quit = 0;
    uint64_t polls = 0;
    hp_top_poll(t);
    draw(t, &scroll);
    while (!quit && !*t->quit) {
        int key = hp_top_wait(t, key_wait);
        if (key >= 0) quit = on_key(t, key, &scroll);
        else hp_top_poll(t), polls++;
        if (t->iterations && polls >= t->iterations) quit = 1;
        if (!quit) draw(t, &scroll);
    }
    endwin();
    delscreen(scr);
    return 0;
}

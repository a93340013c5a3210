/* live.c — the reader of a program's live segment (live.h): attach, snapshot, row names.
 * The names of a row come from its type's live_text hook (ptype/aptype.h: the loop over the
 * registered types), else from the generic text below, so no type is named here.
 */
#define _GNU_SOURCE
#include "analysis/live.h"
#include "analysis/ptype/aptype.h"
#include "core/base/bytes.h"
#include "core/format/format.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct hp_live_reader {
    hp_live_segment *seg; /* mapped read-write (only want_until_ns is written) */
    uint64_t pid;
    char path[64];
    dev_t dev;            /* the segment file mapped: a new image of the pid (exec) makes another */
    ino_t ino;
};

int hp_live_pid_alive(uint64_t pid)
{
    return pid > 0 && pid <= INT32_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static hp_live_status say(hp_live_status st, char *msg, size_t len, const char *fmt, uint64_t pid)
{
    snprintf(msg, len, fmt, (unsigned long long)pid, (unsigned long long)pid);
    return st;
}

/* Why pid has no usable segment at path (open failed with err). */
static hp_live_status open_failed(uint64_t pid, const char *path, int err, char *msg, size_t len)
{
    if (err == EACCES || err == EPERM)
        return say(HP_LIVE_NOT_YOURS, msg, len, "process %llu belongs to another user (its live segment cannot be read)", pid);
    if (!hp_live_pid_alive(pid)) {
        if (err != ENOENT) unlink(path);
        return say(HP_LIVE_NO_PROCESS, msg, len, "no process %llu (it does not exist or has exited)", pid);
    }
    if (kill((pid_t)pid, 0) != 0 && errno == EPERM)
        return say(HP_LIVE_NOT_YOURS, msg, len, "process %llu belongs to another user", pid);
    return say(HP_LIVE_NOT_HOTPROF, msg, len,
               "process %llu is not a hotprof program (no live segment /dev/shm/hotprof.%llu: not built with "
               "'hotprof cc', not recording, or HOTPROF_LIVE=0)", pid);
}

/* Checks the mapped segment; HP_LIVE_OK or a status with msg. */
static hp_live_status check_segment(const hp_live_segment *s, uint64_t pid, const char *path, char *msg, size_t len)
{
    if (!hp_live_header_ok(s) || s->pid != pid)
        return say(HP_LIVE_BAD, msg, len, "process %llu: /dev/shm/hotprof.%llu is not a live segment this hotprof reads", pid);
    if (!hp_live_pid_alive(pid)) {
        unlink(path);
        return say(HP_LIVE_NO_PROCESS, msg, len, "process %llu has exited (its stale live segment was removed)", pid);
    }
    return HP_LIVE_OK;
}

hp_live_status hp_live_attach(uint64_t pid, hp_live_reader **out, char *msg, size_t len)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, HP_LIVE_NAME_PREFIX "%llu", (unsigned long long)pid);
    *out = NULL;
    if (pid == 0 || pid > INT32_MAX) return say(HP_LIVE_NO_PROCESS, msg, len, "no process %llu", pid);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return open_failed(pid, path, errno, msg, len);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return say(HP_LIVE_NOT_YOURS, msg, len, "process %llu: /dev/shm/hotprof.%llu is not a private segment of yours", pid);
    }
    if ((size_t)st.st_size < sizeof(hp_live_segment)) {
        close(fd);
        return say(HP_LIVE_BAD, msg, len, "process %llu: /dev/shm/hotprof.%llu is too short to be a live segment", pid);
    }
    void *m = mmap(NULL, sizeof(hp_live_segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return say(HP_LIVE_BAD, msg, len, "process %llu: cannot map its live segment", pid);
    hp_live_status rc = check_segment(m, pid, path, msg, len);
    hp_live_reader *r = rc == HP_LIVE_OK ? calloc(1, sizeof *r) : NULL;
    if (!r) {
        munmap(m, sizeof(hp_live_segment));
        return rc == HP_LIVE_OK ? say(HP_LIVE_BAD, msg, len, "process %llu: out of memory", pid) : rc;
    }
    *r = (hp_live_reader){m, pid, "", st.st_dev, st.st_ino};
    memcpy(r->path, path, sizeof r->path);
    *out = r;
    return HP_LIVE_OK;
}

void hp_live_close(hp_live_reader *r)
{
    if (!r) return;
    munmap(r->seg, sizeof(hp_live_segment));
    if (!hp_live_pid_alive(r->pid)) unlink(r->path); /* stale: the program died without its exit */
    free(r);
}

void hp_live_ask(hp_live_reader *r) { hp_live_want(r->seg, now_ns()); }

int hp_live_follow_exec(hp_live_reader *r)
{
    struct stat st;
    hp_live_reader *fresh;
    char msg[256];
    if (stat(r->path, &st) != 0 || (st.st_dev == r->dev && st.st_ino == r->ino)) return 0;
    if (hp_live_attach(r->pid, &fresh, msg, sizeof msg) != HP_LIVE_OK) return 0;
    munmap(r->seg, sizeof(hp_live_segment));
    *r = *fresh;
    free(fresh);
    return 1;
}

/* Clamps what a (possibly corrupt) copy says its sizes are. */
static void clamp(hp_live_segment *s)
{
    if (s->ntypes > HP_LIVE_TYPES) s->ntypes = HP_LIVE_TYPES;
    if (s->modules_len > HP_LIVE_MODULES_BYTES) s->modules_len = HP_LIVE_MODULES_BYTES;
    for (int i = 0; i < HP_LIVE_TYPES; i++) {
        hp_live_table *t = &s->types[i];
        if (t->nrows > HP_LIVE_K) t->nrows = HP_LIVE_K;
        for (uint32_t j = 0; j < t->nrows; j++)
            if (t->rows[j].npcs > HP_LIVE_ROW_PCS) t->rows[j].npcs = HP_LIVE_ROW_PCS;
    }
    s->program[sizeof s->program - 1] = 0;
    s->mode[sizeof s->mode - 1] = 0;
}

int hp_live_snapshot(hp_live_reader *r, hp_live_segment *snap, int *gone)
{
    *gone = 0;
    for (int tries = 0; tries < 100; tries++) {
        uint64_t seq = hp_live_read_begin(r->seg);
        if (seq & 1) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            continue;
        }
        memcpy(snap, r->seg, sizeof *snap);
        if (!hp_live_read_valid(r->seg, seq)) continue;
        clamp(snap);
        *gone = !hp_live_pid_alive(r->pid);
        return snap->refreshes > 0;
    }
    *gone = !hp_live_pid_alive(r->pid);
    return 0;
}

/* ---------------------------------------------------------------- names */

struct hp_live_names {
    uint8_t modules[HP_LIVE_MODULES_BYTES];
    uint32_t modules_len;
    hp_module *mods;
    size_t nmods;
    hp_symbolizer *sym;
};

hp_live_names *hp_live_names_new(void) { return calloc(1, sizeof(hp_live_names)); }

static void drop_modules(hp_live_names *n)
{
    if (n->sym) hp_sym_close(n->sym);
    for (size_t i = 0; i < n->nmods; i++) free(n->mods[i].path), free(n->mods[i].buildid);
    free(n->mods);
    n->sym = NULL, n->mods = NULL, n->nmods = 0, n->modules_len = 0;
}

void hp_live_names_free(hp_live_names *n)
{
    if (!n) return;
    drop_modules(n);
    free(n);
}

/* One module record of the MODULES payload (format.h) at b into m; 0 at the end or if malformed. */
static int next_module(hp_rbuf *b, hp_module *m)
{
    if (hp_rbuf_left(b) == 0) return 0;
    m->base = hp_get_u64(b), m->lo = hp_get_u64(b), m->hi = hp_get_u64(b);
    uint32_t plen = hp_get_u32(b), ilen = hp_get_u32(b);
    const uint8_t *path = b->ok ? hp_get_bytes(b, plen) : NULL;
    const uint8_t *id = b->ok ? hp_get_bytes(b, ilen) : NULL;
    if (!b->ok || !path || (ilen && !id)) return 0;
    m->path = strndup((const char *)path, plen);
    m->buildid = malloc(ilen ? ilen : 1);
    m->buildid_len = ilen;
    if (!m->path || !m->buildid) return free(m->path), free(m->buildid), 0;
    if (ilen) memcpy(m->buildid, id, ilen);
    return 1;
}

/* The symbolizer over snap's modules (reopened when they changed). */
static hp_symbolizer *names_sym(hp_live_names *n, const hp_live_segment *snap)
{
    if (n->sym && snap->modules_len == n->modules_len && memcmp(snap->modules, n->modules, n->modules_len) == 0)
        return n->sym;
    drop_modules(n);
    memcpy(n->modules, snap->modules, snap->modules_len);
    n->modules_len = snap->modules_len;
    hp_rbuf b = hp_rbuf_make(n->modules, n->modules_len);
    hp_module m;
    size_t cap = 0;
    while (next_module(&b, &m)) {
        if (n->nmods == cap) {
            hp_module *g = realloc(n->mods, (cap = cap ? 2 * cap : 8) * sizeof *g);
            if (!g) { free(m.path), free(m.buildid); break; }
            n->mods = g;
        }
        n->mods[n->nmods++] = m;
    }
    n->sym = hp_sym_open(n->mods, n->nmods);
    return n->sym;
}

/* A sequence of pcs as `function file:line → file:line → …` (one line's blocks collapsed; the
 * function named again where it changes). */
static void path_text(hp_symbolizer *s, const hp_live_shm_row *r, char *buf, size_t len)
{
    char last_where[512] = "", where[512], fn[512], last_fn[512] = "";
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < r->npcs && at + 1 < len; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, r->pcs[i]);
        hp_sym_where(sym, where, sizeof where);
        hp_sym_name(sym, fn, sizeof fn);
        if (i && strcmp(where, last_where) == 0 && strcmp(fn, last_fn) == 0) continue;
        int newfn = strcmp(fn, last_fn) != 0;
        int k = snprintf(buf + at, len - at, "%s%s%s%s", i ? " → " : "", newfn ? fn : "", newfn && where[0] ? " " : "",
                         where[0] ? where : (newfn ? "" : fn));
        if (k < 0) break;
        at += (size_t)k < len - at ? (size_t)k : len - at - 1;
        memcpy(last_where, where, sizeof where), memcpy(last_fn, fn, sizeof fn);
    }
}

void hp_live_row_text(hp_live_names *n, const hp_live_segment *snap, const hp_live_table *t, size_t i,
                      char *buf, size_t len)
{
    const hp_live_shm_row *r = &t->rows[i];
    hp_symbolizer *s = names_sym(n, snap);
    const hp_aptype *a = t->ptype < HP_PT_COUNT ? hp_aptypes[t->ptype] : NULL;
    if (s && a && a->live_text) a->live_text(buf, len, r, s);
    else if (s && r->npcs) path_text(s, r, buf, len);
    else snprintf(buf, len, "key 0x%llx 0x%llx", (unsigned long long)r->key, (unsigned long long)r->key2);
}

const char *hp_live_type_name(const hp_live_table *t)
{
    return t->ptype < HP_PT_COUNT && hp_ptypes[t->ptype] ? hp_ptypes[t->ptype]->name : "?";
}

int hp_live_table_named(const hp_live_segment *snap, const char *name)
{
    const hp_ptype *p = hp_ptype_by_name(name, strlen(name));
    for (uint32_t i = 0; p && i < snap->ntypes; i++)
        if (snap->types[i].ptype == (uint32_t)p->id) return (int)i;
    return -1;
}

/* live.c — the publisher of the live segment (live.h; layout core/format/live.h).
 *
 * The publisher thread wakes every HP_LIVE_REFRESH_NS; when a reader's want_until_ns lies in the
 * future, it asks every runtime profile type with a live_rows hook (pt/pt.h) for its top
 * HP_LIVE_K rows into private memory, then copies them, the module list (modules.h) and the time
 * into the segment under the seqlock (a short copy: readers retry rarely). When no reader asks it
 * writes nothing. Before creating its segment, a process removes the segments (and temporary
 * ".new" names) that dead processes of its user left in /dev/shm (killed by SIGKILL: no exit ran). It blocks every signal, opens no file (the segment's fd is closed after mmap)
 * and never touches the program's stdio.
 *
 * State (file-static, this file's own): the mapped segment, its path, the private row buffer, the
 * publisher's generation (a fork child's new publisher has its own segment; a stale thread of
 * the parent does not exist in the child).
 * Async-signal-safety: hp_live_stop (unlink) only.
 */
#define _GNU_SOURCE
#include "runtime/live.h"
#include "runtime/base.h"
#include "runtime/modules.h"
#include "runtime/pt/pt.h"
#include "core/format/live.h"
#include "core/format/info_keys.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(hp_live_row) == sizeof(hp_live_shm_row), "live row layout");
_Static_assert(HP_LIVE_PCS == HP_LIVE_ROW_PCS, "live row pcs");

static hp_live_segment *g_seg;                 /* the mapped segment, NULL: none */
static char g_seg_path[64];                    /* its name, "" when none */
static hp_live_row (*g_rows)[HP_LIVE_K];       /* private rows, HP_LIVE_TYPES lists */

static HP_NOINST void seg_path(char *out, uint64_t pid, const char *suffix)
{
    size_t n = strlen(HP_LIVE_NAME_PREFIX);
    memcpy(out, HP_LIVE_NAME_PREFIX, n);
    n += hp_fmt_u64(out + n, pid);
    memcpy(out + n, suffix, strlen(suffix) + 1);
}

static HP_NOINST const char *mode_name(void)
{
    if (hp_g.xray == HP_XRAY_BURSTS) return HP_MODE_XRAY;
    return hp_g.patch ? HP_MODE_PATCH : hp_g.bursty ? HP_MODE_BURSTY : HP_MODE_EXHAUSTIVE;
}

/* The header and the type slots, before the segment has its name. */
static HP_NOINST void fill_header(hp_live_segment *s, uint64_t pid)
{
    s->magic = HP_LIVE_MAGIC;
    s->version = HP_LIVE_VERSION;
    s->segment_bytes = (uint32_t)sizeof *s;
    s->pid = pid;
    strncpy(s->mode, mode_name(), sizeof s->mode - 1);
    hp_main_exe_path(s->program, sizeof s->program);
    for (int i = 0; i < HP_LIVE_TYPES; i++) s->types[i].ptype = 0xffffffffu;
    for (int i = 0; hp_rt_ptypes[i] && i < HP_LIVE_TYPES; i++) {
        s->types[i].ptype = (uint32_t)hp_rt_ptypes[i]->ptype;
        s->types[i].live = hp_rt_ptypes[i]->live_rows != NULL;
        s->ntypes = (uint32_t)i + 1;
    }
}

/* Opens path as a new file (a stale one is removed first, once). */
static HP_NOINST int create_excl(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == EEXIST && unlink(path) == 0)
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    return fd;
}

/* The segment mapped and named; 0, or -1 with nothing left behind. */
static HP_NOINST int create_segment(uint64_t pid)
{
    char tmp[64];
    seg_path(tmp, pid, ".new");
    seg_path(g_seg_path, pid, "");
    int fd = create_excl(tmp);
    if (fd < 0) return g_seg_path[0] = 0, -1;
    void *m = ftruncate(fd, sizeof(hp_live_segment)) == 0
                  ? mmap(NULL, sizeof(hp_live_segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (m != MAP_FAILED) fill_header(m, pid);
    if (m == MAP_FAILED || rename(tmp, g_seg_path) != 0) {
        if (m != MAP_FAILED) munmap(m, sizeof(hp_live_segment));
        unlink(tmp);
        return g_seg_path[0] = 0, -1;
    }
    HP_STORE_REL(&g_seg, (hp_live_segment *)m);
    return 0;
}

/* The module payload's whole records that fit in cap bytes (format.h: 32 fixed bytes, path, id). */
static HP_NOINST size_t modules_prefix(const uint8_t *p, size_t len, size_t cap)
{
    size_t at = 0;
    while (at + 32 <= len) {
        uint32_t plen, ilen;
        memcpy(&plen, p + at + 24, 4), memcpy(&ilen, p + at + 28, 4);
        size_t next = at + 32 + (size_t)plen + ilen;
        if (next > len || next > cap) break;
        at = next;
    }
    return at;
}

/* One refresh: rows computed privately, then copied under the seqlock. */
static HP_NOINST void refresh(hp_live_segment *s)
{
    int n[HP_LIVE_TYPES] = {0};
    for (uint32_t i = 0; i < s->ntypes; i++) {
        const hp_pt *pt = hp_rt_ptypes[i];
        n[i] = pt->live_rows ? pt->live_rows(g_rows[i], HP_LIVE_K) : 0;
        if (n[i] < 0) n[i] = 0;
        if (n[i] > HP_LIVE_K) n[i] = HP_LIVE_K;
    }
    size_t mlen = 0;
    const uint8_t *mods = hp_modules_payload(&mlen);
    mlen = mods ? modules_prefix(mods, mlen, HP_LIVE_MODULES_BYTES) : 0;
    hp_live_write_begin(s);
    for (uint32_t i = 0; i < s->ntypes; i++) {
        s->types[i].nrows = (uint32_t)n[i];
        memcpy(s->types[i].rows, g_rows[i], (size_t)n[i] * sizeof(hp_live_shm_row));
    }
    memcpy(s->modules, mods, mlen);
    s->modules_len = (uint32_t)mlen;
    s->refreshed_ns = hp_now_ns();
    s->refreshes++;
    hp_live_write_end(s);
}

static HP_NOINST void *publisher(void *arg)
{
    hp_live_segment *s = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_setname_np(pthread_self(), "hotprof-live");
    struct timespec period = {0, (long)HP_LIVE_REFRESH_NS};
    while (HP_LOAD_ACQ(&g_seg) == s) {
        if (__atomic_load_n(&s->want_until_ns, __ATOMIC_RELAXED) > hp_now_ns()) refresh(s);
        nanosleep(&period, NULL);
    }
    return NULL;
}

/* The pid a segment name /dev/shm/hotprof.<pid>[.new] names, or 0 if it is no such name. */
static HP_NOINST uint64_t pid_of_name(const char *name)
{
    const char *prefix = &HP_LIVE_NAME_PREFIX[sizeof "/dev/shm/" - 1]; /* "hotprof." */
    size_t n = strlen(prefix);
    uint64_t pid = 0;
    if (strncmp(name, prefix, n) != 0) return 0;
    for (name += n; *name >= '0' && *name <= '9' && pid < (1ull << 32); name++) pid = pid * 10 + (uint64_t)(*name - '0');
    return *name == 0 || strcmp(name, ".new") == 0 ? pid : 0;
}

/* Removes the segments our user's dead processes left (killed by SIGKILL: no exit ran). */
static HP_NOINST void sweep_stale(void)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    char path[300];
    struct stat st;
    while (d && (e = readdir(d))) {
        uint64_t pid = pid_of_name(e->d_name);
        if (!pid || pid > 0x7fffffff || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        size_t n = strlen("/dev/shm/"), len = strlen(e->d_name);
        if (n + len + 1 > sizeof path) continue;
        memcpy(path, "/dev/shm/", n), memcpy(path + n, e->d_name, len + 1);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) unlink(path);
    }
    if (d) closedir(d);
}

HP_NOINST int hp_live_start(void)
{
    sweep_stale();
    if (!g_rows) g_rows = hp_map(sizeof(hp_live_row) * HP_LIVE_K * HP_LIVE_TYPES);
    if (!g_rows || create_segment((uint64_t)getpid()) != 0) return -1;
    int rc = hp_spawn_detached(publisher, g_seg);
    if (rc == 0) return 0;
    hp_live_stop();
    return -1;
}

HP_NOINST void hp_live_stop(void)
{
    if (g_seg_path[0]) unlink(g_seg_path);
    g_seg_path[0] = 0;
}

HP_NOINST void hp_live_after_fork(int profiled)
{
    hp_live_segment *parent = HP_LOAD_ACQ(&g_seg);
    g_seg_path[0] = 0; /* the parent's name: never unlinked by the child */
    HP_STORE_REL(&g_seg, NULL);
    if (parent) munmap(parent, sizeof *parent);
    if (profiled && parent) hp_live_start();
}

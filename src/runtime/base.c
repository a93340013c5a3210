/* base.c — the process state (hp_g, the only process global of the runtime) and the leaf
 * helpers of base.h: anonymous mmap, decimal/hex formatting, one-write stderr lines, the
 * monotonic clock, per-thread seeds and errno texts (hp_errno_text).
 *
 * Async-signal-safe: all of it (mmap, write, clock_gettime and memory only). hp_say formats into
 * a static line: its callers are init (single-threaded), the writer (under its lock) and the
 * control paths that print once; two concurrent hp_say calls could mix their text, never crash.
 */
#define _GNU_SOURCE
#include "runtime/base.h"
#include "core/base/hash.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

hp_process hp_g;

HP_NOINST void *hp_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

HP_NOINST size_t hp_fmt_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do tmp[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

HP_NOINST size_t hp_fmt_hex(char *out, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 2, shift = 60;
    out[0] = '0', out[1] = 'x';
    while (shift > 0 && ((v >> shift) & 15) == 0) shift -= 4;
    for (;; shift -= 4) {
        out[n++] = digits[(v >> shift) & 15];
        if (shift == 0) break;
    }
    return n;
}

HP_NOINST void hp_say(const char *const *parts, size_t n)
{
    static char line[1024]; /* callers hold the writer lock or run single-threaded at exit */
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        if (l > sizeof line - 1 - len) l = sizeof line - 1 - len;
        memcpy(line + len, parts[i], l);
        len += l;
    }
    line[len++] = '\n';
    ssize_t r = write(2, line, len);
    (void)r;
}

HP_NOINST uint64_t hp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

HP_NOINST uint64_t hp_thread_seed(uint64_t index)
{
    return hp_splitmix64_mix(hp_g.seed ^ hp_splitmix64_mix(index + 1));
}

HP_NOINST const char *hp_errno_text(int e)
{
    switch (e) {
    case ENOSPC: return "No space left on device";
    case EFBIG: return "File too large";
    case EDQUOT: return "Disk quota exceeded";
    case EIO: return "Input/output error";
    case EROFS: return "Read-only file system";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case ETXTBSY: return "Text file busy";
    case ESPIPE: return "Illegal seek (the output must be seekable)";
    case EPIPE: return "Broken pipe";
    case EBADF: return "Bad file descriptor";
    case EINVAL: return "Invalid argument";
    case ENAMETOOLONG: return "File name too long";
    case EMFILE: return "Too many open files";
    case ENFILE: return "Too many open files in system";
    case ELOOP: return "Too many levels of symbolic links";
    default: return "I/O error";
    }
}

HP_NOINST int hp_spawn_detached(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&tid, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc;
}

HP_NOINST size_t hp_info_str(char *out, size_t at, size_t cap, const char *k1, const char *k2, const char *v)
{
    size_t l1 = strlen(k1), l2 = k2 ? strlen(k2) + 1 : 0, lv = strlen(v);
    if (at + l1 + l2 + lv + 3 > cap) return at;
    memcpy(out + at, k1, l1), at += l1;
    if (k2) out[at++] = '.', memcpy(out + at, k2, l2 - 1), at += l2 - 1;
    out[at++] = '=';
    memcpy(out + at, v, lv), at += lv;
    out[at++] = '\n';
    out[at] = 0;
    return at;
}

HP_NOINST size_t hp_info_u64(char *out, size_t at, size_t cap, const char *k1, const char *k2, uint64_t v)
{
    char num[24];
    num[hp_fmt_u64(num, v)] = 0;
    return hp_info_str(out, at, cap, k1, k2, num);
}

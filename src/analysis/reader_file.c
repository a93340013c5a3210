/* reader_file.c — a profile from a file or a descriptor (profile.h): the 32-byte file header is
 * read and checked first, so an input that is not a profile ends there whatever follows
 * (/dev/zero, /dev/urandom, a pipe that never closes); then the rest up to a limit (a regular file
 * over it is refused by its size before it is read; a stream once that many bytes have come);
 * then the bytes go to hp_profile_read_mem (reader.c).
 * Invariant: memory used is at most the limit plus one byte (plus the profile built from it).
 */
#define _GNU_SOURCE
#include "analysis/reader.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads up to want bytes (fewer only at the end of the input); -1 with errno on an error. */
static ssize_t read_full(int fd, uint8_t *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void too_large(char *err, size_t errlen, const char *name, uint64_t max)
{
    say(err, errlen, "%s: larger than %" PRIu64 " bytes, the most hotprof reads (too large for a profile)", name, max);
}

/* Reads the rest of the input after the header's n bytes in buf (capacity *cap) up to max bytes
 * in all; the whole input in *buf and *len, or 0 with the message in err. */
static int read_rest(int fd, uint8_t **buf, size_t *cap, size_t *len, uint64_t max, const char *name, char *err,
                     size_t errlen)
{
    for (;;) {
        if (*len == *cap) {
            size_t ncap = *cap * 2 > max + 1 ? (size_t)max + 1 : *cap * 2; /* room to see one byte too many */
            uint8_t *b = ncap > *cap ? realloc(*buf, ncap) : NULL;
            if (!b) return too_large(err, errlen, name, max), 0;
            *buf = b, *cap = ncap;
        }
        ssize_t got = read_full(fd, *buf + *len, *cap - *len);
        if (got < 0) return say(err, errlen, "%s: cannot read: %s", name, strerror(errno)), 0;
        *len += (size_t)got;
        if (*len > max) return too_large(err, errlen, name, max), 0;
        if (*len < *cap) return 1; /* the end of the input */
    }
}

hp_profile *hp_profile_read_fd(int fd, const char *name, uint64_t max_bytes, char *err, size_t errlen)
{
    uint8_t head[HP_FMT_FILE_HEADER_SIZE];
    hp_fmt_file_info info;
    struct stat st = {0};
    ssize_t n = read_full(fd, head, sizeof head);
    if (n < 0) return say(err, errlen, "%s: cannot read: %s", name, strerror(errno)), NULL;
    if (hp_fmt_parse_file_header(head, (size_t)n, &info)) /* not a profile: say why, read no further */
        return hp_profile_read_mem(head, (size_t)n, name, err, errlen);
    if (fstat(fd, &st) != 0) st.st_mode = 0; /* unknown: read as a stream */
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)
        return too_large(err, errlen, name, max_bytes), NULL;
    size_t cap = S_ISREG(st.st_mode) && (uint64_t)st.st_size >= sizeof head ? (size_t)st.st_size + 1 : 1 << 16;
    size_t len = (size_t)n;
    uint8_t *data = malloc(cap);
    if (!data) return say(err, errlen, "%s: out of memory", name), NULL;
    memcpy(data, head, len);
    hp_profile *p = NULL;
    if (read_rest(fd, &data, &cap, &len, max_bytes, name, err, errlen))
        p = hp_profile_read_mem(data, len, name, err, errlen);
    free(data);
    return p;
}

hp_profile *hp_profile_read_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    hp_profile *p = hp_profile_read_fd(fd, path, HP_READ_MAX_BYTES, err, errlen);
    close(fd);
    return p;
}

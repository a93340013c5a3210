/* outfile.c — stdout or a file that appears whole or not at all (outfile.h). */
#define _GNU_SOURCE
#include "cli/outfile.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hp_outfile_open(hp_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->name = path && strcmp(path, "-") != 0 ? path : "standard output";
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        o->f = fopen(path, "w"); /* a device or a pipe: written in place, nothing to rename */
        if (o->f) return 0;
        fprintf(stderr, "hotprof: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    o->path = path;
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "hotprof: cannot write '%s': %s\n", path, strerror(errno));
        if (fd >= 0) close(fd), unlink(o->tmp);
        return -1;
    }
    return 0;
}

int hp_outfile_close(hp_outfile *o, int ok)
{
    int werr = 0;
    errno = 0;
    if (ferror(o->f) || fflush(o->f)) werr = errno ? errno : EIO;
    if (o->f != stdout && fclose(o->f) != 0 && !werr) werr = errno ? errno : EIO;
    if (ok && !werr && o->path && rename(o->tmp, o->path) != 0) werr = errno;
    if (werr) fprintf(stderr, "hotprof: cannot write '%s': %s\n", o->name, strerror(werr));
    if (o->path && (!ok || werr)) unlink(o->tmp);
    return ok && !werr ? 0 : -1;
}

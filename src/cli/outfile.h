/* outfile.h — where a command writes its output: stdout (no -o, or -o -) or a file that appears
 * whole or not at all. A file is written to "<path>.tmp.<pid>" beside it and renamed over path only
 * when everything was written and closed without error; on any error the temporary file is removed,
 * so a failed export never leaves a partial file (and never clobbers an older good one). An existing
 * path that is neither a regular file nor a directory (a device such as /dev/null, a named pipe) is
 * written in place.
 */
#ifndef HOTPROF_CLI_OUTFILE_H
#define HOTPROF_CLI_OUTFILE_H
#include <stdio.h>

typedef struct hp_outfile {
    FILE *f;          /* write here */
    const char *name; /* for messages: the path, or "standard output" */
    const char *path; /* the file renamed into place at the end; NULL for stdout or a device */
    char tmp[4200];   /* the temporary file while writing */
} hp_outfile;

/* Opens the output (path NULL or "-": stdout). 0, or -1 after one message on stderr. */
int hp_outfile_open(hp_outfile *o, const char *path);
/* Finishes it: ok = the command produced its output. Flushes, closes and renames into place when
 * ok and every write succeeded; otherwise removes the temporary file. 0 if the output is complete,
 * -1 otherwise (a write error gets one message on stderr; ok = 0 is the caller's to explain). */
int hp_outfile_close(hp_outfile *o, int ok);

#endif

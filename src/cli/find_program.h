/* find_program.h — a program as exec would find it in PATH, for the commands that start one (run,
 * the pager, cc's compiler, the assembler front's real `as`). Reads only PATH and the file system.
 */
#ifndef HOTPROF_CLI_FIND_PROGRAM_H
#define HOTPROF_CLI_FIND_PROGRAM_H
#include <stddef.h>

/* prog itself if it holds a '/', else the first executable DIR/prog for DIR in $PATH (unset:
 * /usr/local/bin:/usr/bin:/bin; an empty entry is the current directory), skipping the directory
 * skip_dir (compared after realpath: a link to it is skipped too; NULL skips none). 0 and its path
 * in out[cap], or -1 if there is none (or it does not fit). */
int hp_find_program(const char *prog, const char *skip_dir, char *out, size_t cap);

#endif

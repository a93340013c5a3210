/* writer.h — the profile writer (writer.c): file start, data groups, and the INFO text of the
 * sampling configuration. Async-signal-safe: all of it.
 */
#ifndef HOTPROF_RUNTIME_WRITER_H
#define HOTPROF_RUNTIME_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/thread.h"

/* Bursty mode: a thread's events (the largest per-type exposure of its controller). */
uint64_t hp_bursty_thread_events(const hp_thread *t);
/* Bursty mode: the INFO lines of the current sampling configuration ("sample.<type>=period=N,
 * burst=M,jitter=J" and "sample.<type>.enabled=0|1" per type) into out; returns their length.
 * Reads the shared config without waiting (async-signal-safe). */
size_t hp_sample_info(char *out, size_t cap);

typedef struct hp_group_stats { uint64_t threads, calls, blocks; } hp_group_stats;
enum { HP_WRITE_OK = 0, HP_WRITE_BUSY = -1, HP_WRITE_DONE = -2, HP_WRITE_IOERR = -3 };

/* Writes the file header, INFO and MODULES to fd (async-signal-safe). 0 on success. */
int hp_write_start(int fd, const char *info, size_t info_len, uint64_t seed);
/* Writes one group; final != 0 also makes it the last one. Async-signal-safe. */
int hp_write_group(uint64_t flags, int64_t status, int final, hp_group_stats *st);
void hp_writer_reset_after_fork(int fd);
/* errno of the write that failed (the group returned HP_WRITE_IOERR), else 0. */
int hp_write_errno(void);

#endif

/* live.h — the live segment: a process's top lists published in shared memory for `hotprof top`
 * (layout and seqlock: core/format/live.h; docs/runtime.md, "The live segment"). Level: with the
 * writer, between pt/ (whose live_rows hooks it calls) and init (which starts and stops it).
 *
 * hp_live_start: creates /dev/shm/hotprof.<pid> (0600, its header written before the name is
 * linked: made under a temporary name with O_EXCL, then renamed over any stale segment of a dead
 * process of the same pid) and starts the publisher thread "hotprof-live". Nothing is said on
 * failure (no /dev/shm, no memory): the program runs and profiles as without it.
 * hp_live_stop: unlinks the segment (exit, fatal signal, exec; async-signal-safe).
 * hp_live_after_fork: in a fork child: forgets the parent's segment (never writes it); with
 * profiled = 1, publishes one of its own (hp_live_start).
 */
#ifndef HOTPROF_RUNTIME_LIVE_H
#define HOTPROF_RUNTIME_LIVE_H

int hp_live_start(void); /* 0, or -1 (no segment) */
void hp_live_stop(void);
void hp_live_after_fork(int profiled);

#endif

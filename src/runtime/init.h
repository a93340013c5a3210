/* init.h — the narrow interface into the one-time process init (init.c), for the code that may
 * run a process's first event: the ABI entry points (hooks.c, exec.c), the API (api.c), the thread slow
 * path (thread.c: a thread's first event) and the XRay handler (through hp_thread_slow). Nothing
 * else in the runtime includes this header; no file below init calls anything else of init.
 *
 * hp_rt_ensure_init: 1 if this process records, 0 if not, -1 if called by the thread running
 * init (a hook inside our own init: skip the event). The first call runs init (not
 * async-signal-safe: getenv, sigaction, dl_iterate_phdr, pthread_create); later calls are one
 * acquire load.
 */
#ifndef HOTPROF_RUNTIME_INIT_H
#define HOTPROF_RUNTIME_INIT_H

int hp_rt_ensure_init(void);
/* exec.c (an ABI entry point): before an exec replaces the image, its counts as a group. */
void hp_before_exec(void);

#endif

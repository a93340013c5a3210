/* init.h — the narrow interface into the one-time process init (init.c), for the code that may
 * run a process's first event: the API (api.c) and the thread slow path (thread.c:
 * hp_thread_slow, which is how the ABI entry points of hooks.c and the XRay handlers reach it on
 * a thread's first event). Nothing else in the runtime includes this header (checked by
 * tests/e2e/test_layers.sh); no file below init calls anything else of init.
 *
 * hp_rt_ensure_init: 1 if this process records, 0 if not, -1 if called by the thread running
 * init (a hook inside our own init: skip the event). The first call runs init (not
 * async-signal-safe: getenv, sigaction, dl_iterate_phdr, pthread_create); later calls are one
 * acquire load.
 */
#ifndef HOTPROF_RUNTIME_INIT_H
#define HOTPROF_RUNTIME_INIT_H

int hp_rt_ensure_init(void);

#endif

/* timer_thread.c — pthread_create, interposed by the preloaded runtime in timer mode (timer.h):
 * a new thread starts in a trampoline that sets it up (its hp_thread and CPU-time timer:
 * hp_timer_thread_begin), runs the program's start routine, and deletes its timer when the
 * routine returns, calls pthread_exit or is cancelled (a cleanup handler). The trampoline's
 * argument (the routine and its argument) is malloc'ed by the creating thread and freed by the
 * new one. A thread creation in a run that is not recording (another mode, a stopped run, a fork
 * child that does not follow) passes straight through: hp_timer_thread_begin does nothing then.
 *
 * State (file-static): libc's pthread_create, resolved once at start (lazily if needed earlier).
 */
#define _GNU_SOURCE
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static create_fn g_create;

typedef struct trampoline_arg {
    void *(*fn)(void *);
    void *arg;
} trampoline_arg;

HP_NOINST int hp_timer_thread_resolve(void)
{
    if (!g_create) g_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    return g_create ? 0 : -1;
}

static HP_NOINST void thread_end(void *unused) { hp_timer_thread_end(); }

static HP_NOINST void *trampoline(void *p)
{
    trampoline_arg a = *(trampoline_arg *)p;
    free(p);
    hp_timer_thread_begin();
    void *r;
    pthread_cleanup_push(thread_end, NULL);
    r = a.fn(a.arg);
    pthread_cleanup_pop(1);
    return r;
}

HP_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    if (!g_create && hp_timer_thread_resolve()) return EAGAIN;
    trampoline_arg *a = malloc(sizeof *a);
    if (!a) return g_create(th, attr, fn, arg);
    a->fn = fn, a->arg = arg;
    int rc = g_create(th, attr, trampoline, a);
    if (rc != 0) free(a);
    return rc;
}

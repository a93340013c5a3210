/* timer_sig.c — the program's signal functions, interposed by the preloaded runtime in timer mode
 * (timer.h), so that our timer signal stays invisible and out of the program's way:
 *   - sigaction/signal installing a handler (or SIG_IGN/SIG_DFL) for OUR signal: we move first
 *     (hp_timer_move_signal: a free realtime signal, every thread's timer re-created on it,
 *     timer.signal_moves counted), then the program gets exactly what it asked for. If no
 *     realtime signal is free, every timer is deleted first and sampling stops (the profile keeps
 *     the samples so far): the program still gets its signal, and never one of ours.
 *   - the previous action the program reads back for our signal is SIG_DFL (what it would see
 *     without us), never our handler.
 *   - SIGTRAP while the trap-flag engine is installed: the program's action is kept for the traps that
 *     are not ours (interp_tf.c, hp_tf_program_sigaction); ours stays installed.
 *   - sigprocmask/pthread_sigmask that would block our signal get it removed from the set, silently.
 *   - sigprocmask called by libunwind while our handler unwinds (hp_timer_unwinding) returns at
 *     once with the full set as the old mask: the handler runs with every signal blocked, so the
 *     call would change nothing, and it is most of an unwind's cost.
 * Everything else goes straight to libc. Before timer mode starts (or in other modes, where this
 * object is not even linked: it is only in libhotprof_rt.so), every call passes through.
 * Not interposed: sigset, sigvec, bsd_signal, sysv_signal (obsolete), and libc's internal calls.
 *
 * State (file-static): libc's functions, resolved once (hp_timer_sig_resolve at init; lazily if a
 * call comes earlier).
 */
#define _GNU_SOURCE
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include "runtime/ctl/interp_int.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

static sigaction_fn g_sigaction;
static sigmask_fn g_sigprocmask, g_pthread_sigmask;
static int g_active; /* 1 once timer mode started */

HP_NOINST int hp_timer_sig_resolve(void)
{
    if (!g_sigaction) g_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (!g_sigprocmask) g_sigprocmask = (sigmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
    if (!g_pthread_sigmask) g_pthread_sigmask = (sigmask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
    if (!g_sigaction || !g_sigprocmask || !g_pthread_sigmask) return -1;
    HP_STORE_REL(&g_active, 1);
    return 0;
}

HP_NOINST int hp_timer_real_sigaction(int signo, const struct sigaction *sa, struct sigaction *old)
{
    return g_sigaction ? g_sigaction(signo, sa, old) : -1;
}

HP_API int sigaction(int signo, const struct sigaction *sa, struct sigaction *old)
{
    if (!g_sigaction && hp_timer_sig_resolve()) return errno = ENOSYS, -1;
    if (HP_LOAD_ACQ(&g_active) && signo == SIGTRAP && hp_tf_program_sigaction(signo, sa, old)) return 0;
    if (!HP_LOAD_ACQ(&g_active) || signo != hp_timer_signal()) return g_sigaction(signo, sa, old);
    if (sa) hp_timer_move_signal(); /* the program takes our signal: we go elsewhere */
    struct sigaction mine;
    int rc = g_sigaction(signo, sa, &mine);
    if (rc == 0 && old) {
        memset(old, 0, sizeof *old);
        old->sa_handler = SIG_DFL; /* what it would have seen without us */
    }
    return rc;
}

HP_API __sighandler_t signal(int signo, __sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART; /* glibc's signal(): BSD semantics */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, signo);
    if (sigaction(signo, &sa, &old) != 0) return SIG_ERR;
    return old.sa_handler;
}

/* set without our signal when it would block it (a copy in *tmp), else set. */
static HP_NOINST const sigset_t *unblock_ours(int how, const sigset_t *set, sigset_t *tmp)
{
    if (!set || how == SIG_UNBLOCK || !HP_LOAD_ACQ(&g_active)) return set;
    int s = hp_timer_signal();
    if (s <= 0 || !sigismember(set, s)) return set;
    *tmp = *set;
    sigdelset(tmp, s);
    return tmp;
}

HP_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    if (hp_timer_unwinding()) { /* libunwind inside our handler: every signal is blocked already */
        if (old) sigfillset(old);
        return 0;
    }
    if (!g_sigprocmask && hp_timer_sig_resolve()) return errno = ENOSYS, -1;
    sigset_t tmp;
    return g_sigprocmask(how, unblock_ours(how, set, &tmp), old);
}

HP_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    if (!g_pthread_sigmask && hp_timer_sig_resolve()) return ENOSYS;
    sigset_t tmp;
    return g_pthread_sigmask(how, unblock_ours(how, set, &tmp), old);
}

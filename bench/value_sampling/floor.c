/* floor.c — the cost floor of timer sampling on this machine, for bench/value_sampling: an
 * LD_PRELOAD object that arms, in every thread, the same interrupt hotprof's timer mode uses, and
 * handles it with an EMPTY handler (the perf ring's tail is moved so that it never fills up: two
 * memory operations). The slowdown it causes is what the kernel/hypervisor charge for one interrupt
 * and one signal delivery at that rate, before any profiling work: hotprof's PC sampling cannot be
 * cheaper than this on the same machine.
 *   FLOOR_CLOCK=perf   a per-thread perf_event task-clock (exclude_kernel, wakeup_events = 1, one-page
 *                      ring, O_ASYNC + F_SETSIG + F_SETOWN_EX), as ctl/timer_perf.c (default)
 *   FLOOR_CLOCK=posix  timer_create(CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID), as ctl/timer.c
 *   FLOOR_HZ=N         interrupts per CPU second (default 1000); the period is not randomized.
 * Threads: pthread_create is interposed so that every thread arms its own interrupt.
 * Not product code: a measuring tool (bench/value_sampling/README.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_SIGNAL (SIGRTMIN + 5)
static __thread struct perf_event_mmap_page *t_ring;
static int g_posix;
static long g_period_ns = 1000000;

static void on_tick(int s, siginfo_t *si, void *uc)
{
    (void)s, (void)si, (void)uc;
    if (t_ring) __atomic_store_n(&t_ring->data_tail, __atomic_load_n(&t_ring->data_head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static void arm_perf(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = (uint64_t)g_period_ns;
    a.exclude_kernel = a.exclude_hv = a.disabled = 1;
    a.wakeup_events = 1;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return;
    void *ring = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) return;
    t_ring = ring;
    struct f_owner_ex own = {F_OWNER_TID, tid};
    fcntl(fd, F_SETSIG, FLOOR_SIGNAL);
    fcntl(fd, F_SETOWN_EX, &own);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void arm_posix(void)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = FLOOR_SIGNAL;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t id;
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &id)) return;
    struct itimerspec its = {{0, g_period_ns}, {0, g_period_ns}};
    timer_settime(id, 0, &its, NULL);
}

static void arm(void) { g_posix ? arm_posix() : arm_perf(); }

typedef struct { void *(*fn)(void *); void *arg; } start_t;

static void *trampoline(void *p)
{
    start_t s = *(start_t *)p;
    free(p);
    arm();
    return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
    start_t *s = malloc(sizeof *s);
    if (!s) return real(t, attr, fn, arg);
    s->fn = fn, s->arg = arg;
    int rc = real(t, attr, trampoline, s);
    if (rc) free(s);
    return rc;
}

__attribute__((constructor)) static void floor_start(void)
{
    const char *c = getenv("FLOOR_CLOCK"), *hz = getenv("FLOOR_HZ");
    g_posix = c && strcmp(c, "posix") == 0;
    if (hz && atol(hz) > 0) g_period_ns = 1000000000L / atol(hz);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(FLOOR_SIGNAL, &sa, NULL);
    arm();
}

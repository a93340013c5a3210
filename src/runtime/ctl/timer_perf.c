/* timer_perf.c — timer mode's second interrupt source (timer.h, `--clock perf`): a per-thread
 * perf_event software task-clock (PERF_COUNT_SW_TASK_CLOCK: it advances only while the thread
 * runs, like CLOCK_THREAD_CPUTIME_ID, but expires on an hrtimer, so it reaches the full rate where
 * POSIX CPU timers wait for the scheduler tick, CONFIG_HZ).
 *
 * One event per thread, opened by pid = that thread, cpu = -1, exclude_kernel and exclude_hv
 * (so that perf_event_paranoid 2 permits it; an expiry that lands in the kernel is skipped by
 * the kernel, and the thread's time in the kernel is not sampled). Every expiry writes an empty
 * sample (sample_type 0, 8 bytes) into a one-page ring (mmap'd, 2 pages with the control page) and,
 * wakeup_events = 1, wakes the descriptor: O_ASYNC with F_SETSIG = our signal and F_SETOWN_EX to
 * the thread turns that into our signal, si_code POLL_IN, si_fd = the descriptor. The handler
 * consumes the ring (data_tail = data_head: no system call) so that it never fills up.
 *
 * Randomized intervals: PERF_EVENT_IOC_PERIOD costs a system call that stops and restarts the
 * event's hrtimer (measured on this 2-core VM: ~3.5 us outside a handler, 12-20 us inside ours,
 * more than the whole rest of a sample), so the period is redrawn (0.5..1.5 of 1/freq, drawn by
 * the caller) only every 16..48th interrupt (the gap itself drawn from the period's low bits, mean
 * 32): each redraw restarts the timer at a random phase, which is what breaks aliasing with a
 * periodic program.
 *
 * Descriptors: the event is duplicated close-on-exec to >= HP_PERF_FD_FLOOR (900) like the
 * runtime's others and the original closed; hp_perf_close (thread end, fork child) closes it and
 * unmaps the ring. A signal move re-points every thread's descriptor (F_SETSIG) from the moving
 * thread; fcntl is safe on another thread's descriptor.
 */
#define _GNU_SOURCE
#include "runtime/ctl/timer.h"
#include "runtime/base.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HP_PERF_FD_FLOOR 900
#define HP_PERF_REDRAW_MIN 16u /* redraw the period every 16..48th interrupt */
#define HP_PERF_REDRAW_SPAN 33u
#define HP_PERF_MAP_BYTES (2u * 4096u)

static HP_NOINST int perf_open(uint64_t tid, uint64_t period_ns)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    a.wakeup_events = 1;
    return (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

HP_NOINST int hp_perf_probe(void)
{
    int fd = perf_open((uint64_t)syscall(SYS_gettid), 1000000);
    if (fd < 0) return errno ? errno : EPERM;
    close(fd);
    return 0;
}

/* Deliver fd's wakeups as signo to thread tid. 0, or -1. */
static HP_NOINST int route(int fd, int signo, uint64_t tid)
{
    struct f_owner_ex own = {F_OWNER_TID, (pid_t)tid};
    if (fcntl(fd, F_SETSIG, signo) || fcntl(fd, F_SETOWN_EX, &own)) return -1;
    return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

HP_NOINST int hp_perf_open(hp_timer_thread *tt, int signo, uint64_t period_ns)
{
    int fd0 = perf_open(tt->tid, period_ns);
    if (fd0 < 0) return -1;
    int fd = fcntl(fd0, F_DUPFD_CLOEXEC, HP_PERF_FD_FLOOR);
    close(fd0);
    if (fd < 0) return -1;
    void *ring = mmap(NULL, HP_PERF_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED || route(fd, signo, tt->tid) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
        if (ring != MAP_FAILED) munmap(ring, HP_PERF_MAP_BYTES);
        close(fd);
        return -1;
    }
    tt->perf_ring = ring;
    tt->perf_redraw = HP_PERF_REDRAW_MIN + (uint32_t)(period_ns % HP_PERF_REDRAW_SPAN);
    HP_STORE_REL(&tt->perf_fd, fd);
    return 0;
}

HP_NOINST void hp_perf_close(hp_timer_thread *tt)
{
    int fd = HP_LOAD_ACQ(&tt->perf_fd);
    if (fd < 0) return;
    HP_STORE_REL(&tt->perf_fd, -1);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (tt->perf_ring) munmap(tt->perf_ring, HP_PERF_MAP_BYTES);
    tt->perf_ring = NULL;
    close(fd);
}

HP_NOINST int hp_perf_set_signal(hp_timer_thread *tt, int signo)
{
    int fd = HP_LOAD_ACQ(&tt->perf_fd);
    return fd < 0 ? -1 : fcntl(fd, F_SETSIG, signo);
}

HP_NOINST int hp_perf_is_ours(const hp_timer_thread *tt, const siginfo_t *si)
{
    int fd = HP_LOAD_ACQ(&tt->perf_fd);
    return fd >= 0 && (si->si_code == POLL_IN || si->si_code == POLL_HUP) && si->si_fd == fd;
}

HP_NOINST void hp_perf_rearm(hp_timer_thread *tt, uint64_t period_ns)
{
    struct perf_event_mmap_page *pg = tt->perf_ring;
    if (pg) __atomic_store_n(&pg->data_tail, __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    if (--tt->perf_redraw) return;
    tt->perf_redraw = HP_PERF_REDRAW_MIN + (uint32_t)(period_ns % HP_PERF_REDRAW_SPAN);
    ioctl(tt->perf_fd, PERF_EVENT_IOC_PERIOD, &period_ns);
}

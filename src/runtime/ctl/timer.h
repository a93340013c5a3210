/* timer.h — timer mode's controller (--mode timer, ctl/timer*.c): every thread of an unmodified,
 * dynamically linked program (the runtime is LD_PRELOADed) gets a CPU-time timer
 * (timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID to itself), re-armed after every
 * interrupt with a random interval, uniform in 0.5..1.5 of 1/freq. Each interrupt records the
 * interrupted pc, the word at the top of the stack and the return addresses found by unwinding
 * (libunwind's local unwinder, dlopen'ed privately: ctl/timer_unwind.c) into the thread's stack
 * table; every K-th interrupt of a thread is handed to the interpreter (ctl/interp.h).
 *
 * The interrupt source (--clock, HOTPROF_TIMER clock=): `posix` is the timer above; `perf` is a
 * per-thread perf_event task-clock delivering our signal through its descriptor (timer_perf.c),
 * which is not limited to the scheduler tick; `auto` takes perf when perf_event_open works for
 * the first thread at start. A thread whose perf event cannot be opened gets a POSIX timer.
 *
 * Files: timer.c (start, thread setup, the handler, INFO), timer_perf.c (the perf source),
 * timer_unwind.c (libunwind), timer_ucache.c (the unwind-step cache in front of it),
 * timer_sig.c (the interposed signal functions: the program never sees our signal, and takes it
 * over when it asks: we move), timer_thread.c (the interposed pthread_create).
 *
 * The stack table of a thread (hp_timer_thread.slots): open addressing over nslots fixed-size
 * slots (HP_TIMER_SLOT_BYTES(depth) bytes each), mmap'd at the thread's setup; key = hash of
 * (tos, depth, pcs); a sample whose stack finds no slot within HP_TIMER_PROBES probes is counted
 * in `dropped` only. Only the owning thread writes its table (in its signal handler): a slot's
 * pcs, tos and depth are written before its hash is published (release), and count after; readers
 * (pt/samples.c) load the hash with acquire and skip a slot whose hash is 0.
 *
 * The static runtime (libhotprof_rt.a, linked into `hotprof cc` programs) does not contain these
 * objects (Makefile): init.c and pt/samples.c reach them through weak references only.
 *
 * Async-signal-safety: the handler and everything it calls (memory, timer_settime,
 * clock_gettime, libunwind's local unwinder) are. hp_timer_start and hp_timer_thread_begin run
 * outside handlers (init, thread start).
 */
#ifndef HOTPROF_RUNTIME_CTL_TIMER_H
#define HOTPROF_RUNTIME_CTL_TIMER_H
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <time.h>
#include <ucontext.h>
#include "core/control/timer_spec.h"

#define HP_TIMER_SLOTS 4096u /* stack slots per thread (distinct stacks kept) */
#define HP_TIMER_PROBES 64u
#define HP_TIMER_SLOT_BYTES(depth) (32u + 8u * (uint32_t)(depth))

typedef struct hp_stack_slot {
    uint64_t hash;  /* 0: empty (published last, with release) */
    uint64_t count;
    uint64_t tos;
    uint16_t depth, flags;
    uint32_t pad;
    uint64_t pcs[];
} hp_stack_slot;

typedef struct hp_timer_thread {
    timer_t id;          /* this thread's timer (valid when has_timer) */
    int has_timer;
    int signo;           /* the signal it was created with */
    uint64_t tid;
    uint64_t rng;        /* the interval's random state (from hp_thread_seed) */
    uint64_t samples;    /* interrupts handled */
    uint64_t dropped;    /* ... whose stack found no slot */
    uint64_t own;        /* ... that interrupted hotprof's own runtime (writing the profile): not recorded */
    uint64_t handler_ns; /* in the handler, interpretation excluded */
    uint64_t interrupts_to_interp; /* countdown to the next interpretation (K) */
    uint32_t nslots, stride, depth, pad;
    unsigned char *slots;
    int perf_fd;         /* the perf source's descriptor, -1: this thread uses a POSIX timer */
    uint32_t perf_redraw; /* countdown to the next period redraw (timer_perf.c) */
    void *perf_ring;     /* its mmap'd ring (struct perf_event_mmap_page first) */
    uint64_t stack_lo, stack_hi; /* the thread's stack (0, 0: unknown), for the unwind cache */
    void *ucache;        /* its unwind-step cache (timer_ucache.c), NULL: none */
    uint64_t unwind_cached;     /* stacks taken from the cache */
    uint64_t unwind_mismatches; /* HOTPROF_UNWIND_CACHE=check: cached stacks that differ from libunwind's */
} hp_timer_thread;

/* Once at init (timer mode, the preloaded runtime): the settings, our signal's handler, the
 * unwinder, the interpreter when s->len > 0. 0, or -1 with one line in err (then: not profiling). */
int hp_timer_start(const hp_timer_spec *s, uint64_t seed, char *err, size_t errlen);
/* The calling thread: its hp_thread (thread.h) and its timer. Outside any handler. */
void hp_timer_thread_begin(void);
/* The calling thread ends (pthread_exit, return from its start routine): delete its timer. */
void hp_timer_thread_end(void);
/* fork child (init.c's handler): follow = 1: zero every table and give the calling thread a
 * timer; 0: nothing runs any more (timers are not inherited). */
void hp_timer_after_fork(int follow);
/* Group INFO lines (timer.* keys and the interpreter's) into out; returns the length. Async-signal-safe. */
size_t hp_timer_group_info(char *out, size_t cap);

/* timer.c, for timer_sig.c: the signal in use, and moving to another one (the program asked for
 * ours): every thread's timer is re-created on the new signal. 0, or -1 (no free signal). */
int hp_timer_signal(void);
int hp_timer_move_signal(void);
/* timer_perf.c, the perf source: hp_perf_probe: 0 if perf_event_open works for the calling
 * thread, else the errno. hp_perf_open: tt->tid's event, period_ns, enabled, delivering signo to
 * it (0, or -1: tt unchanged). hp_perf_close: close it (thread end; a fork child closes its
 * copies). hp_perf_set_signal: re-point (a signal move). hp_perf_is_ours: si came from tt's
 * event. hp_perf_rearm (in the handler): consume the ring, set period_ns every few interrupts. */
int hp_perf_probe(void);
int hp_perf_open(hp_timer_thread *tt, int signo, uint64_t period_ns);
void hp_perf_close(hp_timer_thread *tt);
int hp_perf_set_signal(hp_timer_thread *tt, int signo);
int hp_perf_is_ours(const hp_timer_thread *tt, const siginfo_t *si);
void hp_perf_rearm(hp_timer_thread *tt, uint64_t period_ns);
/* timer_unwind.c: load libunwind (0, or -1 and err); unwind from uc into pcs[1..depth-1]
 * (pcs[0] is set by the caller); returns the depth and sets *flags (HP_STACK_*). */
int hp_unwind_load(char *err, size_t errlen);
uint32_t hp_unwind(hp_timer_thread *tt, ucontext_t *uc, uint64_t *pcs, uint32_t depth, uint16_t *flags);
/* timer_ucache.c, the unwind-step cache: bounds and table at thread start; a walk from (ip, sp)
 * that returns the depth (pcs[n..]) when every frame from there is cached and trusted, else 0; the
 * sightings from libunwind's steps that fill it. */
void hp_ucache_thread_begin(hp_timer_thread *tt);
uint32_t hp_ucache_walk(hp_timer_thread *tt, uint64_t ip, uint64_t sp, int first, uint64_t *pcs, uint32_t n,
                        uint32_t depth, uint16_t *flags); /* from frame n-1 (pcs[n-1] == ip) */
void hp_ucache_observe(hp_timer_thread *tt, uint64_t ip, int first, uint64_t sp, uint64_t next_sp, uint64_t next_ip);
void hp_ucache_observe_end(hp_timer_thread *tt, uint64_t ip, int first);
/* HOTPROF_UNWIND_CACHE (read at start): 1 on (default), 0 off, 2 check. */
int hp_ucache_mode(void);
/* timer_unwind.c: 1 while this thread unwinds in our handler, where every signal is blocked
 * already: libunwind's own sigprocmask calls (about 16 per stack, one system call each, most of
 * its cost) are then answered without a system call by timer_sig.c. */
int hp_timer_unwinding(void);
/* timer_sig.c: the real sigaction (resolved at start), for timer.c's own installs. */
int hp_timer_real_sigaction(int signo, const struct sigaction *sa, struct sigaction *old);
int hp_timer_sig_resolve(void);
/* timer_thread.c: resolve the real pthread_create. */
int hp_timer_thread_resolve(void);

#endif

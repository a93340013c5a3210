/* timer.c — timer mode's core (timer.h): start, per-thread setup of the timer and the stack
 * table, the signal handler (sample, unwind, hand every K-th interrupt to the interpreter, re-arm),
 * the signal move, fork, and the group INFO.
 *
 * State (file-static, set once by hp_timer_start before any timer exists, except g_signo and
 * g_moves, which change only under a signal move): the settings, the signal in use, the moves.
 * Per-thread state is the thread's hp_timer_thread (t->timer), written only by that thread (its
 * handler and setup), except the timer id, which a signal move re-creates from another thread.
 */
#define _GNU_SOURCE
#include "runtime/ctl/timer.h"
#include "runtime/ctl/interp.h"
#include "runtime/base.h"
#include "runtime/thread.h"
#include "core/format/format.h"
#include "core/format/info_keys.h"
#include "core/base/hash.h"
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static hp_timer_spec g_spec;
static int g_signo, g_started;
static int g_perf;               /* 1: threads get the perf source (clock perf, or auto and it works) */
static char g_fallback[96];      /* why auto took posix ("" if it did not) */
static uint64_t g_moves, g_thread_index;

static HP_NOINST void on_timer(int signo, siginfo_t *si, void *ucv);
static HP_NOINST int own_range(struct dl_phdr_info *info, size_t size, void *arg);

/* ---------------------------------------------------------------- timers */

/* The CPU clock of thread tid of this process (the kernel's encoding: ~tid << 3 | PERTHREAD | SCHED),
 * so that a signal move can re-create another thread's timer. */
static HP_NOINST clockid_t thread_clock(uint64_t tid) { return (clockid_t)((~(unsigned)tid << 3) | 6u); }

static HP_NOINST uint64_t next_interval_ns(hp_timer_thread *tt)
{
    uint64_t x = tt->rng; /* xorshift64 */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    tt->rng = x;
    uint64_t period = 1000000000ull / g_spec.freq;
    return period / 2 + (x >> 11) % (period + 1); /* uniform in 0.5..1.5 periods */
}

static HP_NOINST void arm(hp_timer_thread *tt)
{
    uint64_t ns = next_interval_ns(tt);
    if (tt->perf_fd >= 0) {
        hp_perf_rearm(tt, ns);
        return;
    }
    struct itimerspec its = {.it_value = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)}};
    timer_settime(tt->id, 0, &its, NULL);
}

/* A timer for thread tt->tid on signal signo, armed: the perf source when chosen and it opens,
 * else a POSIX one. 0, or -1. */
static HP_NOINST int make_timer(hp_timer_thread *tt, int signo)
{
    if (g_perf && hp_perf_open(tt, signo, next_interval_ns(tt)) == 0) {
        tt->signo = signo;
        HP_STORE_REL(&tt->has_timer, 1);
        return 0;
    }
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = signo;
    ev._sigev_un._tid = (int)tt->tid;
    timer_t id;
    if (timer_create(thread_clock(tt->tid), &ev, &id) != 0) return -1;
    tt->id = id;
    tt->signo = signo;
    HP_STORE_REL(&tt->has_timer, 1);
    arm(tt);
    return 0;
}

static HP_NOINST void drop_timer(hp_timer_thread *tt)
{
    if (!HP_LOAD_ACQ(&tt->has_timer)) return;
    HP_STORE_REL(&tt->has_timer, 0);
    if (tt->perf_fd >= 0) hp_perf_close(tt);
    else timer_delete(tt->id);
}

/* --clock: auto takes perf when perf_event_open works for this (the first) thread. 0, or -1
 * (perf asked for and not permitted). */
static HP_NOINST int choose_clock(int clock, char *err, size_t errlen)
{
    if (clock == HP_TIMER_CLOCK_POSIX) return 0;
    int e = hp_perf_probe();
    g_perf = e == 0;
    if (!e) return 0;
    if (clock == HP_TIMER_CLOCK_PERF) {
        snprintf(err, errlen, "hotprof: --mode timer --clock perf: perf_event_open: %s (kernel.perf_event_paranoid; "
                 "--clock posix works everywhere) (not profiling)", strerror(e));
        return -1;
    }
    snprintf(g_fallback, sizeof g_fallback, "%s", strerror(e));
    return 0;
}

/* ---------------------------------------------------------------- start and threads */

static HP_NOINST int install_handler(int signo)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigfillset(&sa.sa_mask); /* nothing of ours nests in it (a fault still kills: the CPU forces it) */
    return hp_timer_real_sigaction(signo, &sa, NULL);
}

HP_NOINST int hp_timer_start(const hp_timer_spec *s, uint64_t seed, char *err, size_t errlen)
{
    g_spec = *s;
    dl_iterate_phdr(own_range, (void *)(uintptr_t)&hp_timer_start);
    if (hp_timer_sig_resolve() || hp_timer_thread_resolve()) {
        snprintf(err, errlen, "hotprof: --mode timer: cannot find libc's signal and thread functions (not profiling)");
        return -1;
    }
    if (s->signal > SIGRTMAX || (s->signal >= 32 && s->signal < SIGRTMIN)) {
        snprintf(err, errlen, "hotprof: --mode timer: signal %d is reserved by this libc (not profiling)", s->signal);
        return -1;
    }
    if (hp_unwind_load(err, errlen) || choose_clock(s->clock, err, errlen)) return -1;
    if (s->len) {
        hp_interp_config ic = {.length = s->len, .every = s->every, .engine = s->engine, .debias = s->debias, .seed = seed,
                                .module = s->module};
        if (hp_interp_start(&ic, err, errlen)) return -1;
    }
    g_signo = s->signal;
    if (install_handler(g_signo)) {
        snprintf(err, errlen, "hotprof: --mode timer: cannot install the handler of signal %d (not profiling)", g_signo);
        return -1;
    }
    HP_STORE_REL(&g_started, 1);
    return 0;
}

static HP_NOINST hp_timer_thread *timer_state_new(uint64_t tid)
{
    hp_timer_thread *tt = hp_map(sizeof *tt);
    if (!tt) return NULL;
    tt->depth = g_spec.depth;
    tt->stride = HP_TIMER_SLOT_BYTES(g_spec.depth);
    tt->nslots = HP_TIMER_SLOTS;
    tt->slots = hp_map((size_t)tt->stride * tt->nslots);
    if (!tt->slots) return NULL;
    tt->tid = tid;
    tt->perf_fd = -1;
    tt->rng = hp_thread_seed(__atomic_fetch_add(&g_thread_index, 1, __ATOMIC_RELAXED)) | 1;
    return tt;
}

HP_NOINST void hp_timer_thread_begin(void)
{
    if (!HP_LOAD_ACQ(&g_started)) return;
    hp_thread *t = hp_thread_slow();
    if (!t) return;
    if (!t->timer && !(t->timer = timer_state_new(t->tid))) return;
    if (g_spec.len && !t->interp) t->interp = hp_interp_thread_new();
    else if (t->interp) hp_interp_thread_rebind(t->interp, 0); /* a recycled state: this thread's fs base;
                                                                * its lists stay (values are per pc) */
    t->timer->tid = t->tid;
    if (hp_ucache_mode()) hp_ucache_thread_begin(t->timer);
    t->timer->interrupts_to_interp = g_spec.every;
    if (!t->timer->has_timer) make_timer(t->timer, HP_LOAD_ACQ(&g_signo));
}

HP_NOINST void hp_timer_thread_end(void)
{
    hp_thread *t = hp_tls;
    if (t && t->timer) drop_timer(t->timer);
}

HP_NOINST void hp_timer_after_fork(int follow)
{
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_timer_thread *tt = t->timer;
        if (!tt) continue;
        tt->has_timer = 0; /* not inherited; the perf source's descriptors are: the parent's, closed */
        if (tt->perf_fd >= 0) {
            if (tt->perf_ring) munmap(tt->perf_ring, 2u * 4096u);
            close(tt->perf_fd);
            tt->perf_ring = NULL, tt->perf_fd = -1;
        }
        if (!follow) continue;
        memset(tt->slots, 0, (size_t)tt->stride * tt->nslots);
        tt->samples = tt->dropped = tt->own = tt->handler_ns = tt->unwind_cached = tt->unwind_mismatches = 0;
    }
    if (follow && hp_tls && hp_tls != NULL) hp_tls->tid = (uint64_t)syscall(SYS_gettid); /* the child's */
    if (follow) hp_timer_thread_begin();
}

/* ---------------------------------------------------------------- signal moves */

HP_NOINST int hp_timer_signal(void) { return HP_LOAD_ACQ(&g_signo); }

/* A realtime signal nobody handles (default action, not ours), searched upward from ours. */
static HP_NOINST int free_signal(int from)
{
    for (int i = 1; i <= SIGRTMAX - SIGRTMIN; i++) {
        int s = SIGRTMIN + (from - SIGRTMIN + i) % (SIGRTMAX - SIGRTMIN + 1);
        struct sigaction old;
        if (hp_timer_real_sigaction(s, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            return s;
    }
    return -1;
}

HP_NOINST int hp_timer_move_signal(void)
{
    int old = HP_LOAD_ACQ(&g_signo), s = free_signal(old < SIGRTMIN ? SIGRTMIN : old);
    if (s < 0 || install_handler(s)) { /* nowhere to go: stop sampling rather than signal the program */
        HP_STORE_REL(&g_signo, 0);
        for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next)
            if (t->timer) drop_timer(t->timer);
        return -1;
    }
    HP_STORE_REL(&g_signo, s);
    __atomic_fetch_add(&g_moves, 1, __ATOMIC_RELAXED);
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        hp_timer_thread *tt = t->timer;
        if (!tt || !HP_LOAD_ACQ(&tt->has_timer)) continue;
        if (tt->perf_fd >= 0 && hp_perf_set_signal(tt, s) == 0) {
            tt->signo = s;
            continue;
        }
        drop_timer(tt);
        make_timer(tt, s);
    }
    return 0;
}

/* ---------------------------------------------------------------- the handler */

static HP_NOINST uint64_t stack_hash(const uint64_t *pcs, uint32_t depth, uint64_t tos)
{
    uint64_t h = hp_splitmix64_mix(tos ^ depth);
    for (uint32_t i = 0; i < depth; i++) h = hp_splitmix64_mix(h ^ pcs[i]);
    return h | 1; /* never 0: 0 marks an empty slot */
}

static HP_NOINST void record(hp_timer_thread *tt, const uint64_t *pcs, uint32_t depth, uint64_t tos, uint16_t flags)
{
    uint64_t h = stack_hash(pcs, depth, tos);
    for (uint32_t p = 0; p < HP_TIMER_PROBES; p++) {
        hp_stack_slot *s = (hp_stack_slot *)(tt->slots + (size_t)((h + p) & (tt->nslots - 1)) * tt->stride);
        uint64_t sh = HP_LOAD_RLX(&s->hash);
        if (sh == h && s->depth == depth && s->tos == tos && memcmp(s->pcs, pcs, depth * 8u) == 0) {
            HP_STORE_RLX(&s->count, s->count + 1);
            return;
        }
        if (sh) continue;
        memcpy(s->pcs, pcs, depth * 8u);
        s->tos = tos, s->depth = (uint16_t)depth, s->flags = flags;
        HP_STORE_REL(&s->count, 1);
        HP_STORE_REL(&s->hash, h);
        return;
    }
    HP_STORE_RLX(&tt->dropped, tt->dropped + 1);
}

/* The text of libhotprof_rt.so itself, [g_own_lo, g_own_hi): an interrupt there is ours (the profile
 * writer in the exit destructor, a flush), not the program's. Set once by hp_timer_start. */
static uint64_t g_own_lo, g_own_hi;

static HP_NOINST int own_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    uint64_t self = (uint64_t)(uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo && self < hi) {
            g_own_lo = lo, g_own_hi = hi;
            return 1;
        }
    }
    return 0;
}

static HP_NOINST void sample(hp_timer_thread *tt, ucontext_t *uc)
{
    uint64_t pcs[HP_STACK_MAX_DEPTH];
    uint16_t flags = 0;
    pcs[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    uint64_t tos = sp && !(sp & 7) ? *(const uint64_t *)sp : 0; /* the thread's own stack, mapped */
    uint32_t depth = hp_unwind(tt, uc, pcs, tt->depth, &flags);
    record(tt, pcs, depth, tos, flags);
}

static HP_NOINST void on_timer(int signo, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    hp_thread *t = hp_tls;
    hp_timer_thread *tt = t ? t->timer : NULL;
    int ours = tt && (tt->perf_fd >= 0 ? hp_perf_is_ours(tt, si) : si->si_code == SI_TIMER);
    if (!ours || !t->active || signo != tt->signo) {
        errno = saved_errno;
        return; /* not a timer of ours for this thread (a stale one after a move, a kill, a stopped run) */
    }
    uint64_t t0 = hp_now_ns(), pc = (uint64_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
    /* ours: our own text, or libc called by the writer or the exit destructor (hp_in_runtime) */
    if ((pc >= g_own_lo && pc < g_own_hi) || hp_in_runtime) HP_STORE_RLX(&tt->own, tt->own + 1);
    else sample(tt, ucv), HP_STORE_RLX(&tt->samples, tt->samples + 1);
    uint64_t t1 = hp_now_ns(), t2 = t1;
    if (g_spec.len && t->interp && --tt->interrupts_to_interp == 0) {
        tt->interrupts_to_interp = g_spec.every;
        hp_interp_on_sample(t, ucv);
        t2 = hp_now_ns();
    }
    arm(tt);
    HP_STORE_RLX(&tt->handler_ns, tt->handler_ns + (t1 - t0) + (hp_now_ns() - t2));
    errno = saved_errno;
}

/* ---------------------------------------------------------------- INFO */

HP_NOINST size_t hp_timer_group_info(char *out, size_t cap)
{
    if (!HP_LOAD_ACQ(&g_started) || cap < 2) return 0;
    uint64_t samples = 0, dropped = 0, own = 0, ns = 0, cached = 0, mism = 0;
    for (hp_thread *t = HP_LOAD_ACQ(&hp_g.threads); t; t = t->next) {
        const hp_timer_thread *tt = t->timer;
        if (!tt) continue;
        samples += HP_LOAD_RLX(&tt->samples);
        dropped += HP_LOAD_RLX(&tt->dropped);
        own += HP_LOAD_RLX(&tt->own);
        ns += HP_LOAD_RLX(&tt->handler_ns);
        cached += HP_LOAD_RLX(&tt->unwind_cached);
        mism += HP_LOAD_RLX(&tt->unwind_mismatches);
    }
    struct timespec cpu = {0, 0};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    size_t n = 0;
    out[0] = 0;
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_FREQ, NULL, g_spec.freq);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_SIGNAL, NULL, (uint64_t)HP_LOAD_ACQ(&g_signo));
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_MOVES, NULL, HP_LOAD_RLX(&g_moves));
    n = hp_info_str(out, n, cap, HP_INFO_TIMER_UNWINDER, NULL, "libunwind");
    n = hp_info_str(out, n, cap, HP_INFO_TIMER_CLOCK, NULL, g_perf ? "perf" : "posix");
    if (g_fallback[0]) n = hp_info_str(out, n, cap, HP_INFO_TIMER_CLOCK_FALLBACK, NULL, g_fallback);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_DEPTH, NULL, g_spec.depth);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_UNWIND_CACHED, NULL, cached);
    if (hp_ucache_mode() == 2) n = hp_info_u64(out, n, cap, HP_INFO_TIMER_UNWIND_MISMATCHES, NULL, mism);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_SAMPLES, NULL, samples);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_DROPPED, NULL, dropped);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_OWN, NULL, own);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_HANDLER_NS, NULL, ns);
    n = hp_info_u64(out, n, cap, HP_INFO_TIMER_CPU_NS, NULL, (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec);
    if (g_spec.len) n += hp_interp_info(out + n, cap - n);
    return n;
}

/* shadow_int.h — what the shadow files share (shadow.h has the outside interface): the raw
 * system call, the counters page shared with every shadow, the end reasons, the policy table's
 * interface (shadow_policy.c, pure and unit-tested) and the pieces each file exports to the
 * others. Not included outside src/runtime/ctl/shadow*.c (and tests/unit/test_shadow_policy.c).
 *
 * Invariants: the shared page is mapped MAP_SHARED before any clone, so shadows add into it
 * with atomics and the parent reads it; it is never made read-only in a shadow. A syscall made
 * by our own code in a shadow carries HP_SHADOW cookie in its 6th argument register (an argument
 * the call does not have), which the filter lets through; the program's calls never do.
 */
#ifndef HOTPROF_RUNTIME_CTL_SHADOW_INT_H
#define HOTPROF_RUNTIME_CTL_SHADOW_INT_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/base.h"
#include "runtime/ctl/shadow.h"

#define HP_SHADOW_PROFILE_FD 1021 /* a shadow's profile descriptor (the filter lets writes to it pass) */
#define HP_SHADOW_NULL_FD 1020    /* /dev/null in a shadow: descriptors opened for writing are dups of it */
#define HP_SHADOW_TRACK_FDS 1024  /* descriptors whose private read offset a shadow tracks */
#define HP_SHADOW_TICK_PARENT 0x68707331 /* sigev_value of the monitor's timer */
#define HP_SHADOW_TICK_CHILD 0x68707332  /* ... of a shadow's sample-size timer */

/* System-call categories (the paper's §3.2 table). */
enum { HP_SYS_BENIGN = 0, HP_SYS_OUTPUT = 1, HP_SYS_INPUT = 2, HP_SYS_UNSAFE = 3, HP_SYS_NCAT = 4 };
/* What the SIGSYS handler does with a trapped call. */
enum {
    HP_ACT_RUN = 0,     /* execute it (with the cookie) and return its result */
    HP_ACT_RETURN_N,    /* output: report success without doing it; returns the byte count (arg 2 or the iovecs) */
    HP_ACT_RETURN_0,    /* output: report success (0) without doing it */
    HP_ACT_OPEN,        /* open/openat/creat: read-only runs, anything that may write gets a /dev/null dup */
    HP_ACT_READ,        /* read/readv: a regular file at the shadow's own offset, some devices run, else end */
    HP_ACT_LSEEK,       /* lseek on the shadow's own offset */
    HP_ACT_CLOSE,       /* close: runs, and forgets the descriptor's offset */
    HP_ACT_MPROTECT,    /* runs unless it makes a protected shared mapping writable (then end) */
    HP_ACT_EXIT,        /* the program exits in the shadow: end it (profile written) */
    HP_ACT_END          /* input from the world or unsafe: end the shadow */
};
typedef struct hp_sys_rule { int nr; uint8_t cat, act; } hp_sys_rule;
/* The rule of call nr with arguments a (some calls depend on them: fcntl's command, ioctl's
 * request, mmap's descriptor, rt_sigaction's signal); unknown calls: unsafe, end. sig is the
 * monitor's signal (a shadow may not take it over, nor SIGSYS, SIGSEGV, SIGBUS). */
hp_sys_rule hp_shadow_rule(long nr, const uint64_t a[6], int sig);
/* The calls the policy may RUN (the filter's cookie rules): *n entries. */
const int *hp_shadow_run_calls(size_t *n);

/* Why a shadow ended (INFO shadow.end.<name>). */
enum { HP_END_SAMPLE = 0, HP_END_INPUT, HP_END_UNSAFE, HP_END_SHARED_WRITE, HP_END_FAULT, HP_END_EXIT, HP_END_SETUP,
       HP_END_PARENT_EXIT, HP_END_SLICE, HP_END_N };
const char *hp_shadow_end_name(int reason);

#define HP_SHADOW_DENSITY_MIN_EVENTS 1000u /* a shadow's density counts from this many events */

/* The page every shadow adds into (MAP_SHARED, made before the first clone). */
typedef struct hp_shadow_shared {
    uint64_t end[HP_END_N];   /* shadows ended, by reason (the shadow adds) */
    uint64_t sys[HP_SYS_NCAT];/* trapped system calls by category (shadows add at their end) */
    uint64_t events;          /* calls + blocks recorded by shadows that wrote a profile */
    uint64_t cpu_ns;          /* their CPU time */
    uint64_t native_ns;       /* the native time their events stand for (estimated: shadow_child.c) */
    uint64_t written;         /* shadows whose profile was written */
    uint64_t parent_exiting;  /* 1: the parent is exiting (hp_shadow_exit): shadows write what they have and end */
    uint64_t calibrated;      /* shadows whose native_ns came from their calibrated event rate (shadow_rate.c) */
    uint64_t density_sum;     /* calibrated shadows' events per native ms (calls + blocks / their native_ns), summed */
    uint64_t density_n;       /* ... and how many (those with HP_SHADOW_DENSITY_MIN_EVENTS at least) */
} hp_shadow_shared;

/* shadow.c: the state the child needs. */
typedef struct hp_shadow_cfg {
    hp_shadow_spec spec;
    hp_shadow_ops ops;
    uint64_t cookie;
    hp_shadow_shared *shared;
} hp_shadow_cfg;
extern const hp_shadow_cfg *hp_shadow_cfg_get(void);

/* shadow_filter.c: builds the BPF program (parent, init). 0 or -1 with err. */
int hp_shadow_filter_build(uint64_t cookie, char *err, size_t errlen);
/* Installs it in the calling (shadow) process: 0 or -1. */
int hp_shadow_filter_install(void);

/* shadow_child.c */
void hp_shadow_child_begin(uint64_t n, int parent_pid); /* in the clone child, inside the tick handler */
void hp_shadow_child_tick(void);                       /* the child's CPU timer: sample size reached? */
void hp_shadow_child_parent_check(void);               /* PDEATHSIG (the monitor's signal): process gone? exit */
void hp_shadow_child_end(int reason);                  /* write the profile, exit (never returns) */
size_t hp_shadow_child_info(char *out, size_t cap);
int hp_shadow_protected(uint64_t addr, uint64_t len);   /* 1 if [addr, addr+len) meets a protected shared mapping */

/* shadow_rate.c: the native event rate (coverage estimate). prepare: parent, start (maps count
 * mode's trampolines); begin: the shadow, before its filter (sites to the trampolines); tick:
 * every child tick (closes a window; after the last, sites to the instrumented copies);
 * native_ns: 1 with *ns set if the shadow calibrated; info: its shadow.rate_per_ms line. */
void hp_shadow_rate_prepare(void);
void hp_shadow_rate_begin(void);
void hp_shadow_rate_tick(uint64_t cpu_now);
int hp_shadow_rate_native_ns(uint64_t *ns);
uint64_t hp_shadow_rate_extra_ns(void); /* while calibrating: no slice end (UINT64_MAX / 4); else 0 */
size_t hp_shadow_rate_info(char *out, size_t n, size_t cap);
/* loops: at p a loop of rdi iterations whose 5-byte site is `op rel32` (rel from p + 5), at p + 32
 * the same loop with a 5-byte nop: what cost_ns times. */
void hp_shadow_rate_loops(uint8_t *p, uint8_t op, int32_t rel);
/* cost_ns: a site's cost per event, ns (>= 0): a loop of 50000 iterations through it against the
 * same loop through a 5-byte nop (interleaved, best of 3; each loop takes its count in rdi). */
double hp_shadow_rate_cost_ns(const uint8_t *with_loop, const uint8_t *nop_loop);
/* hold_end: the shadow reached its sample or slice; 1 while it must run on to calibrate. */
int hp_shadow_rate_hold_end(uint64_t cpu_now);
/* shadow_rate_sites.c: the same without two-version code, through the hook call sites (sites.c).
 * prepare: the shadow, before its filter: the stub's page and its cost per event (*cost_ns); 1
 * if ready. begin: at the end of the recording, the sites to the stub (1) or nothing changed (0).
 * count: calls + blocks counted by the stub. */
int hp_shadow_rate_sites_prepare(double *cost_ns);
int hp_shadow_rate_sites_begin(void);
uint64_t hp_shadow_rate_sites_count(void);

/* shadow_sys.c */
void hp_shadow_sys_install(void);                      /* the SIGSYS handler (child, before the filter) */
uint64_t hp_shadow_sys_count(int cat);                 /* this shadow's trapped calls of a category */

/* The raw system call: the result or -errno; a6 is the 6th argument register (the cookie). */
static inline __attribute__((no_instrument_function)) long hp_sys6(long nr, uint64_t a1, uint64_t a2, uint64_t a3,
                                                                  uint64_t a4, uint64_t a5, uint64_t a6)
{
    long ret;
    register uint64_t r10 __asm__("r10") = a4;
    register uint64_t r8 __asm__("r8") = a5;
    register uint64_t r9 __asm__("r9") = a6;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

#endif

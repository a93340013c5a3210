/* base.h — the bottom of libhotprof_rt: the process state in ONE struct (hp_g), the atomics and
 * attribute macros every runtime file uses, and the leaf helpers (anonymous mmap, async-signal-
 * safe number formatting and stderr lines, the monotonic clock, per-thread seeds). Not installed.
 *
 * Layering (docs/runtime.md, Sources): base <- config <- tab, thread, blockmap, modules <- ctl/ <- pt/
 * <- writer, live <- init, api <- hooks. A file includes only headers of its own level or below; base
 * includes nothing of the runtime. base.c is the ONLY file that defines process globals (hp_g);
 * file-static state that belongs to one file (the writer's buffer, the sites tables, the control
 * thread's schedule) stays in that file and says so in its header comment.
 *
 * hp_g fields: written by init (before `recording` is published with release) or by the code
 * named beside each field; read everywhere. The fields hooks read on every event (bursty, patch,
 * bmap) are in the first cache line; the patched-burst words (pb), which every hook in a window
 * decrements, have a line of their own so that they do not bounce the read-mostly line.
 *
 * Every function of the runtime is marked HP_NOINST (no_instrument_function). The runtime is
 * never compiled with -finstrument-functions or -fsanitize-coverage (see Makefile), but the mark
 * keeps it safe if someone adds those flags to CFLAGS.
 *
 * Async-signal-safety: everything declared here is async-signal-safe (memory, mmap, write,
 * clock_gettime) except hp_rt_ensure_init's first call (see init.h).
 */
#ifndef HOTPROF_RUNTIME_BASE_H
#define HOTPROF_RUNTIME_BASE_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/bursty.h"

#define HP_NOINST __attribute__((no_instrument_function))
#define HP_API __attribute__((visibility("default"), no_instrument_function))
#define HP_LIKELY(x) __builtin_expect(!!(x), 1)
#define HP_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define HP_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define HP_LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define HP_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define HP_STORE_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/* Owner-only increment that other threads may read concurrently: one plain add on x86.
 * A function, not a macro, so that its argument (often a table lookup) is evaluated once. */
static inline __attribute__((no_instrument_function)) void hp_bump(uint64_t *p)
{
    HP_STORE_RLX(p, HP_LOAD_RLX(p) + 1);
}
#define HP_BUMP(p) hp_bump(p)

/* hp_g.pathval bits (pt/pathval.h). */
enum { HP_PV_RT_PATH = 1, HP_PV_RT_VALUES = 2 };

/* hp_g.xray: how XRay sleds are used (ctl/xray.c). */
enum { HP_XRAY_NONE = 0, HP_XRAY_BURSTS = 1, HP_XRAY_ALL = 2 };

struct hp_bmap;
struct hp_thread;

/* The whole process-wide state of the runtime. */
typedef struct hp_process {
    /* ---- read-mostly: set by init, read by hooks and slow paths */
    int recording;            /* init decided to record (mode != off, output open) */
    int bursty;               /* HOTPROF_MODE=bursty (set by init before recording) */
    int stopped;              /* final group written, or fork child: hooks record nothing */
    int patch;                /* bursty over patched hook call sites (ctl/sites.c; INFO mode=patch) */
    int xray;                 /* HP_XRAY_*: sleds drive bursts (INFO mode=xray) or record every call */
    int dual;                 /* HP_DUAL_*: what two-version code's instrumented copies do (ctl/dual.h) */
    int osp;                  /* subpaths: HP_OSP_RT_* (pt/subpath.h; set by init before recording) */
    uint32_t guards;          /* highest coverage guard id assigned so far (blockmap.c) */
    uint32_t trace_kind;      /* pt/trace.c: the kind of tuple traced (--record-trace), 0: none */
    uint32_t iv_streams;      /* pt/intervals.c: bit per interval-profiled stream (value 1, edges 2) */
    uint32_t pathval;         /* pt/pathval.h: HP_PV_RT_* bits, the path / value profiles recorded */
    uint32_t shadow_pathval;  /* shadow mode: the bits a shadow sets in pathval when it starts (init;
                               * the parent itself records none: ctl/shadow_child.c) */
    struct hp_bmap *bmap;     /* guard id -> {pc, flags, fn} (blockmap.c; release/acquire) */
    struct hp_thread *threads;/* every thread's state (thread.c: lock-free push, never popped) */
    uint64_t seed;            /* the run seed (HOTPROF_SEED or clock and pid; file header, INFO) */
    hp_bursty_config bcfg;    /* bursty: the shared controller configuration (core/control/bursty.h) */
    /* ---- patched bursts (ctl/bursts.c): shared by every hook in a window */
    struct {
        int64_t left;         /* units left in the current window (<= 0: none) */
        uint32_t mask;        /* types recording now (0 outside windows) */
        uint32_t epoch;       /* current window number: threads reset their call state on a change */
    } pb __attribute__((aligned(64))); /* (the struct's size rounds up to 64: the line is its own) */
} hp_process;

extern hp_process hp_g;

void *hp_map(size_t bytes); /* mmap anonymous, zeroed, MAP_NORESERVE; NULL on failure */
/* Starts fn(arg) in a detached thread of the runtime's own; 0, or pthread_create's error. */
int hp_spawn_detached(void *(*fn)(void *), void *arg);

size_t hp_fmt_u64(char *out, uint64_t v);        /* decimal, no NUL; returns length */
size_t hp_fmt_hex(char *out, uint64_t v);        /* 0x..., no NUL */
void hp_say(const char *const *parts, size_t n); /* write the parts and a newline to stderr in one write */
uint64_t hp_now_ns(void);                        /* CLOCK_MONOTONIC (vDSO) */
/* INFO lines: append "k1.k2=v\n" (k2 NULL: "k1=v\n") at out + at and a NUL after it, if the line
 * and the NUL fit in cap; return the new length (at unchanged when it does not fit). */
size_t hp_info_str(char *out, size_t at, size_t cap, const char *k1, const char *k2, const char *v);
size_t hp_info_u64(char *out, size_t at, size_t cap, const char *k1, const char *k2, uint64_t v);
/* The text of an errno a profile open or write meets (strerror is not async-signal-safe). */
const char *hp_errno_text(int e);
/* The controller seed of the thread created index-th (0, 1, ...): derived from hp_g.seed. */
uint64_t hp_thread_seed(uint64_t index);

#endif

/* bursty.h — the HPS bursty-sampling controller as per-thread arithmetic (docs/bursty.md).
 *
 * HPS (hps-hybrid-profiling-support.txt, Section 4.2, Figure 4) keeps two counters per profile
 * type: a SAMPLING counter (counter_1, overflow flag OF1 = "the sampling flag") advanced at calls
 * and loop back-edges while sampling is off, and a BURST counter (counter_2, OF2) advanced at the
 * same events while it is on. The Figure 4 productions, per boundary event (call or back-edge):
 *
 *   P1/P2  !OF1          -> CC1: inc_1      (sampling off; OF1 goes up after `period` of these)
 *   P3/P4  OF1 && !OF2   -> CC2: inc_2      (in a burst;   OF2 goes up after `burst - 1` of these)
 *   P5/P6  OF1 && OF2    -> CC3: set_1(sampleFreq); set_2(burstLength)   (burst over: both reset)
 *
 * and Figure 5's profile productions record an event of interest iff OF1 is set when the event is
 * matched (before Figure 4's microinstructions for that same event run). So per cycle exactly
 * `period` (S, the paper's "sparsity") boundary events see the flag off, then exactly `burst` (B)
 * see it on — the last of them being P5/P6 — and frequency = B / (B + S) (Section 5) holds exactly.
 *
 * Software form. Each profile type t keeps its own pair of counters as one countdown `left`
 * (events to the end of its current phase: off = counter_1's phase, on = counter_2's). The fast
 * path does not touch them: it decrements ONE shared countdown, the number of boundary events until
 * the earliest phase end of any enabled type (or until the next configuration poll), and calls the
 * out-of-line slow path when it reaches 0. The slow path subtracts the elapsed events from every
 * type, runs the CC1/CC2/CC3 transitions that are due, and re-arms. Whenever any type is in a burst
 * the countdown is armed to 1, so the fast path is only ever taken while NO type samples and it can
 * return the constant 0: one decrement, one predictable branch.
 * Types with equal period, burst and jitter whose cycles begin at one event share the jittered
 * off-phase draw, so they stay in step and one burst serves them all (count mode enters the
 * instrumented copy once for methods and call pairs, not twice); each type's phases keep their
 * distribution, the types are only no longer independent of each other.
 *
 * Folded bursts (hp_bursty_set_fold). A burst normally costs two slow paths: one at the last
 * off event (OF1 goes up), one at the burst's first event. For the types the caller names as
 * foldable, when the earliest phase end is the off-phase end of foldable types only, the
 * countdown is armed one event further: the slow path runs at the burst's first event and does
 * both steps there (the off phases' end, then that event's own transitions; for B = 1 the burst
 * also ends there). Every boundary event sees the same flags as without the fold, and
 * hp_bursty_on shows the folded types' flags between the last off event and the burst's first
 * (countdown == 1 with `folded` set), so the record is the same event by event. Only what runs
 * at which event moves: config switches apply after the burst's first event instead of the
 * last off event (hp_bursty_events_until_sync says so). Callers fold a type only where nothing
 * needs the slow path at the off phase's end (count mode's clean code runs between the two).
 *
 * Types in lockstep. When every enabled type has the same settings and the same phase (the
 * usual case: twins since their common start), the slow path runs the transitions of the lowest
 * enabled type only and copies them to the others (the draw the others would have shared);
 * any other state, and any configuration change, takes the general path.
 *
 * Invariants of hp_bursty_state between events:
 *   countdown >= 1;  on_mask != 0  =>  countdown == armed == 1 and folded == 0;
 *   folded != 0  =>  on_mask == 0, armed >= 2, folded is a subset of fold_types, and the types in
 *   folded are exactly the enabled ones with left == armed - 1, the least left of all;
 *   for every enabled type t: 1 <= t.left - (armed - countdown) + (t in folded);
 *   disabled types: left == 0, bit clear;
 *   on_mask, left and the per-type counts change only in the slow path.
 *
 * Run-time changes: parameters live in a shared hp_bursty_config (atomics, a seqlock generation).
 * A thread reads it only on its slow path. New period/burst/jitter of a type apply from the type's
 * next counter reset — CC3 at the end of its current burst — at a boundary event processed after
 * the change was published: the cycle in progress (off phase and its burst) keeps the values it
 * was loaded with, as set_1/set_2 load both counters together in Figure 4. Enable/disable/restart apply right after the
 * thread's first slow-path event after publication: at most `poll` boundary events later
 * (hp_bursty_events_until_sync says exactly when). Writers may be any threads, concurrently.
 *
 * Pure C11 core: no globals, no allocation, no system calls. One hp_bursty_state per thread.
 */
#ifndef HOTPROF_CORE_BURSTY_H
#define HOTPROF_CORE_BURSTY_H
#include <stdatomic.h>
#include <stdint.h>
#include "core/metrics/metrics.h"
#include "core/base/rng.h"

/* Profile types, each with its own period, burst length, jitter and on/off flag (bit 1u << type). */
enum hp_bursty_type {
    HP_BURSTY_METHODS = 0,      /* hot methods: calls and back-edges (Figure 5, P3) */
    HP_BURSTY_CALL_PAIRS = 1,   /* hot call pairs: calls (Figure 5, P2) */
    HP_BURSTY_EDGES = 2,        /* branch edges: back-edges and forward edges */
    HP_BURSTY_DATA_STREAMS = 3, /* hot data streams: memory references (Figure 5, P1) */
    HP_BURSTY_NTYPES = 4
};
#define HP_BURSTY_BIT(type) (1u << (type))
#define HP_BURSTY_ALL ((1u << HP_BURSTY_NTYPES) - 1u)

/* Event kinds. CALL and BACKEDGE are the boundary events that advance the counters. */
enum hp_bursty_kind { HP_BURSTY_CALL = 0, HP_BURSTY_BACKEDGE = 1, HP_BURSTY_EDGE = 2, HP_BURSTY_MEM = 3 };

/* Limits. period may be 0 (the type samples every event); burst >= 1; jitter in percent. */
#define HP_BURSTY_MAX_COUNT 0x40000000u
#define HP_BURSTY_MAX_JITTER 99u
#define HP_BURSTY_DEFAULT_POLL 4096u
/* Default jitter (percent): each off phase S' is uniform in [S/2, 3S/2], so a fixed period cannot
 * alias with a periodic call pattern (issue 14: on a benchmark program live HPS at 1/1000 gave
 * methods / call pairs overlap 89.9% / 78.6% with jitter 0, the same for two seeds, and 95.4% /
 * 92.3% with 50, against 95.5% / 92.7% for the exhaustive profile against itself). The mean off
 * phase stays S, so the frequency stays B/(B+S). Set jitter=0 for exact, repeatable phases. */
#define HP_BURSTY_DEFAULT_JITTER 50u

typedef struct hp_bursty_params {
    uint32_t period;     /* S: boundary events with the flag off between two bursts (sparsity) */
    uint32_t burst;      /* B: boundary events with the flag on per burst */
    uint32_t jitter_pct; /* j: each off phase is S - w + U[0, 2w], w = floor(S * j / 100) */
    uint32_t enabled;    /* 0 or 1 */
} hp_bursty_params;

/* Shared, written by control code, read by every thread's slow path. Initialize with
 * hp_bursty_config_init; change only through the hp_bursty_config_* functions. */
typedef struct hp_bursty_config {
    _Atomic uint64_t generation; /* even: stable; odd: a writer is publishing */
    _Atomic uint32_t period[HP_BURSTY_NTYPES];
    _Atomic uint32_t burst[HP_BURSTY_NTYPES];
    _Atomic uint32_t jitter_pct[HP_BURSTY_NTYPES];
    _Atomic uint32_t restart_epoch[HP_BURSTY_NTYPES];
    _Atomic uint32_t enabled_mask;
    _Atomic uint32_t poll; /* max boundary events between two slow paths, >= 1 */
} hp_bursty_config;

typedef struct hp_bursty_type_state {
    uint32_t left;          /* events to the end of the current phase, as of the last slow path */
    uint32_t period, burst, jitter_pct; /* configured: loaded at the next cycle start (CC3) */
    uint32_t cycle_period;  /* this cycle's off-phase length (S with jitter), fixed at its start */
    uint32_t cycle_burst;   /* this cycle's burst length, fixed at its start */
    uint32_t restart_epoch; /* last seen config restart_epoch */
    uint64_t events;        /* boundary events while enabled (exposure) */
    uint64_t sampled;       /* of those, events that saw the flag on */
} hp_bursty_type_state;

typedef struct hp_bursty_state {
    uint32_t countdown;    /* fast path: boundary events until the slow path (>= 1) */
    uint32_t on_mask;      /* OF1 of each type: bit set = the type is sampling */
    uint32_t armed;        /* countdown's value when last armed */
    uint32_t enabled_mask; /* types enabled for this thread */
    uint32_t poll;
    uint32_t fold_types;   /* types whose bursts may be folded (hp_bursty_set_fold); 0: none */
    uint32_t folded;       /* armed one past the off-phase end of these types; 0: not folded */
    uint32_t lockstep;     /* 1: every enabled type in step with the lowest (bursty.c lockstep_holds) */
    uint64_t seen_generation;
    hp_bursty_config *cfg;
    hp_rng rng;            /* jitter draws, in ascending type order at each event */
    hp_bursty_type_state t[HP_BURSTY_NTYPES];
} hp_bursty_state;

/* ---- shared configuration (any thread; writers are serialized by the generation) ---- */
/* Defaults (HPS Section 6): methods, call pairs, edges B=1, S=99; data streams B=100, S=9900
 * (frequency 1/100 each); jitter HP_BURSTY_DEFAULT_JITTER; every type disabled; poll HP_BURSTY_DEFAULT_POLL. */
void hp_bursty_config_init(hp_bursty_config *cfg);
/* 0 if the values are valid (burst 1..MAX_COUNT, period 0..MAX_COUNT, jitter 0..99). */
int hp_bursty_params_check(const hp_bursty_params *p);
/* Publishes all four values of one type as one generation. -1 (nothing changed) if invalid. */
int hp_bursty_config_set(hp_bursty_config *cfg, enum hp_bursty_type type, const hp_bursty_params *p);
/* Publishes every type at once (p[HP_BURSTY_NTYPES]). -1 if any is invalid (nothing changed). */
int hp_bursty_config_set_all(hp_bursty_config *cfg, const hp_bursty_params *p);
int hp_bursty_config_enable(hp_bursty_config *cfg, enum hp_bursty_type type, int enabled);
/* Each thread ends the type's current phase when it observes this and starts a fresh cycle. */
int hp_bursty_config_restart(hp_bursty_config *cfg, enum hp_bursty_type type);
int hp_bursty_config_set_poll(hp_bursty_config *cfg, uint32_t poll);
/* A consistent snapshot of one type's values (waits out a write in progress: control code only,
 * never a hook). 0, or -1 for a bad type. */
int hp_bursty_config_get(hp_bursty_config *cfg, enum hp_bursty_type type, hp_bursty_params *out);

/* ---- per-thread state ---- */
/* Adopts the current config: every enabled type starts an off phase (period with jitter). If a
 * write is in progress at that instant, the state starts with nothing enabled and adopts the
 * config at its first slow path (at most HP_BURSTY_DEFAULT_POLL boundary events later). */
void hp_bursty_init(hp_bursty_state *st, hp_bursty_config *cfg, uint64_t seed);
/* The types whose bursts may be folded (see "Folded bursts"; 0, the default, folds none).
 * Applies from the next arming. */
void hp_bursty_set_fold(hp_bursty_state *st, uint32_t types);
/* Slow path (countdown reached 0). Returns the types whose flag was on as the event matched. */
uint32_t hp_bursty_boundary_slow(hp_bursty_state *st);

/* Boundary event (a call or a loop back-edge): advances the counters of every type and returns
 * the set of types whose sampling flag (OF1) was on at this event. 0 on the fast path. */
static inline uint32_t hp_bursty_boundary(hp_bursty_state *st)
{
    if (__builtin_expect(--st->countdown != 0, 1)) return 0;
    return hp_bursty_boundary_slow(st);
}

/* Any event: the types sampling right now (no counter moves): the folded types too once their
 * off phase has ended (countdown 1). */
static inline uint32_t hp_bursty_on(const hp_bursty_state *st)
{
    return st->on_mask | (st->countdown == 1 ? st->folded : 0);
}

/* The types that record an event of this kind (Figure 5 and the edge type). */
static inline uint32_t hp_bursty_interest(enum hp_bursty_kind kind)
{
    switch (kind) {
    case HP_BURSTY_CALL: return HP_BURSTY_BIT(HP_BURSTY_METHODS) | HP_BURSTY_BIT(HP_BURSTY_CALL_PAIRS);
    case HP_BURSTY_BACKEDGE: return HP_BURSTY_BIT(HP_BURSTY_METHODS) | HP_BURSTY_BIT(HP_BURSTY_EDGES);
    case HP_BURSTY_EDGE: return HP_BURSTY_BIT(HP_BURSTY_EDGES);
    case HP_BURSTY_MEM: return HP_BURSTY_BIT(HP_BURSTY_DATA_STREAMS);
    }
    return 0;
}

/* One event of any kind: advances the counters if it is a boundary event and returns the types
 * that must record it (flag on at this event and interested in its kind). */
static inline uint32_t hp_bursty_event(hp_bursty_state *st, enum hp_bursty_kind kind)
{
    uint32_t on = kind <= HP_BURSTY_BACKEDGE ? hp_bursty_boundary(st) : hp_bursty_on(st);
    return on & hp_bursty_interest(kind);
}

/* The boundary event at which the slow path next runs is this many events away (1 = the next). */
static inline uint32_t hp_bursty_events_until_sync(const hp_bursty_state *st) { return st->countdown; }

/* ---- observation and scaling ---- */
enum hp_bursty_phase {
    HP_BURSTY_PHASE_DISABLED = 0,
    HP_BURSTY_PHASE_OFF = 1,        /* !OF1: the next boundary event is P1/P2 */
    HP_BURSTY_PHASE_BURST = 2,      /* OF1 && !OF2: the next boundary event is P3/P4 */
    HP_BURSTY_PHASE_BURST_DONE = 3  /* OF1 && OF2: the next boundary event is P5/P6 (CC3) */
};
int hp_bursty_phase(const hp_bursty_state *st, enum hp_bursty_type type);
/* Boundary events since init while the type was enabled, and how many of them saw the flag on. */
void hp_bursty_counts(const hp_bursty_state *st, enum hp_bursty_type type, uint64_t *events,
                      uint64_t *sampled);
/* sampled / events: the frequency actually applied (follows run-time changes); 0 if no events. */
double hp_bursty_observed_frequency(const hp_bursty_state *st, enum hp_bursty_type type);

/* frequency = burst / (burst + period) (HPS Section 5); scale = its inverse. */
double hp_bursty_frequency(uint32_t burst, uint32_t period);
double hp_bursty_scale(uint32_t burst, uint32_t period);
/* Estimated exhaustive count of a key sampled `sampled_count` times at `frequency`, with the
 * Chernoff interval of metrics.h (two-sided, hp_osp_count_bound with p_length = 1). */
hp_osp_bound hp_bursty_estimate(uint64_t sampled_count, double frequency, double confidence);

#endif

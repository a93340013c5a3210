/* bursty.c — the out-of-line half of the bursty-sampling controller (bursty.h, docs/bursty.md):
 * the slow path that runs the Figure 4 transitions, the seqlock that publishes and reads the
 * shared configuration, and the count scaling.
 *
 * Slow path, at the boundary event where the shared countdown reaches 0:
 *   1. sampled = on_mask (Figure 5 reads OF1 as the event matches);
 *   2. read the config if its generation moved (parameters now apply to reloads);
 *   3. account the `armed` elapsed events to every enabled type;
 *   4. per enabled type, in ascending order: left -= armed; at 0 run the due transition —
 *      off phase over (CC1 overflowed counter_1: OF1 up) -> burst of the cycle's B;
 *      burst over (P5/P6: CC3 reloads both counters)    -> new cycle: S' = S with jitter and B
 *                                                         fixed now; off phase of S', or straight
 *                                                         into the burst if S' = 0;
 *   5. apply enable / disable / restart read in step 2 (they act from the next event on);
 *   6. re-arm: 1 while any type is on, else min(left of enabled types, poll), one more when that
 *      is the off-phase end of foldable types only (bursty.h "Folded bursts"); a folded slow
 *      path first runs step 4 for the events up to that end (they saw every flag off).
 *
 * Seqlock: a writer CASes the generation from even g to g + 1, stores the fields, and releases
 * g + 2. A reader that sees an odd generation or a different one after copying the fields
 * keeps what it had and tries again at its next slow path (it never spins).
 */
#include "core/control/bursty.h"

/* ---- configuration: writers ----------------------------------------------------------------- */

static const hp_bursty_params default_params[HP_BURSTY_NTYPES] = {
    [HP_BURSTY_METHODS] = {99, 1, HP_BURSTY_DEFAULT_JITTER, 0},
    [HP_BURSTY_CALL_PAIRS] = {99, 1, HP_BURSTY_DEFAULT_JITTER, 0},
    [HP_BURSTY_EDGES] = {99, 1, HP_BURSTY_DEFAULT_JITTER, 0},
    [HP_BURSTY_DATA_STREAMS] = {9900, 100, HP_BURSTY_DEFAULT_JITTER, 0},
};

static int valid_type(int type) { return type >= 0 && type < HP_BURSTY_NTYPES; }

static uint64_t begin_write(hp_bursty_config *cfg)
{
    uint64_t g = atomic_load_explicit(&cfg->generation, memory_order_relaxed);
    for (;;) {
        g &= ~(uint64_t)1;
        if (atomic_compare_exchange_weak_explicit(&cfg->generation, &g, g + 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
    atomic_thread_fence(memory_order_release);
    return g;
}

static void end_write(hp_bursty_config *cfg, uint64_t g)
{
    atomic_store_explicit(&cfg->generation, g + 2, memory_order_release);
}

static void store_params(hp_bursty_config *cfg, int type, const hp_bursty_params *p)
{
    atomic_store_explicit(&cfg->period[type], p->period, memory_order_relaxed);
    atomic_store_explicit(&cfg->burst[type], p->burst, memory_order_relaxed);
    atomic_store_explicit(&cfg->jitter_pct[type], p->jitter_pct, memory_order_relaxed);
    uint32_t bit = HP_BURSTY_BIT(type);
    if (p->enabled)
        atomic_fetch_or_explicit(&cfg->enabled_mask, bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&cfg->enabled_mask, ~bit, memory_order_relaxed);
}

void hp_bursty_config_init(hp_bursty_config *cfg)
{
    atomic_init(&cfg->generation, 0);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        atomic_init(&cfg->period[t], default_params[t].period);
        atomic_init(&cfg->burst[t], default_params[t].burst);
        atomic_init(&cfg->jitter_pct[t], default_params[t].jitter_pct);
        atomic_init(&cfg->restart_epoch[t], 0);
    }
    atomic_init(&cfg->enabled_mask, 0);
    atomic_init(&cfg->poll, HP_BURSTY_DEFAULT_POLL);
}

int hp_bursty_params_check(const hp_bursty_params *p)
{
    if (!p || p->burst < 1 || p->burst > HP_BURSTY_MAX_COUNT) return -1;
    if (p->period > HP_BURSTY_MAX_COUNT || p->jitter_pct > HP_BURSTY_MAX_JITTER) return -1;
    return p->enabled > 1 ? -1 : 0;
}

int hp_bursty_config_set(hp_bursty_config *cfg, enum hp_bursty_type type, const hp_bursty_params *p)
{
    if (!valid_type((int)type) || hp_bursty_params_check(p) != 0) return -1;
    uint64_t g = begin_write(cfg);
    store_params(cfg, (int)type, p);
    end_write(cfg, g);
    return 0;
}

int hp_bursty_config_set_all(hp_bursty_config *cfg, const hp_bursty_params *p)
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++)
        if (hp_bursty_params_check(&p[t]) != 0) return -1;
    uint64_t g = begin_write(cfg);
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) store_params(cfg, t, &p[t]);
    end_write(cfg, g);
    return 0;
}

int hp_bursty_config_enable(hp_bursty_config *cfg, enum hp_bursty_type type, int enabled)
{
    if (!valid_type((int)type)) return -1;
    uint64_t g = begin_write(cfg);
    uint32_t bit = HP_BURSTY_BIT(type);
    if (enabled)
        atomic_fetch_or_explicit(&cfg->enabled_mask, bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&cfg->enabled_mask, ~bit, memory_order_relaxed);
    end_write(cfg, g);
    return 0;
}

int hp_bursty_config_restart(hp_bursty_config *cfg, enum hp_bursty_type type)
{
    if (!valid_type((int)type)) return -1;
    uint64_t g = begin_write(cfg);
    atomic_fetch_add_explicit(&cfg->restart_epoch[type], 1, memory_order_relaxed);
    end_write(cfg, g);
    return 0;
}

int hp_bursty_config_set_poll(hp_bursty_config *cfg, uint32_t poll)
{
    if (poll < 1 || poll > HP_BURSTY_MAX_COUNT) return -1;
    uint64_t g = begin_write(cfg);
    atomic_store_explicit(&cfg->poll, poll, memory_order_relaxed);
    end_write(cfg, g);
    return 0;
}

/* ---- configuration: readers (never spin) ---------------------------------------------------- */

typedef struct config_snapshot {
    uint64_t generation;
    uint32_t period[HP_BURSTY_NTYPES], burst[HP_BURSTY_NTYPES], jitter_pct[HP_BURSTY_NTYPES];
    uint32_t restart_epoch[HP_BURSTY_NTYPES];
    uint32_t enabled_mask, poll;
} config_snapshot;

static void copy_fields(hp_bursty_config *cfg, config_snapshot *s)
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        s->period[t] = atomic_load_explicit(&cfg->period[t], memory_order_relaxed);
        s->burst[t] = atomic_load_explicit(&cfg->burst[t], memory_order_relaxed);
        s->jitter_pct[t] = atomic_load_explicit(&cfg->jitter_pct[t], memory_order_relaxed);
        s->restart_epoch[t] = atomic_load_explicit(&cfg->restart_epoch[t], memory_order_relaxed);
    }
    s->enabled_mask = atomic_load_explicit(&cfg->enabled_mask, memory_order_relaxed);
    s->poll = atomic_load_explicit(&cfg->poll, memory_order_relaxed);
}

/* 1 with a consistent snapshot whose generation differs from `seen`; 0 if unchanged or busy. */
static int read_config(hp_bursty_config *cfg, uint64_t seen, config_snapshot *s)
{
    uint64_t g1 = atomic_load_explicit(&cfg->generation, memory_order_acquire);
    if (g1 == seen || (g1 & 1)) return 0;
    copy_fields(cfg, s);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&cfg->generation, memory_order_relaxed) != g1) return 0;
    s->generation = g1;
    return 1;
}

int hp_bursty_config_get(hp_bursty_config *cfg, enum hp_bursty_type type, hp_bursty_params *out)
{
    if (!valid_type((int)type) || !out) return -1;
    config_snapshot s;
    while (!read_config(cfg, 1, &s)) { /* 1 is odd: never a stable generation */
    }
    out->period = s.period[type];
    out->burst = s.burst[type];
    out->jitter_pct = s.jitter_pct[type];
    out->enabled = (s.enabled_mask >> type) & 1u;
    return 0;
}

/* ---- per-thread transitions ----------------------------------------------------------------- */

/* S with jitter: S - w + U[0, 2w], w = floor(S * j / 100); no draw when w = 0. */
static uint32_t draw_off_length(hp_bursty_state *st, const hp_bursty_type_state *ts)
{
    uint32_t w = (uint32_t)((uint64_t)ts->period * ts->jitter_pct / 100u);
    if (w == 0) return ts->period;
    return ts->period - w + (uint32_t)hp_rng_below(&st->rng, 2ull * w + 1);
}

/* OF1 goes up: a burst of B boundary events starts (the first B - 1 are P3/P4, the last P5/P6),
 * B as loaded into counter_2 at the cycle's start. */
static void start_burst(hp_bursty_state *st, int type)
{
    st->on_mask |= HP_BURSTY_BIT(type);
    st->t[type].left = st->t[type].cycle_burst;
}

/* A lower type that began a cycle at this very event (its off phase untouched) with the same
 * period, burst and jitter: the one whose draw `type` shares, or -1. */
static int cycle_twin(const hp_bursty_state *st, int type)
{
    const hp_bursty_type_state *ts = &st->t[type];
    for (uint32_t m = st->enabled_mask & ~st->on_mask & (HP_BURSTY_BIT(type) - 1u); m; m &= m - 1) {
        int u = __builtin_ctz(m);
        const hp_bursty_type_state *us = &st->t[u];
        if (us->period == ts->period && us->burst == ts->burst && us->jitter_pct == ts->jitter_pct &&
            us->cycle_burst == ts->burst && us->cycle_period != 0 && us->left == us->cycle_period)
            return u;
    }
    return -1;
}

/* CC3 (or a fresh cycle): set_1(sampleFreq) with jitter, set_2(burstLength); OF1 and OF2 down.
 * Both values of the new cycle are fixed here. S' = 0: the burst begins at once. Types with equal
 * settings whose cycles begin at one event share the jittered S' (cycle_twin), so they stay in
 * step: one burst serves them all (each type's own phases are distributed as before; they are
 * only no longer independent of each other). */
static void start_cycle(hp_bursty_state *st, int type)
{
    hp_bursty_type_state *ts = &st->t[type];
    int twin = cycle_twin(st, type);
    st->on_mask &= ~HP_BURSTY_BIT(type);
    ts->cycle_burst = ts->burst;
    ts->cycle_period = twin >= 0 ? st->t[twin].cycle_period : draw_off_length(st, ts);
    ts->left = ts->cycle_period;
    if (ts->left == 0) start_burst(st, type);
}

static void stop_type(hp_bursty_state *st, int type)
{
    st->on_mask &= ~HP_BURSTY_BIT(type);
    st->t[type].left = 0;
}

static void advance_type(hp_bursty_state *st, int type, uint32_t elapsed)
{
    hp_bursty_type_state *ts = &st->t[type];
    ts->left -= elapsed;
    if (ts->left != 0) return;
    if (st->on_mask & HP_BURSTY_BIT(type))
        start_cycle(st, type);     /* P5/P6: the burst's last event; CC3 */
    else
        start_burst(st, type);     /* P1/P2 whose CC1 overflowed counter_1 */
}

/* Steps 3 and 4 in one ascending pass over the enabled types: a type's accounting touches only
 * its own counters, which no transition reads. */
static void account_and_advance(hp_bursty_state *st, uint32_t elapsed, uint32_t sampled)
{
    for (uint32_t m = st->enabled_mask; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        st->t[t].events += elapsed;
        st->t[t].sampled += (sampled >> t) & 1u;
        advance_type(st, t, elapsed);
    }
}

static void adopt_params(hp_bursty_state *st, const config_snapshot *s)
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        st->t[t].period = s->period[t];
        st->t[t].burst = s->burst[t];
        st->t[t].jitter_pct = s->jitter_pct[t];
    }
    st->poll = s->poll;
    st->seen_generation = s->generation;
}

/* Enable, disable and restart, in ascending type order. */
static void adopt_switches(hp_bursty_state *st, const config_snapshot *s)
{
    for (int t = 0; t < HP_BURSTY_NTYPES; t++) {
        uint32_t bit = HP_BURSTY_BIT(t);
        int was = (st->enabled_mask & bit) != 0, now = (s->enabled_mask & bit) != 0;
        int restart = s->restart_epoch[t] != st->t[t].restart_epoch;
        st->t[t].restart_epoch = s->restart_epoch[t];
        if (!now) {
            stop_type(st, t);
            st->enabled_mask &= ~bit;
        } else if (!was || restart) {
            st->enabled_mask |= bit;
            start_cycle(st, t);
        }
    }
}

/* 1 when every enabled type has the settings, the phase and the cycle of the lowest one, so
 * the general path would make the same transitions for each, the others taking the lowest's
 * draw (cycle_twin): on, off and folded are all of them or none. */
static uint32_t lockstep_holds(const hp_bursty_state *st)
{
    uint32_t en = st->enabled_mask;
    if (!en || (st->on_mask && st->on_mask != en) || (st->folded && st->folded != en)) return 0;
    const hp_bursty_type_state *lead = &st->t[__builtin_ctz(en)];
    for (uint32_t m = en & (en - 1); m; m &= m - 1) {
        const hp_bursty_type_state *ts = &st->t[__builtin_ctz(m)];
        int settings = ts->period == lead->period && ts->burst == lead->burst && ts->jitter_pct == lead->jitter_pct;
        int phase = ts->left == lead->left && ts->cycle_period == lead->cycle_period &&
                    ts->cycle_burst == lead->cycle_burst;
        if (!settings || !phase) return 0;
    }
    return 1;
}

/* Arms the countdown to the earliest phase end, `next` events on, where the types `ending` end
 * their phases: one event further (folded) when they are all foldable and off, before the poll. */
static void arm_at(hp_bursty_state *st, uint32_t next, uint32_t ending)
{
    st->folded = 0;
    if (!st->on_mask && next < st->poll && ending && !(ending & ~st->fold_types)) {
        st->folded = ending;
        next++;
    }
    st->countdown = st->armed = next;
}

/* Step 6. */
static void arm(hp_bursty_state *st)
{
    uint32_t next = st->poll, ending = 0;
    if (st->on_mask) next = 1;
    for (uint32_t m = st->enabled_mask; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        uint32_t left = st->t[t].left;
        if (left < next) next = left, ending = 0;
        if (left == next) ending |= HP_BURSTY_BIT(t);
    }
    arm_at(st, next, ending);
    st->lockstep = lockstep_holds(st);
}

void hp_bursty_init(hp_bursty_state *st, hp_bursty_config *cfg, uint64_t seed)
{
    *st = (hp_bursty_state){0};
    st->cfg = cfg;
    st->poll = HP_BURSTY_DEFAULT_POLL;
    st->seen_generation = 1; /* odd: the first read always adopts */
    hp_rng_seed(&st->rng, seed);
    config_snapshot s;
    if (read_config(cfg, st->seen_generation, &s)) {
        adopt_params(st, &s);
        adopt_switches(st, &s);
    }
    arm(st);
}

/* The slow path when the configuration's generation moved: steps 2-6 with a fresh snapshot (or,
 * if the write is in progress or torn, with what the thread had). */
static __attribute__((noinline)) void boundary_with_config(hp_bursty_state *st, uint32_t elapsed, uint32_t sampled)
{
    config_snapshot s;
    int changed = read_config(st->cfg, st->seen_generation, &s);
    if (changed) adopt_params(st, &s);
    account_and_advance(st, elapsed, sampled);
    if (changed) adopt_switches(st, &s);
    arm(st);
}

void hp_bursty_set_fold(hp_bursty_state *st, uint32_t types)
{
    st->fold_types = types & HP_BURSTY_ALL;
    if (st->countdown == st->armed) arm(st); /* no event since the arming: arm it again */
}

/* The lowest enabled type's transitions at this event, the fold's first step included (the
 * events up to its off phase's end, which start its burst). */
static void lead_transitions(hp_bursty_state *st, int type, uint32_t elapsed)
{
    if (st->folded) {
        st->folded = 0;
        advance_type(st, type, elapsed - 1);
        elapsed = 1;
    }
    advance_type(st, type, elapsed);
}

/* The slow path of types in lockstep: the lowest's transitions, copied to the others. A new
 * cycle's draw is the one they would take from it (cycle_twin); an empty off phase cannot be
 * shared, but it comes only from period 0 (j <= 99 keeps S' >= S - w >= 1 otherwise), where
 * every type's S' is 0 without a draw: the same copy. */
static uint32_t lockstep_slow(hp_bursty_state *st)
{
    uint32_t en = st->enabled_mask, elapsed = st->armed;
    int type = __builtin_ctz(en);
    hp_bursty_type_state *lead = &st->t[type];
    uint32_t was_on = st->on_mask || st->folded, sampled = was_on ? en : 0;
    lead_transitions(st, type, elapsed);
    st->on_mask = st->on_mask & HP_BURSTY_BIT(type) ? en : 0;
    for (uint32_t m = en; m; m &= m - 1) {
        hp_bursty_type_state *ts = &st->t[__builtin_ctz(m)];
        ts->events += elapsed;
        ts->sampled += was_on;
        ts->left = lead->left, ts->cycle_period = lead->cycle_period, ts->cycle_burst = lead->cycle_burst;
    }
    /* arm() for types in step: their phases all end lead->left events on, and they stay in step */
    arm_at(st, st->on_mask ? 1 : lead->left < st->poll ? lead->left : st->poll, en);
    return sampled;
}

uint32_t hp_bursty_boundary_slow(hp_bursty_state *st)
{
    uint64_t generation = atomic_load_explicit(&st->cfg->generation, memory_order_acquire);
    int config_moved = generation != st->seen_generation;
    if (__builtin_expect(st->lockstep && !config_moved, 1)) return lockstep_slow(st);
    uint32_t elapsed = st->armed;
    if (st->folded) { /* the last off event's transitions first: the folded types' bursts begin */
        st->folded = 0;
        account_and_advance(st, elapsed - 1, 0);
        elapsed = 1;
    }
    uint32_t sampled = st->on_mask;
    if (__builtin_expect(config_moved, 0)) {
        boundary_with_config(st, elapsed, sampled);
        return sampled;
    }
    account_and_advance(st, elapsed, sampled); /* the usual case: no snapshot to take */
    arm(st);
    return sampled;
}

/* ---- observation ---------------------------------------------------------------------------- */

/* Events of the current arming already taken on the fast path. */
static uint32_t pending_events(const hp_bursty_state *st) { return st->armed - st->countdown; }

int hp_bursty_phase(const hp_bursty_state *st, enum hp_bursty_type type)
{
    if (!valid_type((int)type) || !(st->enabled_mask & HP_BURSTY_BIT(type))) return HP_BURSTY_PHASE_DISABLED;
    uint32_t left = st->t[type].left - pending_events(st);
    if (st->countdown == 1 && (st->folded & HP_BURSTY_BIT(type))) /* its off phase has ended */
        return st->t[type].cycle_burst == 1 ? HP_BURSTY_PHASE_BURST_DONE : HP_BURSTY_PHASE_BURST;
    if (!(st->on_mask & HP_BURSTY_BIT(type))) return HP_BURSTY_PHASE_OFF;
    return left == 1 ? HP_BURSTY_PHASE_BURST_DONE : HP_BURSTY_PHASE_BURST;
}

void hp_bursty_counts(const hp_bursty_state *st, enum hp_bursty_type type, uint64_t *events,
                      uint64_t *sampled)
{
    uint64_t e = 0, s = 0;
    if (valid_type((int)type)) {
        e = st->t[type].events;
        s = st->t[type].sampled;
        if (st->enabled_mask & HP_BURSTY_BIT(type)) e += pending_events(st);
    }
    if (events) *events = e;
    if (sampled) *sampled = s;
}

double hp_bursty_observed_frequency(const hp_bursty_state *st, enum hp_bursty_type type)
{
    uint64_t e, s;
    hp_bursty_counts(st, type, &e, &s);
    return e ? (double)s / (double)e : 0.0;
}

/* ---- scaling -------------------------------------------------------------------------------- */

double hp_bursty_frequency(uint32_t burst, uint32_t period)
{
    if (burst == 0) return 0.0;
    return (double)burst / ((double)burst + (double)period);
}

double hp_bursty_scale(uint32_t burst, uint32_t period)
{
    if (burst == 0) return 0.0;
    return ((double)burst + (double)period) / (double)burst;
}

hp_osp_bound hp_bursty_estimate(uint64_t sampled_count, double frequency, double confidence)
{
    return hp_osp_count_bound(sampled_count, frequency, 1.0, confidence, 0);
}

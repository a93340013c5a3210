/* ctl.h — controllers' mechanisms in the runtime: patched bursts (bursts.c) and their backends,
 * the hook call sites (sites.c) and XRay sleds (xray.c). Each controller's arithmetic lives in
 * src/core/control/ (window_plan.h for the schedule); what is here is how it acts on the process.
 *
 * A backend is a way to make hooks run (on) and not run at all (off). A new backend (a timer,
 * a shadow) fills an hp_pb_backend and calls hp_pb_start; a new controller that does not use
 * windows gets its own file here and its own start function, called by init.
 *
 * Layering: ctl/ uses base, config (fields only, passed as arguments), tab, thread; it is used
 * by hooks (hp_pb_take, hp_sites_note), the writer (hp_pb_info) and init (probe/start).
 * State: hp_g.pb (the words every hook in a window shares) and hp_g.patch/hp_g.xray; each file's
 * own control state is file-static there and says so.
 */
#ifndef HOTPROF_RUNTIME_CTL_H
#define HOTPROF_RUNTIME_CTL_H
#include <stddef.h>
#include <stdint.h>
#include "runtime/base.h"
#include "core/control/window_plan.h"

/* ---------------------------------------------------------------- patched bursts (bursts.c) */

/* A way to make hooks run (on) and not run at all (off): XRay sleds (xray.c) or the compiler's
 * hook call sites (sites.c). Called by the control thread only. */
typedef struct hp_pb_backend {
    const char *prefix;                      /* INFO key prefix: "xray" or "patch" */
    void (*on)(void);
    void (*off)(void);
    void (*tick)(void);                      /* between windows, every ~1 ms (may be NULL) */
    /* Called by the hook that takes a window's last unit, in the program's thread: turn the
     * hooks off now if that is cheap and safe there (never blocks; may do nothing). NULL: no. */
    void (*off_now)(void);
    size_t (*info)(char *out, size_t cap);   /* extra INFO lines (may be NULL; signal-safe) */
} hp_pb_backend;

typedef hp_window_plan hp_pb_schedule; /* core/control/window_plan.h: W, S', every k-th window per type */

int hp_pb_take(void);        /* a boundary event in a window: 1 if it took a unit (record it) */
/* The schedule of the enabled types among the `types` bits; -1 if none of them is enabled. */
int hp_pb_schedule_from_config(hp_pb_schedule *s, uint32_t min_window, uint32_t types);
/* Init: starts the control thread over b for the enabled types among `types` (-1: none/failed). */
int hp_pb_start(const hp_pb_backend *b, uint32_t min_window, uint32_t types);
size_t hp_pb_info(char *out, size_t cap); /* "<prefix>.*" INFO lines (async-signal-safe) */
/* Subpaths in patched windows (docs/osp.md): the mask bit of a window that records subpaths, and
 * the function the control thread calls after such a window w closes, with the time since the
 * last window closed up to this one's opening (off_ns), the time it recorded (on_ns), the
 * program's share of that time (the hooks' time out) and TSC ticks per ns (0: unknown); it returns the off interval subpaths want
 * next (ns; 0: not known). Set before the probe (init): windows then carry HP_PB_BIT_SUBPATH,
 * and a run with no HPS type enabled still has windows (subpath-only, timed by that interval). */
#define HP_PB_BIT_SUBPATH (1u << HP_BURSTY_NTYPES)
typedef uint64_t (*hp_pb_window_fn)(uint32_t w, uint64_t off_ns, uint64_t on_ns, double share, double tsc_per_ns);
/* open: called when window w's hooks are on, just before it starts recording. */
void hp_pb_set_subpath(void (*open)(uint32_t w), hp_pb_window_fn end);

/* ---------------------------------------------------------------- XRay (xray.c) */

int hp_xray_present(void);   /* the program has XRay sleds */
/* Init, bursty mode: sets hp_g.xray = HP_XRAY_BURSTS if XRay bursts are usable. wish:
 * HP_XRAY_WISH_* (config.h). 1 if XRay bursts are on. */
int hp_xray_probe(int quiet, int wish);
/* Init, exhaustive mode: if the program has sleds and no coverage guards, sets hp_g.xray =
 * HP_XRAY_ALL (every sled patched, every call recorded). 1 if so. */
int hp_xray_probe_all(int wish);
void hp_xray_start(void);    /* init, output open: handler, then bursts or every sled patched */

/* ---------------------------------------------------------------- patched call sites (sites.c) */

/* Init, bursty mode: 1 (and hp_g.patch set) if call sites can be patched here. bursts:
 * enum hp_bursts_mode, bursts_unknown: HOTPROF_BURSTS was not a mode (warned unless quiet),
 * window: units per window at least (config.h). */
int hp_sites_probe(int quiet, int bursts, int bursts_unknown, uint32_t window);
void hp_sites_start(void);   /* init, output open: the control thread */
/* A hook ran outside a window: remember its call site (the 5 bytes before ret, if they are a
 * direct call to hook or to a PLT stub of it) so the control thread turns it off. Signal-safe. */
void hp_sites_note(uint64_t ret, uint64_t hook);
/* The call-site backend itself, for a backend that switches call sites and more (ctl/dual.c). */
const hp_pb_backend *hp_sites_backend(void);
/* The backend of two-version code (dual.c): its sites and sites.c's call sites together. */
const hp_pb_backend *hp_dual_backend(void);
/* Shadow mode (shadow.c): the parent's sites off for good, no windows (1 if usable); the monitor
 * thread's pass over newly found sites (returns the sites off); a shadow's pass turning every
 * listed site back on (one thread: no lock). */
int hp_sites_probe_off(void);
uint32_t hp_sites_tick_off(void);
void hp_sites_child_all_on(void);
/* A shadow's calibration (shadow_rate_sites.c), after hp_sites_child_all_on: the span of the
 * listed sites (lo = hi = 0: none); every listed site whose call goes to one of hooks (directly or
 * through a PLT stub) made to call stub instead and every other one off, for good — 0 (nothing
 * changed) if some listed site cannot reach stub with a rel32 or none calls a hook, else the
 * sites retargeted. */
void hp_sites_child_span(uint64_t *lo, uint64_t *hi);
uint32_t hp_sites_child_retarget(uint64_t stub, const uint64_t *hooks, int nhooks);

#endif

/* xray.c — XRay sleds (programs built with `hotprof cc --hooks=xray`): the XRay backend of
 * patched bursts (bursts.c), a function-level bursty mode whose hooks do not run at all outside
 * bursts, and the exhaustive mode of such programs.
 *
 * Bursts (hp_g.xray = HP_XRAY_BURSTS): in bursty mode with the methods type enabled, if the
 * program carries XRay sleds (compiler-rt's XRay runtime linked in; its functions are weak here,
 * so a program without it links and simply has no XRay mode), init installs burst_handler and
 * starts the control thread of bursts.c with this backend: on = __xray_patch, off =
 * __xray_unpatch. The sleds stay unpatched (nops: native speed) except during a window. Each
 * entry the handler sees takes a unit of the window (hp_pb_take) and, if it got one, adds to the
 * calling thread's methods table (t->methods v1, the table the HPS path of the hooks uses for
 * sampled calls) and to t->tot.calls. Only the methods type is scheduled here (window W =
 * max(B, 1): the burst as configured).
 *
 * Exhaustive (hp_g.xray = HP_XRAY_ALL; issue 8, defect 13): in exhaustive mode a program with
 * sleds and no coverage guards has no other event source, so init patches every sled once and
 * all_handler counts every entry in t->methods (created for every thread in this mode) and
 * t->tot.calls: the ground truth that XRay bursts are compared with (INFO mode=exhaustive, FUNCS
 * only). No control thread, no unit counter.
 *
 * Invariants: the handlers never allocate except through the runtime's table growth (mmap),
 * never lock, and make at most one system call per window (the futex wake of the entry that
 * takes the last unit). Exit entries are ignored (methods count calls). Limits: call pairs,
 * back-edges and blocks are not recorded with XRay; sampled counts are raw sampled counts
 * (bursts.c).
 *
 * State: hp_g.xray (base.h); the function id -> address table below is this file's own.
 * Signal-safety: the handlers run wherever instrumented code runs, signal handlers included;
 * they touch only their thread's state and bursts.c's shared words (the same limit as the
 * hooks: a handler interrupting this thread's table growth may lose its own entries).
 * hp_xray_probe* and hp_xray_start run once from init (not signal-safe: pthread_create).
 */
#define _GNU_SOURCE
#include "runtime/ctl/ctl.h"
#include "runtime/config.h"
#include "runtime/thread.h"
#include <string.h>

/* compiler-rt's XRay C API (xray/xray_interface.h, extern "C"), weak: absent without XRay. */
extern int __xray_set_handler(void (*entry)(int32_t, int)) __attribute__((weak));
extern int __xray_patch(void) __attribute__((weak));
extern int __xray_unpatch(void) __attribute__((weak));
extern uintptr_t __xray_function_address(int32_t fid) __attribute__((weak));
extern size_t __xray_max_function_id(void) __attribute__((weak));

enum { XR_ENTRY = 0, XR_LOG_ARGS_ENTRY = 3 }; /* XRayEntryType values we record */

static uintptr_t *g_fnaddr; /* function id -> address, ids 1..g_nfn (mmap'd at probe) */
static size_t g_nfn;

/* The calling thread's state if it records and has a methods table, else NULL. */
static inline HP_NOINST hp_thread *handler_thread(void)
{
    hp_thread *t = hp_tls;
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) return NULL;
    return t->methods ? t : NULL;
}

static inline HP_NOINST void count_entry(hp_thread *t, int32_t fid)
{
    uintptr_t fn = fid > 0 && (size_t)fid <= g_nfn ? g_fnaddr[fid] : 0;
    if (fn) {
        HP_BUMP(&hp_tab_get(&t->methods, (uint64_t)fn, 0)->v1);
        HP_BUMP(&t->tot.calls);
    }
}

/* HP_XRAY_BURSTS: an entry in a window that takes a unit is recorded. */
static HP_NOINST void burst_handler(int32_t fid, int type)
{
    if (type != XR_ENTRY && type != XR_LOG_ARGS_ENTRY) return;
    hp_thread *t = handler_thread();
    if (!t || !hp_pb_take()) return;
    count_entry(t, fid);
}

/* HP_XRAY_ALL: every entry is recorded. */
static HP_NOINST void all_handler(int32_t fid, int type)
{
    if (type != XR_ENTRY && type != XR_LOG_ARGS_ENTRY) return;
    hp_thread *t = handler_thread();
    if (t) count_entry(t, fid);
}

static HP_NOINST void xray_on(void) { __xray_patch(); }
static HP_NOINST void xray_off(void) { __xray_unpatch(); }

static HP_NOINST size_t xray_info(char *out, size_t cap)
{
    char line[48] = "xray.functions=";
    size_t n = 15;
    n += hp_fmt_u64(line + n, g_nfn);
    line[n++] = '\n';
    if (n > cap) return 0;
    memcpy(out, line, n);
    return n;
}

static const hp_pb_backend g_xray_backend = {.prefix = "xray", .on = xray_on, .off = xray_off, .info = xray_info};

static HP_NOINST void say1(const char *msg)
{
    const char *parts[] = {"hotprof: xray: ", msg};
    hp_say(parts, 2);
}

/* 1 if the program carries XRay sleds (the constructor then starts the runtime before main). */
HP_NOINST int hp_xray_present(void) { return __xray_max_function_id && __xray_max_function_id() > 0; }

/* Maps the function id -> address table. 0 if sleds are missing or mmap fails. */
static HP_NOINST int map_functions(void)
{
    if (!__xray_set_handler || !__xray_patch || !__xray_unpatch || !__xray_max_function_id ||
        !__xray_function_address || __xray_max_function_id() == 0)
        return 0;
    g_nfn = __xray_max_function_id();
    g_fnaddr = hp_map((g_nfn + 1) * sizeof *g_fnaddr);
    if (!g_fnaddr) return 0;
    for (size_t i = 1; i <= g_nfn; i++) g_fnaddr[i] = __xray_function_address((int32_t)i);
    return 1;
}

/* Init, bursty mode: decides whether XRay bursts drive this run (hp_g.xray). wish: HOTPROF_XRAY
 * (config.h: never, required, or when the program has sleds). 1 if XRay mode is on. */
HP_NOINST int hp_xray_probe(int quiet, int wish)
{
    int required = wish == HP_XRAY_WISH_REQUIRED;
    if (wish == HP_XRAY_WISH_NEVER) return 0;
    if (!__xray_set_handler || !__xray_patch || !__xray_unpatch || !__xray_max_function_id ||
        !__xray_function_address || __xray_max_function_id() == 0) {
        if (required || (__xray_max_function_id && !quiet))
            say1("unavailable: the program has no XRay sleds (build it with hotprof cc --hooks=xray)");
        return 0;
    }
    uint32_t methods = HP_BURSTY_METHODS;
    if (!(atomic_load_explicit(&hp_g.bcfg.enabled_mask, memory_order_relaxed) >> methods & 1)) {
        say1("unavailable: XRay bursts sample methods; enable them (--sample methods:period=S,burst=B)");
        return 0;
    }
    if (!map_functions()) return 0;
    HP_STORE_REL(&hp_g.xray, HP_XRAY_BURSTS);
    return 1;
}

/* Init, exhaustive mode: a program whose only events are XRay sleds (no coverage guards; call
 * hooks, if any, record on their own) records every call through them, unless HOTPROF_XRAY=0. */
HP_NOINST int hp_xray_probe_all(int wish)
{
    if (wish == HP_XRAY_WISH_NEVER || HP_LOAD_ACQ(&hp_g.guards) || !hp_xray_present() || !map_functions()) return 0;
    HP_STORE_REL(&hp_g.xray, HP_XRAY_ALL);
    return 1;
}

/* Init, after the output is open: installs the handler; bursts: starts the control thread;
 * exhaustive: patches every sled for good. */
HP_NOINST void hp_xray_start(void)
{
    int mode = HP_LOAD_ACQ(&hp_g.xray);
    if (mode == HP_XRAY_ALL) {
        __xray_set_handler(all_handler);
        __xray_patch();
    } else if (mode == HP_XRAY_BURSTS) {
        __xray_set_handler(burst_handler);
        hp_pb_start(&g_xray_backend, 1, HP_BURSTY_BIT(HP_BURSTY_METHODS)); /* methods only, W = B */
    }
}

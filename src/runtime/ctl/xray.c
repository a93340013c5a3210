/* xray.c — the XRay backend of patched bursts (bursts.c): a function-level bursty mode whose
 * hooks do not run at all outside bursts (programs built with `hotprof cc --hooks=xray`).
 *
 * What it does: in bursty mode with the methods type enabled, if the program carries XRay sleds
 * (compiler-rt's XRay runtime linked in; its functions are weak here, so a program without it
 * links and simply has no XRay mode), init installs xray_handler and starts the control thread of
 * bursts.c with this backend: on = __xray_patch, off = __xray_unpatch. The sleds stay unpatched
 * (nops: native speed) except during a window. Each entry the handler sees takes a unit of the
 * window (hp_pb_take) and, if it got one, adds to the calling thread's methods table (t->methods
 * v1, the table the HPS path of hooks.c uses for sampled calls) and to t->tot.calls. Only the
 * methods type is scheduled here (window W = max(B, 1): the burst as configured).
 *
 * Invariants: the handler never allocates except through the runtime's table growth (mmap),
 * never locks, and makes one system call per window (the futex wake of the entry that takes
 * the last unit). Exit entries are ignored (methods count calls). Limits: call pairs, back-edges
 * and blocks are not recorded in this mode; counts are raw sampled counts (bursts.c).
 *
 * Signal-safety: xray_handler runs wherever instrumented code runs, signal handlers included; it
 * touches only its thread's state and bursts.c's shared words (the same limit as hooks.c: a
 * handler interrupting this thread's table growth may lose its own entries). hp_xray_probe and
 * hp_xray_start run once from init (not signal-safe: pthread_create).
 */
#define _GNU_SOURCE
#include "runtime/rt.h"
#include <stdlib.h>
#include <string.h>

/* compiler-rt's XRay C API (xray/xray_interface.h, extern "C"), weak: absent without XRay. */
extern int __xray_set_handler(void (*entry)(int32_t, int)) __attribute__((weak));
extern int __xray_patch(void) __attribute__((weak));
extern int __xray_unpatch(void) __attribute__((weak));
extern uintptr_t __xray_function_address(int32_t fid) __attribute__((weak));
extern size_t __xray_max_function_id(void) __attribute__((weak));

enum { XR_ENTRY = 0, XR_LOG_ARGS_ENTRY = 3 }; /* XRayEntryType values we record */

int hp_g_xray; /* 1: XRay bursts drive sampling (set by hp_xray_probe before INFO is written) */

static uintptr_t *g_fnaddr; /* function id -> address, ids 1..g_nfn (mmap'd at probe) */
static size_t g_nfn;

static HP_NOINST void xray_handler(int32_t fid, int type)
{
    if (type != XR_ENTRY && type != XR_LOG_ARGS_ENTRY) return;
    hp_thread *t = hp_tls;
    if (HP_UNLIKELY(!t) ? !(t = hp_thread_slow()) : HP_UNLIKELY(!t->active)) return;
    if (!t->methods || !hp_pb_take()) return;
    uintptr_t fn = fid > 0 && (size_t)fid <= g_nfn ? g_fnaddr[fid] : 0;
    if (fn) {
        HP_BUMP(&hp_tab_get(&t->methods, (uint64_t)fn, 0)->v1);
        HP_BUMP(&t->tot.calls);
    }
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

/* Init, bursty mode: decides whether XRay bursts drive this run (hp_g_xray). want: $HOTPROF_XRAY
 * ("0": never, "1": required, else use when the program has sleds). 1 if XRay mode is on. */
HP_NOINST int hp_xray_probe(int quiet)
{
    const char *want = getenv("HOTPROF_XRAY");
    int required = want && strcmp(want, "1") == 0;
    if (want && strcmp(want, "0") == 0) return 0;
    if (!__xray_set_handler || !__xray_patch || !__xray_unpatch || !__xray_max_function_id ||
        !__xray_function_address || __xray_max_function_id() == 0) {
        if (required || (__xray_max_function_id && !quiet))
            say1("unavailable: the program has no XRay sleds (build it with hotprof cc --hooks=xray)");
        return 0;
    }
    uint32_t methods = HP_BURSTY_METHODS;
    if (!(atomic_load_explicit(&hp_g_bcfg.enabled_mask, memory_order_relaxed) >> methods & 1)) {
        say1("unavailable: XRay bursts sample methods; enable them (--sample methods:period=S,burst=B)");
        return 0;
    }
    g_nfn = __xray_max_function_id();
    g_fnaddr = hp_map((g_nfn + 1) * sizeof *g_fnaddr);
    if (!g_fnaddr) return 0;
    for (size_t i = 1; i <= g_nfn; i++) g_fnaddr[i] = __xray_function_address((int32_t)i);
    HP_STORE_REL(&hp_g_xray, 1);
    return 1;
}

/* Init, after the output is open: installs the handler and starts the control thread. */
HP_NOINST void hp_xray_start(void)
{
    if (!HP_LOAD_ACQ(&hp_g_xray)) return;
    __xray_set_handler(xray_handler);
    hp_pb_start(&g_xray_backend, 1, HP_BURSTY_BIT(HP_BURSTY_METHODS)); /* methods only, W = B */
}

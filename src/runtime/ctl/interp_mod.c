/* interp_mod.c — value-sampling customization modules (include/hotprof/module.h; DCPI §2.4;
 * docs/value-modules.md): loading one module at start, buffering one interpretation's captured
 * tuples (filtered by the module's kinds and instruction classes) and, when the interpretation
 * ends, handing them to the module's transform and recording what it returns.
 *
 * State: the module (file-static, set once by hp_mod_load before any timer fires; read-only after)
 * and its counters (atomic adds from every thread's handlers); per thread, hp_mod_thread (mmap'd
 * by hp_mod_thread_new; only the owning thread's handlers touch it).
 * Async-signal-safety: hp_mod_capture and hp_mod_flush run in signal handlers: memory only, plus
 * the module's transform, which module.h obliges to the same rules. hp_mod_load runs at init
 * (dlopen), hp_mod_thread_new at a thread's setup (mmap).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "runtime/base.h"
#include "runtime/ctl/interp_int.h"
#include "core/format/info_keys.h"
#include "hotprof/module.h"

struct hp_mod_thread {
    uint32_t n, index;
    uint64_t last_pc;
    hotprof_tuple in[HOTPROF_MODULE_MAX_TUPLES];
    hotprof_tuple out[HOTPROF_MODULE_MAX_TUPLES];
    uint8_t scratch[HOTPROF_MODULE_SCRATCH] __attribute__((aligned(16)));
};

static struct {
    const hotprof_module *m;
    char path[256];
    uint64_t in, out, overflow, flushes;
} mod;

int hp_mod_load(const char *path, char *err, size_t errlen)
{
    if (!path || !*path) return 0;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "value module %s: cannot load it: %s", path, dlerror());
        return -1;
    }
    hotprof_module_get_fn *get = (hotprof_module_get_fn *)dlsym(h, "hotprof_module_get");
    const hotprof_module *m = get ? get() : NULL;
    if (!m || m->abi != HOTPROF_MODULE_ABI || !m->name) {
        snprintf(err, errlen, "value module %s: %s", path,
                 !get ? "does not export hotprof_module_get (include/hotprof/module.h)"
                      : "hotprof_module_get returned no module of this ABI (HOTPROF_MODULE_ABI) with a name");
        return -1;
    }
    snprintf(mod.path, sizeof mod.path, "%s", path);
    mod.m = m;
    return 0;
}

int hp_mod_active(void) { return mod.m != NULL; }

/* Flags are captured only for a module that names them (capture has the FLAGS bit). */
int hp_mod_wants_flags(void) { return mod.m && (mod.m->capture & (1u << HP_VK_FLAGS)); }

struct hp_mod_thread *hp_mod_thread_new(void) { return mod.m ? hp_map(sizeof(struct hp_mod_thread)) : NULL; }

void hp_mod_thread_reset(struct hp_mod_thread *mt)
{
    if (mt) memset(mt, 0, sizeof *mt);
}

static uint8_t class_of(const hp_dinsn *d)
{
    if (!d) return HOTPROF_CLASS_INT;
    if (d->kind != HP_DK_PLAIN) return HOTPROF_CLASS_BRANCH;
    if (d->fp) return HOTPROF_CLASS_FP;
    return d->nmem ? HOTPROF_CLASS_MEM : HOTPROF_CLASS_INT;
}

void hp_mod_capture(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value)
{
    struct hp_mod_thread *mt = it->mod;
    const hotprof_module *m = mod.m;
    if (m->capture && !(m->capture & (1u << kind))) return;
    int stop = 0;
    const hp_dinsn *d = hp_dec_get(it, pc, &stop); /* cached: the engine just decoded it */
    uint8_t cls = class_of(d);
    if (m->classes && !(m->classes & cls)) return;
    if (mt->n && pc != mt->last_pc) mt->index++;
    mt->last_pc = pc;
    if (mt->n >= HOTPROF_MODULE_MAX_TUPLES) {
        __atomic_fetch_add(&mod.overflow, 1, __ATOMIC_RELAXED);
        return;
    }
    uint8_t size = 0;
    if (d && (kind == HP_VK_ADDR || kind == HP_VK_LOAD || kind == HP_VK_STORE) && operand < 2) size = d->mem[operand].size;
    mt->in[mt->n++] = (hotprof_tuple){.pc = pc, .value = value, .kind = kind, .operand = operand, .iclass = cls,
                                      .size = size, .index = mt->index};
}

void hp_mod_flush(hp_interp_thread *it)
{
    struct hp_mod_thread *mt = it ? it->mod : NULL;
    if (!mt || !mt->n) return;
    uint32_t n = mt->n, k;
    mt->n = mt->index = 0;
    mt->last_pc = 0;
    if (mod.m->transform) {
        k = mod.m->transform(mt->in, n, mt->out, HOTPROF_MODULE_MAX_TUPLES, mt->scratch);
        if (k > HOTPROF_MODULE_MAX_TUPLES) k = HOTPROF_MODULE_MAX_TUPLES;
        for (uint32_t i = 0; i < k; i++) hp_vals_record(it, mt->out[i].pc, mt->out[i].kind, mt->out[i].operand, mt->out[i].value);
    } else {
        k = n;
        for (uint32_t i = 0; i < n; i++) hp_vals_record(it, mt->in[i].pc, mt->in[i].kind, mt->in[i].operand, mt->in[i].value);
    }
    __atomic_fetch_add(&mod.in, n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&mod.out, k, __ATOMIC_RELAXED);
    __atomic_fetch_add(&mod.flushes, 1, __ATOMIC_RELAXED);
}

size_t hp_mod_info(char *out, size_t at, size_t cap)
{
    if (!mod.m) return at;
    at = hp_info_str(out, at, cap, HP_INFO_VALUES_MODULE, NULL, mod.m->name);
    at = hp_info_str(out, at, cap, HP_INFO_VALUES_MODULE, "path", mod.path);
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_MODULE, "in", __atomic_load_n(&mod.in, __ATOMIC_RELAXED));
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_MODULE, "out", __atomic_load_n(&mod.out, __ATOMIC_RELAXED));
    return hp_info_u64(out, at, cap, HP_INFO_VALUES_MODULE, "overflow", __atomic_load_n(&mod.overflow, __ATOMIC_RELAXED));
}

/* modules.c — where every loaded object is mapped: the MODULES payload.
 *
 * hp_modules_refresh walks dl_iterate_phdr and appends, to a cumulative list, one hp_rec_module
 * record (format.h) per module not seen before (same base, lo and path): load bias, the span of
 * its PT_LOAD segments, its path (the main program's real path from /proc/self/exe when the
 * loader gives an empty name; a relative dlopen path made absolute) and its GNU build-id from PT_NOTE. A module dlclose'd later keeps
 * its record, so addresses recorded while it was mapped still resolve.
 *
 * The list lives in an mmap'd block; a refresh builds a new block and publishes it with release
 * semantics; old blocks are never unmapped, so hp_modules_payload (called from the fatal-signal
 * handler) always sees a complete list. Refreshes are serialized by a spin lock.
 *
 * State: the published list and its lock are this file's own (file-static).
 * Async-signal-safe: hp_modules_payload only. hp_modules_refresh calls dl_iterate_phdr (takes
 * the loader lock) and runs at init, at each guard_init (a new instrumented module), at
 * hotprof_flush and at exit.
 */
#define _GNU_SOURCE
#include "runtime/modules.h"
#include "runtime/base.h"
#include "core/base/bytes.h"
#include "core/format/format.h"
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct mod_list { size_t len, cap; uint8_t data[]; } mod_list;

static mod_list *g_mods;  /* published list */
static int g_mods_lock;

HP_NOINST void hp_main_exe_path(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    out[n > 0 ? n : 0] = 0;
}

HP_NOINST void hp_modules_lock_reset(void) { __atomic_store_n(&g_mods_lock, 0, __ATOMIC_RELEASE); }

HP_NOINST const uint8_t *hp_modules_payload(size_t *len)
{
    mod_list *m = HP_LOAD_ACQ(&g_mods);
    *len = m ? m->len : 0;
    return m ? m->data : NULL;
}

/* GNU build-id of a module from its PT_NOTE segments; *len = 0 if none. */
static HP_NOINST const uint8_t *find_build_id(const struct dl_phdr_info *info, uint32_t *len)
{
    *len = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name_sz = (nh->n_namesz + 3u) & ~3u, desc_sz = (nh->n_descsz + 3u) & ~3u;
            const uint8_t *name = p + sizeof *nh, *desc = name + name_sz;
            if (desc + desc_sz > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                *len = nh->n_descsz;
                return desc;
            }
            p = desc + desc_sz;
        }
    }
    return NULL;
}

/* Does the list already hold a record with this base, lo and path? */
static HP_NOINST int list_has(const mod_list *m, uint64_t base, uint64_t lo, const char *path, uint32_t path_len)
{
    hp_rbuf r = hp_rbuf_make(m->data, m->len);
    while (hp_rbuf_left(&r) >= HP_REC_MODULE_FIXED) {
        uint64_t b = hp_get_u64(&r), l = hp_get_u64(&r);
        hp_get_u64(&r);
        uint32_t pl = hp_get_u32(&r), bl = hp_get_u32(&r);
        const uint8_t *p = hp_get_bytes(&r, pl);
        hp_get_bytes(&r, bl);
        if (b == base && l == lo && pl == path_len && p && memcmp(p, path, pl) == 0) return 1;
    }
    return 0;
}

typedef struct walk { mod_list *m; size_t need; char exe[4096], real[PATH_MAX]; } walk;

/* The loader's name for a module, made absolute when it is relative (a dlopen("./x.so")). */
static HP_NOINST const char *module_path(walk *w, const char *name)
{
    if (!name || !name[0]) return w->exe;
    if (name[0] == '/' || !strchr(name, '/')) return name; /* absolute, or vdso-like */
    return realpath(name, w->real) ? w->real : name;
}

static HP_NOINST int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    walk *w = arg;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (hi == 0) return 0;
    const char *path = module_path(w, info->dlpi_name);
    uint32_t path_len = (uint32_t)strlen(path), id_len;
    const uint8_t *id = find_build_id(info, &id_len);
    size_t rec = HP_REC_MODULE_FIXED + path_len + id_len;
    if (list_has(w->m, info->dlpi_addr, lo, path, path_len)) return 0;
    if (w->m->cap - w->m->len < rec) { w->need += rec; return 0; }
    hp_wbuf b = hp_wbuf_make(w->m->data + w->m->len, rec);
    hp_put_u64(&b, info->dlpi_addr);
    hp_put_u64(&b, lo);
    hp_put_u64(&b, hi);
    hp_put_u32(&b, path_len);
    hp_put_u32(&b, id_len);
    hp_put_bytes(&b, path, path_len);
    hp_put_bytes(&b, id, id_len);
    w->m->len += rec;
    return 0;
}

static HP_NOINST mod_list *list_copy(const mod_list *old, size_t cap)
{
    mod_list *m = hp_map(sizeof *m + cap);
    if (!m) return NULL;
    m->cap = cap;
    if (old) memcpy(m->data, old->data, old->len), m->len = old->len;
    return m;
}

HP_NOINST void hp_modules_refresh(void)
{
    static walk w; /* 4 KiB path buffer: kept off the stack; guarded by the lock */
    while (__atomic_exchange_n(&g_mods_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    hp_main_exe_path(w.exe, sizeof w.exe);
    mod_list *old = g_mods;
    size_t cap = (old ? old->len : 0) + 16384;
    for (int attempt = 0; attempt < 4; attempt++) {
        w.m = list_copy(old, cap);
        w.need = 0;
        if (!w.m) break;
        dl_iterate_phdr(add_module, &w);
        if (w.need == 0 && old && w.m->len == old->len) { /* nothing new: keep the old list */
            munmap(w.m, sizeof *w.m + cap);
            break;
        }
        if (w.need == 0) { HP_STORE_REL(&g_mods, w.m); break; }
        cap += w.need * 2; /* it did not fit: retry bigger (the too-small block is leaked) */
    }
    __atomic_store_n(&g_mods_lock, 0, __ATOMIC_RELEASE);
}

/* value_module.c — see value_module.h. No state: the loaded object is never closed (its format
 * function is used until the process exits).
 */
#define _GNU_SOURCE
#include "cli/value_module.h"
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const hotprof_module *hp_value_module_open(const char *path, char *real, size_t cap, char *err, size_t errlen)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs)) {
        snprintf(err, errlen, "module '%s': %s", path, strerror(errno));
        return NULL;
    }
    void *h = dlopen(abs, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "module '%s' cannot be loaded: %s", path, dlerror());
        return NULL;
    }
    hotprof_module_get_fn *get = (hotprof_module_get_fn *)dlsym(h, "hotprof_module_get");
    if (!get) {
        snprintf(err, errlen, "module '%s' does not export hotprof_module_get (the ABI of include/hotprof/module.h)", path);
        return NULL;
    }
    const hotprof_module *m = get();
    if (!m || m->abi != HOTPROF_MODULE_ABI || !m->name) {
        snprintf(err, errlen, "module '%s': hotprof_module_get returned %s (this hotprof speaks module ABI %u)", path,
                 !m ? "NULL" : m->abi != HOTPROF_MODULE_ABI ? "a module of another ABI" : "a module without a name",
                 HOTPROF_MODULE_ABI);
        return NULL;
    }
    snprintf(real, cap, "%s", abs);
    return m;
}

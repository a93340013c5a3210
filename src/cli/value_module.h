/* value_module.h — loading a value-sampling customization module (include/hotprof/module.h) in the
 * hotprof command: `hotprof run --module FILE.so` checks it before the program starts (a module that
 * does not load or does not export the ABI is refused with one message), and `hotprof report
 * --module FILE.so` uses its format function to print values.
 */
#ifndef HOTPROF_CLI_VALUE_MODULE_H
#define HOTPROF_CLI_VALUE_MODULE_H
#include <stddef.h>
#include "hotprof/module.h"

/* Loads path (RTLD_NOW | RTLD_LOCAL), checks hotprof_module_get and the ABI. Returns the module (the
 * object stays loaded for the process's life) and its absolute path in real (cap bytes), or NULL with
 * one sentence in err. */
const hotprof_module *hp_value_module_open(const char *path, char *real, size_t cap, char *err, size_t errlen);

#endif

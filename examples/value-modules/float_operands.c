/* float_operands.c — an example value-sampling customization module (include/hotprof/module.h,
 * docs/value-modules.md): "float operands". It captures only floating-point instructions (x87/SSE)
 * and keeps the values they produce in xmm registers and the values they load from memory, and
 * prints every value as a double: an SSE function always called with 1.0 shows "1" at its first
 * instruction. No transform: the captured tuples are recorded as they are.
 * Invariants: stateless; the format writes at most cap bytes, NUL-terminated.
 */
#include <stdio.h>
#include <string.h>
#include "hotprof/module.h"

static size_t format_double(uint8_t kind, uint8_t operand, uint64_t value, char *buf, size_t cap)
{
    (void)operand;
    if (kind != HOTPROF_KIND_XMM && kind != HOTPROF_KIND_LOAD && kind != HOTPROF_KIND_STORE) return 0;
    double d;
    memcpy(&d, &value, sizeof d);
    int n = snprintf(buf, cap, "%.17g", d);
    return n > 0 ? (size_t)n : 0;
}

static const hotprof_module module = {
    .abi = HOTPROF_MODULE_ABI,
    .capture = 1u << HOTPROF_KIND_XMM | 1u << HOTPROF_KIND_LOAD | 1u << HOTPROF_KIND_STORE,
    .classes = HOTPROF_CLASS_FP,
    .name = "float-operands",
    .transform = NULL,
    .format = format_double,
};

const hotprof_module *hotprof_module_get(void) { return &module; }

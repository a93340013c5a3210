/* value_names.c — how the value profile type names and shows things (value.h): value kinds,
 * operands (x86-64 register names in HP_VREG_* order), values (hex and decimal; an xmm value also
 * as a double; a customization module's format when `report --module` set one: the one file-static
 * setting, g_module_format), shares, and the lookup of one pc's hot-lists in the sorted p->values.
 * Invariant: every function writes a NUL-terminated string whatever its input.
 */
#define _GNU_SOURCE
#include "analysis/ptype/value.h"
#include "core/format/info_keys.h"
#include <inttypes.h>
#include <string.h>

static const char *const kinds[] = {"?", "reg", "addr", "load", "store", "flags", "retaddr", "xmm", "cmp", "module"};
static const char *const regs[HP_VREG_COUNT] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                                "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

static hotprof_format_fn *g_module_format; /* `hotprof report --module`: see value.h */

const char *hp_value_kind_name(uint8_t kind) { return kind < sizeof kinds / sizeof *kinds ? kinds[kind] : "?"; }

void hp_value_set_formatter(hotprof_format_fn *fn) { g_module_format = fn; }

const char *hp_value_summary(const hp_profile *p)
{
    const char *s = hp_profile_info(p, HP_INFO_VALUES_SUMMARY);
    return s ? s : "concise";
}

void hp_value_operand_name(uint8_t kind, uint8_t operand, char *buf, size_t n)
{
    if (kind == HP_VK_REG) snprintf(buf, n, "%s", operand < HP_VREG_COUNT ? regs[operand] : "reg?");
    else if (kind == HP_VK_XMM) snprintf(buf, n, "xmm%u", operand);
    else if (kind == HP_VK_ADDR || kind == HP_VK_LOAD || kind == HP_VK_STORE) snprintf(buf, n, "mem%u", operand);
    else if (kind == HP_VK_MODULE) snprintf(buf, n, "m%u", operand);
    else if (kind == HP_VK_CMP) snprintf(buf, n, "op%u", operand);
    else snprintf(buf, n, "%s", "");
}

void hp_value_format(uint8_t kind, uint64_t value, char *buf, size_t n) { hp_value_format_op(kind, 0, value, buf, n); }

void hp_value_format_op(uint8_t kind, uint8_t operand, uint64_t value, char *buf, size_t n)
{
    if (n && g_module_format) {
        buf[0] = 0;
        size_t len = g_module_format(kind, operand, value, buf, n);
        buf[n - 1] = 0;
        if (len) return;
    }
    if (kind == HP_VK_XMM) {
        double d;
        memcpy(&d, &value, sizeof d);
        snprintf(buf, n, "0x%" PRIx64 " (double %.17g)", value, d);
    } else if (kind == HP_VK_ADDR || kind == HP_VK_RETADDR || kind == HP_VK_FLAGS) {
        snprintf(buf, n, "0x%" PRIx64, value);
    } else {
        snprintf(buf, n, "0x%" PRIx64 " (%" PRId64 ")", value, (int64_t)value);
    }
}

double hp_value_share(const hp_value_stat *v, size_t i)
{
    if (!v->captures || i >= v->nvalues) return 0;
    double s = v->values[i].estimate / (double)v->captures;
    return s > 1 ? 1 : s;
}

size_t hp_value_at(const hp_profile *p, uint64_t pc, size_t *first)
{
    size_t lo = 0, hi = p->nvalues;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->values[mid].pc < pc) lo = mid + 1;
        else hi = mid;
    }
    *first = lo;
    size_t n = 0;
    while (lo + n < p->nvalues && p->values[lo + n].pc == pc) n++;
    return n;
}

uint64_t hp_value_total_captures(const hp_profile *p)
{
    uint64_t t = 0;
    for (size_t i = 0; i < p->nvalues; i++) t = hp_sat_add(t, p->values[i].captures);
    return t;
}

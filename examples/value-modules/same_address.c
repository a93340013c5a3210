/* same_address.c — an example value-sampling customization module (include/hotprof/module.h,
 * docs/value-modules.md): "other PC touching the same address", DCPI's vreplay idea (§3.2). Within
 * one interpretation, for every memory access (its effective address) it looks back for an earlier
 * access by ANOTHER instruction to an overlapping address, and records the pair as (pc = this
 * instruction, value = the earlier instruction's pc) with kind HOTPROF_KIND_MODULE, operand 0: the
 * hot-list of a load then names the store (or load) it most often follows, i.e. a store-to-load
 * forwarding pair or a value reused through memory. Values print as "after 0x...".
 * Invariants: stateless across interpretations (the scratch area is not used); O(n^2) over the
 * n <= HOTPROF_MODULE_MAX_TUPLES tuples of one interpretation, of which only the ADDR ones are
 * compared (few: L instructions with at most two memory operands each).
 */
#include <stdio.h>
#include "hotprof/module.h"

static int overlap(const hotprof_tuple *a, const hotprof_tuple *b)
{
    uint64_t sa = a->size ? a->size : 1, sb = b->size ? b->size : 1;
    return a->value < b->value + sb && b->value < a->value + sa;
}

static uint32_t pair_accesses(const hotprof_tuple *in, uint32_t n, hotprof_tuple *out, uint32_t cap, void *scratch)
{
    (void)scratch;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < cap; i++) {
        if (in[i].kind != HOTPROF_KIND_ADDR) continue;
        for (uint32_t j = i; j-- > 0;) { /* the latest earlier access that overlaps, by another pc */
            if (in[j].kind != HOTPROF_KIND_ADDR || in[j].pc == in[i].pc || !overlap(&in[i], &in[j])) continue;
            out[k++] = (hotprof_tuple){.pc = in[i].pc, .value = in[j].pc, .kind = HOTPROF_KIND_MODULE, .operand = 0};
            break;
        }
    }
    return k;
}

static size_t format_pc(uint8_t kind, uint8_t operand, uint64_t value, char *buf, size_t cap)
{
    (void)operand;
    if (kind != HOTPROF_KIND_MODULE) return 0;
    int n = snprintf(buf, cap, "after 0x%llx", (unsigned long long)value);
    return n > 0 ? (size_t)n : 0;
}

static const hotprof_module module = {
    .abi = HOTPROF_MODULE_ABI,
    .capture = 1u << HOTPROF_KIND_ADDR,
    .classes = 0,
    .name = "same-address",
    .transform = pair_accesses,
    .format = format_pc,
};

const hotprof_module *hotprof_module_get(void) { return &module; }

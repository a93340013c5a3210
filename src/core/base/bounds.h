/* bounds.h — saturating arithmetic on 64-bit counts: a count never wraps, it sticks at
 * UINT64_MAX. Header-only, no state.
 */
#ifndef HOTPROF_CORE_BASE_BOUNDS_H
#define HOTPROF_CORE_BASE_BOUNDS_H
#include <stdint.h>

static inline uint64_t hp_sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

#endif

/* valuelist.c — LLVM / GCC per-site value lists with decrement-the-minimum. See valuelist.h.
 *
 * Layout: hp_valuelist header | hp_valuelist_entry e[slots]. Entries [0, n) are in use, in the
 * order the runtimes would link them. Serialized form: kind u32, version u32, slots u32, n u32,
 * total u64, calls u64, then (value u64, count u64) per entry in list order.
 * The scan is the runtimes' (the list has no index, by definition), done in two passes: a match
 * test four entries per branch, then, only for a miss on a full list, the first smallest count —
 * remembered in min_hint, which stays right while misses decrement or replace that entry at the
 * same count (the common case: each miss on a full list hits it again) and is dropped when it
 * grows; a branch-free search finds it again. The list is the runtimes' one-pass loop's (tested
 * against it after every update). min_hint is not serialized (0 on load).
 * Estimates, top-k and the writing of the entries are valuetable.c's (shared with tnv.c).
 */
#include "core/summary/valuelist.h"
#include "core/base/bytes.h"

#define VL_VERSION 1u

struct hp_valuelist {
    uint32_t policy, slots, n, min_hint; /* min_hint: first-minimum position + 1, 0 = not known */
    uint64_t total, calls;
};

static hp_valuelist_entry *vl_e(const hp_valuelist *vl) { return (hp_valuelist_entry *)(void *)((uint8_t *)(uintptr_t)vl + sizeof *vl); }

size_t hp_valuelist_bytes(uint32_t slots) { return sizeof(hp_valuelist) + (size_t)slots * sizeof(hp_valuelist_entry); }

hp_valuelist *hp_valuelist_init(void *mem, size_t budget, int policy, uint32_t slots)
{
    if (!mem || slots == 0 || slots > HP_VALUELIST_MAX_SLOTS || hp_valuelist_bytes(slots) > budget) return NULL;
    if (policy != HP_VALUELIST_LLVM && policy != HP_VALUELIST_GCC) return NULL;
    hp_valuelist *vl = (hp_valuelist *)mem;
    vl->policy = (uint32_t)policy;
    vl->slots = slots;
    vl->n = 0;
    vl->min_hint = 0;
    vl->total = 0;
    vl->calls = 0;
    return vl;
}

uint32_t hp_valuelist_entries(const hp_valuelist *vl, const hp_valuelist_entry **out)
{
    *out = vl_e(vl);
    return vl->n;
}

uint64_t hp_valuelist_calls(const hp_valuelist *vl) { return vl->calls; }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* The full-list step of each runtime, applied to the first entry with the smallest count. */
static void llvm_full(hp_valuelist_entry *min, uint64_t value, uint64_t weight)
{
    if (min->count <= weight) { min->value = value; min->count = weight; }
    else min->count -= weight;
}

static void gcc_full(hp_valuelist_entry *min, uint64_t value, uint64_t weight)
{
    if (--min->count < weight) { min->value = value; min->count = weight; }
}

/* Position of value among e[0..n), or n. Four compares per branch: a miss (the common case of a
 * full list on a flat stream) costs n/4 predictable branches instead of n. */
static uint32_t find_value(const hp_valuelist_entry *e, uint32_t n, uint64_t value)
{
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4)
        if ((e[i].value == value) | (e[i + 1].value == value) | (e[i + 2].value == value) |
            (e[i + 3].value == value))
            break;
    for (; i < n; i++)
        if (e[i].value == value) return i;
    return n;
}

/* The first entry with the smallest count (n >= 1): two interleaved lanes of branch-free
 * minima (strict <, so each lane keeps its first), merged with ties going to the lower index. */
static uint32_t first_min(const hp_valuelist_entry *e, uint32_t n)
{
    uint64_t ca = e[0].count, cb = UINT64_MAX;
    uint32_t ia = 0, ib = UINT32_MAX;
    uint32_t i = 1;
    for (; i + 2 <= n; i += 2) {
        uint64_t x = e[i].count, y = e[i + 1].count;
        int bx = x < cb, ay = y < ca;
        cb = bx ? x : cb;
        ib = bx ? i : ib;
        ca = ay ? y : ca;
        ia = ay ? i + 1 : ia;
    }
    if (i < n && e[i].count < cb) { cb = e[i].count; ib = i; }
    return cb < ca || (cb == ca && ib < ia) ? ib : ia;
}

void hp_valuelist_update(hp_valuelist *vl, uint64_t value, uint64_t weight)
{
    if (weight == 0) return;
    vl->total = sat_add(vl->total, weight);
    vl->calls++;
    hp_valuelist_entry *e = vl_e(vl);
    uint32_t n = vl->n, i = find_value(e, n, value);
    if (i < n) {
        e[i].count = sat_add(e[i].count, weight);
        if (i + 1 == vl->min_hint) vl->min_hint = 0; /* the first minimum grew */
        return;
    }
    if (n < vl->slots) {
        e[n].value = value;
        e[n].count = weight;
        vl->n = n + 1;
        vl->min_hint = 0;
        return;
    }
    if (!vl->min_hint) vl->min_hint = first_min(e, n) + 1;
    hp_valuelist_entry *min = &e[vl->min_hint - 1];
    uint64_t m = min->count;
    if (vl->policy == HP_VALUELIST_LLVM) llvm_full(min, value, weight);
    else gcc_full(min, value, weight);
    /* It stays the first minimum unless it now holds more than m (replaced with a weight > m):
     * a decrement only lowers it, a replacement with count m keeps it equal, and every entry
     * before it holds more than m. */
    if (min->count > m) vl->min_hint = 0;
}

/* ---- vtable glue ---- */

static void *vt_init_llvm(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_valuelist_init(mem, budget, HP_VALUELIST_LLVM, HP_VALUELIST_LLVM_SLOTS); }
static void *vt_init_gcc(void *mem, size_t budget, uint64_t seed) { (void)seed; return hp_valuelist_init(mem, budget, HP_VALUELIST_GCC, HP_VALUELIST_GCC_SLOTS); }
static void vt_update(void *s, uint64_t key, uint64_t w) { hp_valuelist_update((hp_valuelist *)s, key, w); }

static size_t vt_topk(const void *s, hp_estimate *out, size_t k)
{
    const hp_valuelist *vl = (const hp_valuelist *)s;
    return hp_vtab_topk(vl_e(vl), vl->n, vl->total, out, k);
}

static int vt_query(const void *s, uint64_t key, hp_estimate *out)
{
    const hp_valuelist *vl = (const hp_valuelist *)s;
    uint64_t sum = hp_vtab_sum(vl_e(vl), vl->n);
    for (uint32_t i = 0; i < vl->n; i++)
        if (vl_e(vl)[i].value == key) { hp_vtab_fill(vl->total, key, vl_e(vl)[i].count, sum, out); return 1; }
    hp_vtab_absent(vl->total, sum, key, out);
    return 0;
}

static int vt_merge(void *d, const void *s) { (void)d; (void)s; return -1; }

static size_t vt_serialized_size(const void *s) { return 4 + 4 + 4 + 4 + 8 + 8 + (size_t)((const hp_valuelist *)s)->n * 16; }

static uint32_t kind_of(uint32_t policy) { return policy == HP_VALUELIST_LLVM ? HP_SUMMARY_VALUELIST_LLVM : HP_SUMMARY_VALUELIST_GCC; }

static size_t vt_serialize(const void *s, void *buf, size_t cap)
{
    const hp_valuelist *vl = (const hp_valuelist *)s;
    hp_wbuf w = hp_wbuf_make(buf, cap);
    hp_put_u32(&w, kind_of(vl->policy));
    hp_put_u32(&w, VL_VERSION);
    hp_put_u32(&w, vl->slots);
    hp_put_u32(&w, vl->n);
    hp_put_u64(&w, vl->total);
    hp_put_u64(&w, vl->calls);
    hp_vtab_write(&w, vl_e(vl), vl->n);
    return w.ok ? w.len : 0;
}

static void *deserialize_policy(void *mem, size_t budget, const void *buf, size_t len, int policy)
{
    hp_rbuf r = hp_rbuf_make(buf, len);
    if (hp_get_u32(&r) != kind_of((uint32_t)policy) || hp_get_u32(&r) != VL_VERSION) return NULL;
    uint32_t slots = hp_get_u32(&r), n = hp_get_u32(&r);
    uint64_t total = hp_get_u64(&r), calls = hp_get_u64(&r);
    if (!r.ok || n > slots || hp_rbuf_left(&r) != (size_t)n * 16) return NULL;
    if (calls > total || (n > 0 && calls == 0)) return NULL; /* each call carries weight >= 1 */
    hp_valuelist *vl = hp_valuelist_init(mem, budget, policy, slots);
    if (!vl) return NULL;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t value = hp_get_u64(&r), count = hp_get_u64(&r);
        for (uint32_t j = 0; j < i; j++) if (vl_e(vl)[j].value == value) return NULL;
        if (count == 0 || sum + count < sum) return NULL;
        sum += count;
        vl_e(vl)[i].value = value;
        vl_e(vl)[i].count = count;
    }
    if (sum > total) return NULL;
    vl->n = n;
    vl->total = total;
    vl->calls = calls;
    return r.ok ? vl : NULL;
}

static void *vt_deserialize_llvm(void *mem, size_t budget, const void *buf, size_t len) { return deserialize_policy(mem, budget, buf, len, HP_VALUELIST_LLVM); }
static void *vt_deserialize_gcc(void *mem, size_t budget, const void *buf, size_t len) { return deserialize_policy(mem, budget, buf, len, HP_VALUELIST_GCC); }

static size_t vt_bytes_used(const void *s) { return hp_valuelist_bytes(((const hp_valuelist *)s)->slots); }
static uint64_t vt_total(const void *s) { return ((const hp_valuelist *)s)->total; }

const hp_summary_vt hp_valuelist_llvm_vt = {
    "valuelist-llvm", HP_SUMMARY_VALUELIST_LLVM, vt_init_llvm, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize_llvm, vt_bytes_used, vt_total,
};

const hp_summary_vt hp_valuelist_gcc_vt = {
    "valuelist-gcc", HP_SUMMARY_VALUELIST_GCC, vt_init_gcc, vt_update, vt_topk, vt_query, vt_merge,
    vt_serialized_size, vt_serialize, vt_deserialize_gcc, vt_bytes_used, vt_total,
};

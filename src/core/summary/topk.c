/* topk.c — hp_topk_select: the k best entries of any table by a bounded min-heap (worst at the
 * root), then heap-sorted best first. Ranking: count descending, then key ascending, so ties
 * always come out in one order. O(n log k) time, no memory beyond the caller's output array.
 */
#include "core/summary/topk.h"

/* 1 if a ranks below b: lower count, or equal count and larger key. */
static int ranks_below(const hp_estimate *a, const hp_estimate *b)
{
    if (a->count != b->count) return a->count < b->count;
    return a->key > b->key;
}

/* Restores the min-heap (worst at the root) below position i of h[0..n). */
static void heap_sift_down(hp_estimate *h, size_t n, size_t i)
{
    for (;;) {
        size_t worst = i, l = 2 * i + 1, r = l + 1;
        if (l < n && ranks_below(&h[l], &h[worst])) worst = l;
        if (r < n && ranks_below(&h[r], &h[worst])) worst = r;
        if (worst == i) return;
        hp_estimate t = h[i];
        h[i] = h[worst];
        h[worst] = t;
        i = worst;
    }
}

static void heap_sift_up(hp_estimate *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ranks_below(&h[i], &h[parent])) return;
        hp_estimate t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

size_t hp_topk_select(const void *ctx, size_t n, hp_entry_fn get, hp_estimate *out, size_t k)
{
    size_t held = 0;
    hp_estimate e;
    if (k == 0 || !out) return 0;
    for (size_t i = 0; i < n; i++) {
        if (!get(ctx, i, &e)) continue;
        if (held < k) {
            out[held] = e;
            heap_sift_up(out, held++);
        } else if (ranks_below(&out[0], &e)) {
            out[0] = e;
            heap_sift_down(out, held, 0);
        }
    }
    /* Heap sort: repeatedly move the worst to the end, giving best-first order. */
    for (size_t end = held; end > 1; end--) {
        hp_estimate t = out[0];
        out[0] = out[end - 1];
        out[end - 1] = t;
        heap_sift_down(out, end - 1, 0);
    }
    return held;
}


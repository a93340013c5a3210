/*
 * heapsort.c - heapsort workload (SPEC-like integer kernel).
 *
 * Holds: an array of pseudo-random 32-bit ints (splitmix64 PRNG, fixed seed)
 * sorted by heapsort with a separate sift-down helper and a comparison
 * callback passed as a function pointer (like qsort), repeated over several
 * arrays; even arrays are sorted ascending, odd ones descending, so the
 * comparator is chosen at run time and every comparison is a real call.
 *
 * Checks: the output is ordered by the comparator and is a permutation of the
 * input: three order-independent multiset fingerprints (sum, sum of squares
 * mod 2^64, xor of a mixing hash) match before and after. Prints
 * "ok <checksum>" and exits 0, or an error and exits 1.
 *
 * Usage: heapsort [size]   size = elements per array (4 arrays are sorted).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_SIZE 1800000L
#define ARRAYS 4

typedef int (*cmp_fn)(int32_t, int32_t);

typedef struct { uint64_t sum, sumsq, mix; } fingerprint;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_less(int32_t a, int32_t b) { return a < b; }
static int cmp_greater(int32_t a, int32_t b) { return a > b; }

static void swap(int32_t *a, long i, long j)
{
    int32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Restore the max-heap property below root within a[0..end). */
static void sift_down(int32_t *a, long root, long end, cmp_fn less)
{
    for (;;) {
        long child = 2 * root + 1;
        if (child >= end)
            return;
        if (child + 1 < end && less(a[child], a[child + 1]))
            child++;
        if (!less(a[root], a[child]))
            return;
        swap(a, root, child);
        root = child;
    }
}

static void heapify(int32_t *a, long n, cmp_fn less)
{
    for (long i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n, less);
}

static void heap_sort(int32_t *a, long n, cmp_fn less)
{
    heapify(a, n, less);
    for (long end = n - 1; end > 0; end--) {
        swap(a, 0, end);
        sift_down(a, 0, end, less);
    }
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static fingerprint take_fingerprint(const int32_t *a, long n)
{
    fingerprint f = { 0, 0, 0 };
    for (long i = 0; i < n; i++) {
        uint64_t v = (uint64_t)(int64_t)a[i];
        f.sum += v;
        f.sumsq += v * v;
        f.mix ^= mix64(v + 0x1234567ull);
    }
    return f;
}

static long first_unsorted(const int32_t *a, long n, int descending)
{
    for (long i = 1; i < n; i++)
        if (descending ? a[i - 1] < a[i] : a[i - 1] > a[i])
            return i;
    return -1;
}

static void fill(int32_t *a, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = (int32_t)(uint32_t)rng_next();
}

static uint64_t sorted_hash(const int32_t *a, long n, uint64_t h)
{
    for (long i = 0; i < n; i += 97)
        h = (h ^ (uint32_t)a[i]) * 0x100000001b3ull;
    return h;
}

/* Sort one array and verify it; returns 0 on failure. */
static int sort_and_check(int32_t *a, long n, int descending, uint64_t *h)
{
    fill(a, n);
    fingerprint before = take_fingerprint(a, n);
    heap_sort(a, n, descending ? cmp_greater : cmp_less);
    fingerprint after = take_fingerprint(a, n);
    long bad = first_unsorted(a, n, descending);
    if (bad >= 0) {
        fprintf(stderr, "heapsort: not sorted at index %ld\n", bad);
        return 0;
    }
    if (before.sum != after.sum || before.sumsq != after.sumsq || before.mix != after.mix) {
        fprintf(stderr, "heapsort: output is not a permutation of the input\n");
        return 0;
    }
    *h = sorted_hash(a, n, *h);
    return 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : DEFAULT_SIZE;
    if (n < 2)
        n = 2;
    int32_t *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "heapsort: out of memory\n");
        return 1;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r = 0; r < ARRAYS; r++) {
        if (!sort_and_check(a, n, r & 1, &h)) {
            fprintf(stderr, "heapsort: FAILED on array %d\n", r);
            return 1;
        }
    }
    printf("ok %016llx\n", (unsigned long long)h);
    free(a);
    return 0;
}

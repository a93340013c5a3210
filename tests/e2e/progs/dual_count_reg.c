/* dual_count_reg.c — call-free loops, whose inline count sites the dual plugin keeps in a register
 * (test_dual_count_sites.sh; docs/dual.md *Inline count sites*, plugin/dual_countreg.h): scan's
 * nest of three call-free loops left by a break, by a rare return from the innermost level and
 * through a switch with `continue`; outer_calls' call-free inner loop inside a loop that calls (the
 * inner loop alone is a region); classify's loop, left through a switch whose cases share one
 * target (the edge out is a switch's several identical edges: a bug once split one of them and
 * stopped the build); a loop with a call (no region). Prints a checksum.
 * Usage: dual_count_reg N ROUNDS */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long scan(const unsigned char *t, int n)
{
    long best = 0;
    for (int i = 0; i < n; i++) {
        int l = 0;
        for (int j = i + 1; j < n && j < i + 64; j++) {
            int k = 0;
            while (j + k < n && t[i + k] == t[j + k] && k < 255) k++;
            if (k > l) l = k;
            if (l == 255) break;
            if (t[j] == 0xff && t[i] == 0xfe) return -best;
        }
        switch (t[i] & 3) {
        case 0: best += l; break;
        case 1: best ^= l; continue;
        case 2: best -= 1; break;
        default: best += 2 * l;
        }
        best += i & 7;
    }
    return best;
}

__attribute__((noinline)) unsigned step(unsigned x) { return x * 2654435761u ^ (x >> 11); }

__attribute__((noinline)) unsigned outer_calls(int n)
{
    unsigned x = 1;
    for (int i = 0; i < n; i++) {
        x = step(x);
        for (int j = 0; j < (int)(x & 15); j++) x += (unsigned)j * 3u + (x >> 7);
    }
    return x;
}

__attribute__((noinline)) int classify(const unsigned char *t, int n)
{
    int i = 0, acc = 0;
    for (;;) {
        switch ((t[i] + i) & 7) {
        case 0: case 3: case 5: goto out;
        case 1: acc += 3; break;
        case 2: acc ^= i; break;
        default: acc += t[i]; break;
        }
        if (++i >= n) return acc;
    }
out:
    return acc * 7 + i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000, rounds = argc > 2 ? atoi(argv[2]) : 20;
    unsigned char *t = malloc((size_t)n);
    if (!t) return 1;
    unsigned s = 12345;
    for (int i = 0; i < n; i++) s = step(s + 1u), t[i] = (unsigned char)(s % 3u);
    t[n - 1] = 0xff;
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
        t[r % n] = r == rounds - 1 ? 0xfe : t[r % n]; /* the last round leaves scan by its return */
        sum += scan(t, n) + (long)outer_calls(n);
        for (int k = 0; k + 64 < n; k += 61) sum += classify(t + k, 64);
    }
    printf("%ld\n", sum);
    free(t);
    return 0;
}

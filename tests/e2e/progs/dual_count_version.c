/* dual_count_version.c — call-free loops whose back-edges scalar evolution bounds, which the dual
 * plugin versions (test_dual_count_version.sh; docs/dual.md *Loops that need no count*,
 * plugin/dual_countver.h): match's loop (a constant bound, 257 back-edges at most, an early exit),
 * checksum's (a bound computed from n at run time, an early exit, its index used after the loop),
 * countdown's (an induction variable that counts down), spin's one-block loop (the latch form
 * `top`: its site at the loop's top) and collatz's loop (no bound: never versioned). Each is entered
 * many times with trip counts from 0 to thousands, so a count off by one per run of a loop shows.
 * bounded_copy and sextets are compile checks.
 * Prints a checksum.
 * Usage: dual_count_version N ROUNDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MATCH 258

__attribute__((noinline)) int match(const unsigned char *a, const unsigned char *b, int max)
{
    int n = 0;
    while (n < max && a[n] == b[n]) n++;
    return n;
}

__attribute__((noinline)) long checksum(const unsigned char *t, long n, long *stop)
{
    long h = 0, i;
    for (i = 0; i < n; i++) {
        h = h * 31 + t[i];
        if ((h & 0xfffff) == 0x12345) break;
    }
    *stop = i;
    return h;
}

__attribute__((noinline)) unsigned countdown(const unsigned char *t, int n)
{
    unsigned x = 7;
    for (int i = n; i > 0; i--) {
        x = x * 2654435761u + t[i - 1];
        if (x == 0xdeadbeefu) return x;
    }
    return x;
}

__attribute__((noinline)) unsigned spin(const unsigned char *p, unsigned n)
{
    unsigned h = 1, i = 0, e = 1 + (n & 63);
#pragma clang loop unroll(disable) /* (one block: the latch form top) */
    do h = h * 33 + p[i++];
    while (i < e);
    return h;
}

__attribute__((noinline)) int collatz(unsigned long x)
{
    int steps = 0;
    while (x > 1) x = (x & 1) ? 3 * x + 1 : x / 2, steps++;
    return steps;
}

/* A copy bounded by a pointer compare (QuickJS's pstrcpy): under dual-blocks, scalar evolution
 * once met a cut label's set-aside terminator as a predecessor here and crashed the compiler. */
__attribute__((noinline)) void bounded_copy(char *buf, int size, const char *s)
{
    char *q = buf;
    if (size <= 0) return;
    for (;;) {
        int c = *s++;
        if (c == 0 || q >= buf + size - 1) break;
        *q++ = (char)c;
    }
    *q = 0;
}

/* A loop whose `continue`s share its latch with the body (Brotli's ParseBase64): the copy's
 * empty latch blocks, folded with LLVM's empty-block simplification, once crashed the compiler. */
__attribute__((noinline)) int sextets(const char *s, unsigned char *out, unsigned long *len)
{
    unsigned long n = strlen(s), room = *len, fill = 0, pads = 0, got = 0;
    unsigned bits = 0;
    for (unsigned long i = 0; i < n; ++i) {
        char c = s[i];
        int v;
        if (c == ' ' || c == '\n' || c == '\t') continue;
        if (c == '=') {
            pads++;
            continue;
        }
        if (pads) return 0;
        if (c == '+') v = 62;
        else if (c == '/') v = 63;
        else if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else return 0;
        bits = (bits << 6) | (unsigned)v;
        fill += 6;
        if (fill >= 8) {
            if (got == room) return 0;
            fill -= 8;
            out[got++] = (unsigned char)(bits >> fill);
        }
    }
    *len = got;
    return pads <= 2;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000, rounds = argc > 2 ? atoi(argv[2]) : 10;
    unsigned char *t = malloc((size_t)n + MAX_MATCH + 1);
    if (!t || n < 2 * MAX_MATCH) return 2;
    unsigned s = 12345;
    for (int i = 0; i < n + MAX_MATCH + 1; i++) {
        s = s * 1103515245u + 12345u;
        t[i] = (unsigned char)((s >> 16) % 3); /* long equal runs: matches of many lengths */
    }
    long total = 0, stop = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 1; i + MAX_MATCH < n; i += 3) total += match(t + i, t + i - 1 + (r & 3), MAX_MATCH);
        for (int i = 0; i < n; i += 97) total += checksum(t + i, n - i < 5000 ? n - i : 5000, &stop) & 0xff, total += stop;
        for (int i = 0; i < n; i += 101) total += countdown(t + i, (i * 7 + r) % 300) & 0xf;
        for (int i = 0; i + 64 < n; i += 53) total += spin(t + i, (unsigned)(i + r)) & 0xf;
        for (int i = 1; i < 300; i++) total += collatz((unsigned long)i + (unsigned long)r);
        unsigned char bytes[16];
        unsigned long nbytes = 8 + r % 8;
        total += sextets(&"Zm9v YmFy\nYmF6="[r % 4], bytes, &nbytes) + (long)nbytes;
        char word[24];
        for (int i = 0; i < 200; i++) {
            bounded_copy(word, 1 + (i + r) % 24, "a line of words to copy");
            for (const char *w = word; *w; w++) total += *w & 3;
        }
    }
    printf("%ld\n", total);
    free(t);
    return 0;
}

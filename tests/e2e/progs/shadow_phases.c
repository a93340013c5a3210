/* shadow_phases.c — a program with two phases whose hot paths differ (test_shadow_dual.sh):
 * phase one runs alpha_step (an LCG and a shift-xor walk over a small table) n times, phase two
 * beta_step (a bit-counting loop with a different branch shape) n times; the two share no
 * function or loop, so a profile that saw one phase only lacks the other's hot paths. Each phase
 * takes about the same time. Prints "ok <checksum>" (the same on every run) and exits 0.
 * Usage: shadow_phases [n]   (default 3000000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t table[256];

static __attribute__((noinline)) uint64_t alpha_step(uint64_t x)
{
    for (int i = 0; i < 8; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if ((x >> 61) == 3) table[(x >> 20) & 255] ^= (uint32_t)x;
        x ^= table[(x >> 40) & 255];
    }
    return x;
}

static __attribute__((noinline)) uint64_t beta_step(uint64_t x)
{
    uint64_t bits = 0;
    for (uint64_t v = x | 1; v; v >>= 3)
        bits += (v & 7) == 5 ? 3 : (v & 1);
    return (x << 7 | x >> 57) + bits;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 3000000L;
    uint64_t a = 1, b = 2;
    for (int i = 0; i < 256; i++) table[i] = (uint32_t)(i * 2654435761u);
    for (long i = 0; i < n; i++) a = alpha_step(a);
    for (long i = 0; i < n; i++) b = beta_step(b ^ (uint64_t)i);
    printf("ok %016llx\n", (unsigned long long)(a ^ b));
    return 0;
}

/*
 * fft.c - complex FFT workload (SPEC-like floating-point kernel).
 *
 * Holds: a recursive radix-2 decimation-in-time FFT (forward) and an iterative
 * in-place bit-reversal FFT (inverse), both over a small complex struct with
 * helper functions, applied round after round to pseudo-random signals.
 *
 * Checks: every round, inverse(forward(x)) == x to within 1e-9 (the two
 * transforms are independent implementations), and Parseval's identity
 * (sum |x|^2 == sum |X|^2 / n). Prints "ok <checksum>" and exits 0, or an
 * error and exits 1.
 *
 * Usage: fft [size]   size = number of rounds of a 2^14-point transform pair.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LOG2N 14
#define N (1u << LOG2N)
#define DEFAULT_ROUNDS 1250
static const double PI = 3.14159265358979323846;

typedef struct { double re, im; } cpx;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(void) { return (double)(rng_next() >> 11) / 9007199254740992.0; }

static cpx c_add(cpx a, cpx b) { cpx r = { a.re + b.re, a.im + b.im }; return r; }
static cpx c_sub(cpx a, cpx b) { cpx r = { a.re - b.re, a.im - b.im }; return r; }
static cpx c_mul(cpx a, cpx b)
{
    cpx r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return r;
}
static cpx c_polar(double angle) { cpx r = { cos(angle), sin(angle) }; return r; }
static double c_norm(cpx a) { return a.re * a.re + a.im * a.im; }

/* twiddle[k] = exp(-2 pi i k / N), shared by both transforms. */
static cpx twiddle[N / 2];

static void init_twiddles(void)
{
    for (unsigned k = 0; k < N / 2; k++)
        twiddle[k] = c_polar(-2.0 * PI * k / N);
}

/* Forward FFT, recursive: out[0..n) = DFT of in[0], in[stride], ... */
static void fft_rec(const cpx *in, cpx *out, unsigned n, unsigned stride)
{
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    unsigned half = n / 2;
    fft_rec(in, out, half, stride * 2);
    fft_rec(in + stride, out + half, half, stride * 2);
    unsigned tstep = N / n;
    for (unsigned k = 0; k < half; k++) {
        cpx t = c_mul(twiddle[k * tstep], out[k + half]);
        cpx e = out[k];
        out[k] = c_add(e, t);
        out[k + half] = c_sub(e, t);
    }
}

static unsigned bit_reverse(unsigned x, unsigned bits)
{
    unsigned r = 0;
    for (unsigned i = 0; i < bits; i++) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

static void permute(cpx *a)
{
    for (unsigned i = 0; i < N; i++) {
        unsigned j = bit_reverse(i, LOG2N);
        if (j > i) {
            cpx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

static void butterfly_stage(cpx *a, unsigned len, int inverse)
{
    unsigned half = len / 2, tstep = N / len;
    for (unsigned base = 0; base < N; base += len) {
        for (unsigned k = 0; k < half; k++) {
            cpx w = twiddle[k * tstep];
            if (inverse)
                w.im = -w.im;
            cpx t = c_mul(w, a[base + k + half]);
            cpx e = a[base + k];
            a[base + k] = c_add(e, t);
            a[base + k + half] = c_sub(e, t);
        }
    }
}

/* Inverse FFT, iterative in place, scaled by 1/N. */
static void ifft_iter(cpx *a)
{
    permute(a);
    for (unsigned len = 2; len <= N; len *= 2)
        butterfly_stage(a, len, 1);
    for (unsigned i = 0; i < N; i++) {
        a[i].re /= N;
        a[i].im /= N;
    }
}

static void fill_signal(cpx *x)
{
    double f1 = 1 + (double)(rng_next() % 64), f2 = 100 + (double)(rng_next() % 900);
    for (unsigned i = 0; i < N; i++) {
        x[i].re = sin(2 * PI * f1 * i / N) + 0.5 * rng_unit() - 0.25;
        x[i].im = 0.3 * cos(2 * PI * f2 * i / N);
    }
}

static double energy(const cpx *x)
{
    double s = 0;
    for (unsigned i = 0; i < N; i++)
        s += c_norm(x[i]);
    return s;
}

static double max_error(const cpx *a, const cpx *b)
{
    double m = 0;
    for (unsigned i = 0; i < N; i++) {
        double d = sqrt(c_norm(c_sub(a[i], b[i])));
        if (d > m)
            m = d;
    }
    return m;
}

static uint64_t spectrum_hash(const cpx *X, uint64_t h)
{
    for (unsigned i = 0; i < N; i += 7) {
        long long q = llround(sqrt(c_norm(X[i])) * 16.0);
        h = (h ^ (uint64_t)q) * 0x100000001b3ull;
    }
    return h;
}

/* One round: forward, check Parseval, inverse, check round trip. */
static int one_round(cpx *x, cpx *X, cpx *y, uint64_t *h)
{
    fill_signal(x);
    fft_rec(x, X, N, 1);
    double ex = energy(x), eX = energy(X) / N;
    if (fabs(ex - eX) > 1e-9 * ex) {
        fprintf(stderr, "fft: Parseval mismatch %.12g vs %.12g\n", ex, eX);
        return 0;
    }
    for (unsigned i = 0; i < N; i++)
        y[i] = X[i];
    ifft_iter(y);
    double err = max_error(x, y);
    if (err > 1e-9) {
        fprintf(stderr, "fft: round-trip error %g\n", err);
        return 0;
    }
    *h = spectrum_hash(X, *h);
    return 1;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : DEFAULT_ROUNDS;
    if (rounds < 1)
        rounds = 1;
    cpx *x = malloc(N * sizeof *x), *X = malloc(N * sizeof *X), *y = malloc(N * sizeof *y);
    if (!x || !X || !y) {
        fprintf(stderr, "fft: out of memory\n");
        return 1;
    }
    init_twiddles();
    uint64_t h = 0xcbf29ce484222325ull;
    for (long r = 0; r < rounds; r++) {
        if (!one_round(x, X, y, &h)) {
            fprintf(stderr, "fft: FAILED in round %ld\n", r);
            return 1;
        }
    }
    printf("ok %016llx\n", (unsigned long long)h);
    free(x);
    free(X);
    free(y);
    return 0;
}

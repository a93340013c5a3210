/* dual_late_alloca.c — a loop function whose entry block, after clang -O2, holds a static alloca
 * *after* another instruction: the two-field struct locals a and b are stored as one vector each,
 * so InstCombine retypes their allocas to <2 x i64> and leaves a bitcast after each one. The dual
 * plugin splits the entry block past its leading static allocas; without moving the later one up
 * first, it became a dynamic alloca in both copies (test_dual_static_allocas.sh).
 * Usage: dual_late_alloca [ROUNDS] — prints one checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef union { int64_t i; double d; void *p; } value_union;
typedef struct { value_union u; int64_t tag; } value;
typedef struct { int64_t a, b, c, d; } object;

__attribute__((noinline)) void touch(value *v, int n)
{
    v->u.i += n;
    v->tag ^= n;
}

__attribute__((noinline)) long run(object *o, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        value a, b;
        a.u.i = o[i & 7].a;
        a.tag = o[i & 7].b;
        touch(&a, i);
        b.u.i = o[i & 3].c;
        b.tag = o[i & 3].d;
        touch(&b, i);
        o[i & 7].a = a.u.i;
        o[i & 7].b = a.tag;
        s += a.u.i + b.tag;
    }
    return s;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    object o[8];
    for (int i = 0; i < 8; i++) o[i] = (object){i, i * 3, i * 5, i * 7};
    long s = 0;
    for (int r = 0; r < 100; r++) s += run(o, rounds);
    printf("%ld\n", s);
    return 0;
}

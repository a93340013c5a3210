/* dual_computed_goto.c — a small bytecode interpreter that dispatches with computed goto
 * (`goto *table[op]`, GNU C labels as values), as QuickJS's JS_CallInternal does: its function
 * `run` has indirectbr and blockaddress users; `run_threaded` is direct-threaded; `gen` keeps a label
 * address in a static between calls. For tests/e2e/test_dual_indirect.sh: the dual
 * builds must give `run` two copies whose computed gotos stay in their own copy.
 * usage: dual_computed_goto N — runs a program of N outer rounds; prints checksums.
 *        dual_computed_goto N one-frame — one call of `run` whose loop runs N times (one long
 *        interpreter frame, as a script's top level); prints its checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_PUSH, OP_ADD, OP_MUL, OP_DEC, OP_JNZ, OP_CALL, OP_POP, OP_HALT };

__attribute__((noinline)) static long mix(long a, long b)
{
    return (a * 31 + b) % 1000003;
}

/* sum of i*k for i in [0, n): its own loop inside a nested call */
__attribute__((noinline)) static long leaf(long n, long k)
{
    long s = 0;
    for (long i = 0; i < n; i++) s += i * k;
    return s;
}

/* the interpreter: a stack of counters and an accumulator */
__attribute__((noinline)) static long run(const int *code, long arg)
{
    static void *const table[] = {&&push, &&add, &&mul, &&dec, &&jnz, &&call, &&pop, &&halt};
    long stack[16], acc = arg;
    int sp = 0;
    const int *pc = code;
#define NEXT goto *table[*pc++]
    NEXT;
push: /* PUSH k */
    stack[sp++] = *pc++;
    NEXT;
add: /* acc = mix(acc, top) */
    acc = mix(acc, stack[sp - 1]);
    NEXT;
mul: /* MUL k */
    acc = acc * *pc++ % 1000003;
    NEXT;
dec:
    stack[sp - 1]--;
    NEXT;
jnz: /* JNZ t: to t while top != 0 */
    if (stack[sp - 1]) pc = code + *pc;
    else pc++;
    NEXT;
call: /* CALL k: acc = mix(acc, leaf(top % 7 + 1, k)) */
    acc = mix(acc, leaf(stack[sp - 1] % 7 + 1, *pc++));
    NEXT;
pop:
    sp--;
    NEXT;
halt:
    return acc + sp;
#undef NEXT
}

/* direct threading: the program is an array of label addresses the function builds at run time
 * (addresses stored to memory: either copy may jump to an address the other computed) */
__attribute__((noinline)) static long run_threaded(long n, long k)
{
    void *prog[4];
    prog[0] = &&inc;
    prog[1] = &&twice;
    prog[2] = &&loop;
    prog[3] = &&end;
    void **ip = prog;
    long acc = k, i = n;
    goto **ip++;
inc:
    acc = mix(acc, i);
    goto **ip++;
twice:
    acc = acc * 2 % 1000003;
    goto **ip++;
loop:
    if (--i > 0) ip = prog;
    goto **ip++;
end:
    return acc;
}

/* a generator whose resume point (a label address) lives in a static between calls: one frame
 * stores it, a later frame jumps to it. With a separate clone gen.hotprof, an address stored by
 * gen and used by gen.hotprof (or back) would jump into the other function: this function must
 * never take the separate form (-hotprof-dual-indirect=separate falls back to the one body). */
__attribute__((noinline)) static long gen(long x)
{
    static void *next;
    static long v;
    if (!next) next = &&first;
    goto *next;
first:
    v = x;
    next = &&times;
    return v;
times:
    v = v * 3 % 1000003 + x;
    next = &&plus;
    return v;
plus:
    v += 7;
    next = &&times;
    return v;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    if (n < 0) {
        fprintf(stderr, "dual_computed_goto: N must be >= 0\n");
        return 2;
    }
    /* PUSH 10; loop: CALL 4; MUL 3; ADD; DEC; JNZ loop; POP; PUSH 0; HALT */
    int prog[] = {OP_PUSH, 10, OP_CALL, 4, OP_MUL, 3, OP_ADD, OP_DEC, OP_JNZ, 2, OP_POP, OP_PUSH, 0, OP_HALT};
    if (argc > 2 && !strcmp(argv[2], "one-frame")) {
        prog[1] = (int)(n > 0x7fffffff ? 0x7fffffff : n);
        printf("one frame %ld\n", run(prog, 1));
        return 0;
    }
    long total = 0;
    for (long r = 0; r < n; r++) total = mix(run_threaded(r % 13 + 1, total), run(prog, r)) + gen(r);
    printf("total %ld\n", total);
    return 0;
}

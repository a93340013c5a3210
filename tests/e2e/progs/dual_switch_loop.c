/* dual_switch_loop.c — loops whose back-edges LoopSimplify merges into one latch block (the
 * dual plugin's shared latches, plugin/dual_wrapper.h splitSharedLatches; test_dual_latch_split.sh):
 * vm_run, a switch interpreter whose every case goes back to the dispatch (one latch, a predecessor
 * per case), and pick, a loop whose if/else arms meet at its latch. Prints the bytecodes executed,
 * vm_run's calls and a checksum, so a test can tell the loop latches the exhaustive profile must
 * count: each bytecode but the HALT that ends a call is one back-edge of vm_run.
 * Usage: dual_switch_loop ROUNDS */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, ADD, SUB, MUL, DUP, SWAP, JNZ, DEC, POP, XOR, HALT };

static long executed;

__attribute__((noinline)) long vm_run(const int *code, long seed)
{
    unsigned long st[16];
    int sp = 0, pc = 0;
    st[sp++] = (unsigned long)seed;
    for (;;) {
        int op = code[pc++];
        executed++;
        switch (op) {
        case PUSH: st[sp++] = code[pc++]; break;
        case ADD: sp--; st[sp - 1] += st[sp]; break;
        case SUB: sp--; st[sp - 1] -= st[sp]; break;
        case MUL: sp--; st[sp - 1] *= st[sp] | 1; break;
        case DUP: st[sp] = st[sp - 1]; sp++; break;
        case SWAP: { unsigned long t = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = t; } break;
        case JNZ: pc = st[--sp] ? code[pc] : pc + 1; break;
        case DEC: st[sp - 1]--; break;
        case POP: sp--; break;
        case XOR: sp--; st[sp - 1] ^= st[sp] << 3; break;
        default: return (long)st[sp - 1];
        }
    }
}

__attribute__((noinline)) long pick(const long *v, int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        if (v[i] & 1)
            a = (long)((unsigned long)a + (unsigned long)v[i] * 3);
        else
            b ^= (long)((unsigned long)v[i] + (unsigned long)a);
    }
    return (long)((unsigned long)a + (unsigned long)b);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    if (rounds < 0) {
        fprintf(stderr, "usage: dual_switch_loop ROUNDS\n");
        return 2;
    }
    /* acc = seed; n = 20; do { acc = (acc * 7 ^ n) - n; } while (--n); return acc */
    static const int code[] = {PUSH, 20,                                  /* 0: acc n */
                               SWAP, PUSH, 7, MUL, PUSH, 1, XOR, DUP, POP, /* 2: n acc' */
                               SWAP, DUP, PUSH, 0, ADD, SWAP, POP, DEC,   /* 11: acc' n-1 */
                               DUP, JNZ, 2, POP, HALT};
    long v[64], sum = 0, calls = 0;
    for (long r = 0; r < rounds; r++) {
        sum = (long)((unsigned long)sum + (unsigned long)vm_run(code, r));
        calls++;
        for (int i = 0; i < 64; i++) v[i] = (sum >> (i & 15)) + i;
        sum ^= pick(v, 64);
    }
    printf("executed %ld calls %ld sum %ld\n", executed, calls, sum);
    return 0;
}

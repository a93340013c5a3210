/* pathval.c — a workload with known paths and values for tests/e2e/test_pathval.sh.
 * One loop of N iterations (argv[1], default 100000). Iteration i takes branch A (calls small())
 * when i % 4 != 3, else branch B (3:1), and compares v against 7, where v is 7 unless i % 10 == 9
 * (then one of 0..4 from a small LCG; the compare's else branch calls rare()): so the loop body has
 * four paths, A7, A-, B7, B-. The program prints how many iterations took each, and which combination
 * the first and the last iteration took (the first one's path starts at main's entry, the last one's
 * is cut by the loop exit: neither is a completed loop path), and how often v was 7.
 * With a second argument M the process then forks; the child runs the loop M more times (printing
 * its own line) and exits, the parent waits (a --follow-fork child's profile must hold only its own
 * paths).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long __attribute__((noinline)) small(long x) { return x * 3 + 1; }
static long __attribute__((noinline)) rare(int v) { return v * 5 + 2; }

static void run(long n)
{
    long sum = 0, sevens = 0, combo[4] = {0};
    int first = -1, last = -1;
    unsigned s = 12345;
    volatile int vv;
    for (long i = 0; i < n; i++) {
        int a = i % 4 != 3, c;
        if (a) sum += small(i);
        else sum -= i;
        s = s * 1103515245u + 12345u;
        vv = i % 10 != 9 ? 7 : (int)((s >> 16) % 5);
        int v = vv;
        if (v == 7) sevens++, c = 0;
        else sum += rare(v), c = 1;
        c += a ? 0 : 2; /* 0 A7, 1 A-, 2 B7, 3 B- */
        combo[c]++;
        if (first < 0) first = c;
        last = c;
    }
    printf("n=%ld A7=%ld A-=%ld B7=%ld B-=%ld first=%d last=%d sevens=%ld sum=%ld\n", n, combo[0], combo[1], combo[2],
           combo[3], first, last, sevens, sum);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atol(argv[1]) : 100000);
    if (argc > 2) {
        pid_t pid = fork();
        if (pid == 0) {
            run(atol(argv[2]));
            exit(0);
        }
        if (pid < 0 || waitpid(pid, NULL, 0) != pid) return 1;
    }
    return 0;
}

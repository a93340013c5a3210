/* patch_fork.c — fork while patch mode (runtime/ctl/sites.c) rewrites call sites: the child
 * inherits the code as it was at fork (calls, nops or a half-patched int3) and the SIGTRAP
 * handler, runs instrumented code (calls and loops) and exits; the parent, whose control thread
 * keeps patching, runs the same work concurrently and then waits for it.
 * Each process computes the same checksum; the child exits 0 iff its checksum is the expected
 * one (computed by the parent before forking, so the child's work is checked independently of
 * the parent's). Prints "parent <hex>", "child exit <status>" and "forks N", exits 0 iff every
 * child exited 0 with the right sum and the parent's own sum is right.
 * Usage: patch_fork [ROUNDS] [FORKS]   (default 2000 rounds of work per process, 3 forks)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t seed = 7; /* read each time: the calls of work() cannot be merged */

__attribute__((noinline)) static uint64_t leaf(uint64_t x, int k)
{
    for (int i = 0; i < k; i++) x = x * 6364136223846793005ull + 1442695040888963407ull + (x >> 31);
    return x;
}

__attribute__((noinline)) static uint64_t mid(uint64_t x, int i) { return leaf(x, 8 + (i & 7)) ^ leaf(x + 1, 4); }

__attribute__((noinline)) static uint64_t work(uint64_t x, long rounds)
{
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < 400; i++) x = mid(x, i) + (uint64_t)i;
    return x;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 2000;
    int forks = argc > 2 ? atoi(argv[2]) : 3;
    if (rounds < 1 || forks < 1 || forks > 64) {
        fprintf(stderr, "usage: patch_fork [ROUNDS] [FORKS]\n");
        return 2;
    }
    int bad = 0;
    uint64_t want = work(seed, rounds), mine = 0;
    for (int f = 0; f < forks; f++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) _exit(work(seed, rounds) == want ? 0 : 3);
        mine = work(seed, rounds); /* the parent works while the child does */
        int st = 0;
        if (waitpid(pid, &st, 0) != pid) {
            perror("waitpid");
            return 2;
        }
        printf("child exit %s%d\n", WIFSIGNALED(st) ? "signal " : "", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad = 1;
        if (mine != want) bad = 1;
    }
    printf("parent %016llx\nforks %d\n", (unsigned long long)mine, forks);
    return bad;
}

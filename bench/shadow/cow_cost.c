/* cow_cost.c — what a fork costs the process that keeps running (bench/shadow/price.sh): the
 * clone itself and each copy-on-write fault its writes take afterwards, the two kernel-side parts
 * of a shadow's price to the parent (docs/shadow.md, "The parent's price").
 *
 * For a private anonymous region of MB megabytes, all pages touched first, ROUNDS times:
 *   - write one byte per page with no child alive (the plain cost of the loop);
 *   - fork a child that waits on a pipe (it never writes), time the fork in the parent, then
 *     write one byte per page again: every write is a copy-on-write fault;
 *   - release the child, reap it.
 * Prints one line: "mb=MB rounds=R fork_us=F fault_us=P write_ns=W" with the medians over the
 * rounds: F the fork's wall time, P (faulting loop - plain loop) / pages, W the plain loop per page.
 * Usage: cow_cost [MB] [ROUNDS] (defaults 64 and 15). Exit 1 on a failed mmap/fork/pipe. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* one byte per page; the value changes every pass so no write is a no-op */
static double touch_all(volatile uint8_t *mem, size_t pages, uint8_t value)
{
    double t0 = now_us();
    for (size_t i = 0; i < pages; i++) mem[i * PAGE] = value;
    return now_us() - t0;
}

/* One round: the plain pass, then fork + the faulting pass. 0 on success. */
static int one_round(volatile uint8_t *mem, size_t pages, int round, double *plain, double *fork_us, double *faulting)
{
    *plain = touch_all(mem, pages, (uint8_t)(2 * round));
    int go[2];
    if (pipe(go) != 0) return -1;
    double t0 = now_us();
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) { /* waits until the parent has written everything, never writes */
        char c;
        close(go[1]);
        ssize_t n = read(go[0], &c, 1);
        _exit(n < 0);
    }
    *fork_us = now_us() - t0;
    close(go[0]);
    *faulting = touch_all(mem, pages, (uint8_t)(2 * round + 1));
    close(go[1]);
    return waitpid(child, NULL, 0) == child ? 0 : -1;
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? atol(argv[1]) : 64, rounds = argc > 2 ? atol(argv[2]) : 15;
    if (mb < 1 || mb > 4096 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: cow_cost [MB 1..4096] [ROUNDS 1..1000]\n");
        return 2;
    }
    size_t pages = (size_t)mb * (1u << 20) / PAGE;
    uint8_t *mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) { perror("cow_cost: mmap"); return 1; }
    madvise(mem, pages * PAGE, MADV_NOHUGEPAGE); /* 4 KB copies, as a shadow's parent mostly takes */
    touch_all(mem, pages, 1);
    double *fork_us = calloc((size_t)rounds, sizeof *fork_us), *fault_us = calloc((size_t)rounds, sizeof *fault_us),
           *write_ns = calloc((size_t)rounds, sizeof *write_ns);
    if (!fork_us || !fault_us || !write_ns) { perror("cow_cost: calloc"); return 1; }
    for (long r = 0; r < rounds; r++) {
        double plain, faulting;
        if (one_round(mem, pages, (int)r, &plain, &fork_us[r], &faulting) != 0) { perror("cow_cost: fork"); return 1; }
        fault_us[r] = (faulting - plain) / (double)pages;
        write_ns[r] = plain * 1e3 / (double)pages;
    }
    printf("mb=%ld rounds=%ld fork_us=%.1f fault_us=%.3f write_ns=%.2f\n", mb, rounds, median(fork_us, (int)rounds),
           median(fault_us, (int)rounds), median(write_ns, (int)rounds));
    return 0;
}

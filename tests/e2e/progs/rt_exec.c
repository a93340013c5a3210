/* rt_exec.c — a program that exec()s itself (same pid, a new image), for the exec test.
 *   rt_exec N        calls before_exec() N times, then execv(itself, "after", N)
 *   rt_exec after N  calls after_exec() N times and exits
 * Prints (before the exec) "expect before_exec N" and (after it) "expect after_exec N".
 * Built with -DUSE_EXECVP it execs with execvp, -DUSE_EXECL with execl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void before_exec(unsigned long i) { sink += i; }
__attribute__((noinline)) void after_exec(unsigned long i) { sink ^= i; }

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "after") == 0) {
        unsigned long n = strtoul(argv[2], NULL, 10);
        for (unsigned long i = 0; i < n; i++) after_exec(i);
        printf("expect after_exec %lu\n", n);
        return 0;
    }
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    for (unsigned long i = 0; i < n; i++) before_exec(i);
    printf("expect before_exec %lu\n", n);
    fflush(stdout);
    char num[32];
    snprintf(num, sizeof num, "%lu", n / 2);
#if defined(USE_EXECVP)
    char *args[] = {argv[0], "after", num, NULL};
    execvp(argv[0], args);
#elif defined(USE_EXECL)
    execl("/proc/self/exe", argv[0], "after", num, (char *)NULL);
#else
    char *args[] = {argv[0], "after", num, NULL};
    execv("/proc/self/exe", args);
#endif
    perror("exec");
    return 1;
}

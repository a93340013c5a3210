/* vs_exec.c — timer-mode test workload: burns CPU in before_exec(), then execs itself with the
 * argument "again", which burns CPU in after_exec() and prints "after exec". */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void before_exec(void)
{
    double s = 0;
    for (long i = 0; i < 40000000; i++) s += (double)i, sink = s;
}

__attribute__((noinline)) static void after_exec(void)
{
    double s = 0;
    for (long i = 0; i < 40000000; i++) s += (double)i * 2, sink = s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "again") == 0) {
        after_exec();
        printf("after exec\n");
        return 0;
    }
    before_exec();
    execl("/proc/self/exe", argv[0], "again", (char *)NULL);
    perror("execl");
    return 1;
}

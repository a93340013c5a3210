/* vs_fork.c — timer-mode test workload: forks; the child burns CPU in child_work() and exits 3 (exit(), so a
 * followed child writes its profile),
 * the parent burns CPU in parent_work(), waits and prints the child's exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void child_work(void)
{
    double s = 0;
    for (long i = 0; i < 60000000; i++) s += (double)i * 0.5, sink = s;
}

__attribute__((noinline)) static void parent_work(void)
{
    double s = 0;
    for (long i = 0; i < 30000000; i++) s += (double)i * 0.25, sink = s;
}

int main(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        child_work();
        exit(3); /* exit, not _exit: the runtime writes the child's profile in its exit destructor */
    }
    parent_work();
    int st = 0;
    waitpid(pid, &st, 0);
    printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}

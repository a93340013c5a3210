/* shadow_io.c — a workload for tests/e2e/test_shadow.sh: CPU-bound hot functions interleaved
 * with output the world must see exactly once: it writes a file, appends to a log, prints to
 * stdout, sends on a socket pair (read back by the same process and printed), renames a file,
 * reads an input file a line at a time with stdio and 12 bytes at a time with read() (its offset
 * must not move under shadows), counts rounds in a MAP_SHARED page (a shadow's write to it must
 * never reach the parent) and exits with status 3.
 * Usage: shadow_io DIR ROUNDS [spin] [MARKER]: "spin" only computes, forever (for the SIGKILL
 * test); MARKER is ignored (for pgrep). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

__attribute__((noinline)) static unsigned long hot_inner(unsigned long x)
{
    for (int i = 0; i < 20; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

__attribute__((noinline)) static unsigned long hot_outer(unsigned long x)
{
    for (int i = 0; i < 200000; i++) x ^= hot_inner(x + (unsigned long)i);
    return x;
}

__attribute__((noinline)) static unsigned long cold(unsigned long x) { return x * 3 + 1; }

static void path(char *out, size_t cap, const char *dir, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    const char *dir = argv[1];
    int rounds = atoi(argv[2]);
    if (argc > 3 && strcmp(argv[3], "spin") == 0)
        for (unsigned long x = 1;;) x = hot_outer(x) + cold(x);
    char p[4096], q[4096], line[256];
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 2;
    path(p, sizeof p, dir, "input.txt");
    FILE *in = fopen(p, "r");
    int raw = open(p, O_RDONLY);
    path(p, sizeof p, dir, "log.txt");
    FILE *log = fopen(p, "a");
    unsigned long *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!in || !log || raw < 0 || shared == MAP_FAILED) return 2;
    unsigned long acc = 1;
    for (int r = 0; r < rounds; r++) {
        acc = hot_outer(acc) + cold(acc);
        if (!fgets(line, sizeof line, in)) strcpy(line, "(eof)\n");
        fprintf(log, "round %d acc %lu line %s", r, acc % 1000, line);
        fflush(log);
        char chunk[13] = {0};
        if (read(raw, chunk, 12) < 0) return 2;
        for (char *c = chunk; *c; c++) *c = *c == '\n' ? '|' : *c;
        printf("stdout round %d raw [%s]\n", r, chunk);
        fflush(stdout);
        char msg[64];
        int n = snprintf(msg, sizeof msg, "sock %d", r);
        if (write(sv[0], msg, (size_t)n) != n) return 2;
        ++*shared; /* a shadow ends here: its copy of the page is read-only */
        char got[64];
        ssize_t k = read(sv[1], got, sizeof got - 1);
        if (k > 0) got[k] = 0, printf("%s\n", got);
        path(p, sizeof p, dir, "out.tmp");
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, line, strlen(line)) < 0) return 2;
        close(fd);
        snprintf(q, sizeof q, "%s/out.%d", dir, r);
        if (rename(p, q) != 0) return 2;
    }
    fclose(log);
    printf("acc %lu shared %lu\n", acc % 1000000, *shared);
    return 3;
}

/* streams.c — a program with planted hot data streams, for tests/e2e/test_streams.sh.
 *
 * Three linked lists of NODES nodes each, their nodes taken from one pool in a shuffled order (so
 * a list's addresses are not adjacent), are walked again and again in a fixed order: list 0,
 * noise, list 1, noise, list 0, noise, list 2, noise, ... A walk reads its head pointer, then
 * each node's val and next: a hot data stream of 1 + 2 x NODES references per list, at a
 * different frequency per list (list 0 twice per round). Between walks, NOISE reads at random
 * places of a 4 MiB array (filled at start, so the reads are real), which never form a repeated
 * sequence. Built with `hotprof cc --hooks=memory -O1` every load and store is hooked.
 *
 * Prints, before running, one line per planted stream with the addresses of its nodes in walk
 * order (each node is 16 bytes: next at +0, val at +8):
 *   expect_stream <walks in the whole run> <node1> <node2> ...
 * Usage: streams [rounds [threads]]   (default 20000 rounds, 1 thread; each thread runs every
 * round on the same lists, with its own noise)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LISTS 3
#define NODES 8
#define NOISE 24
#define ARRAY (1u << 19)

typedef struct node { struct node *next; long val; } node;

static node pool[LISTS * NODES];
static node *head[LISTS];
static long array[ARRAY];
static volatile long sink;

__attribute__((noinline)) static long walk(const node *n)
{
    long s = 0;
    for (; n; n = n->next) s += n->val;
    return s;
}

__attribute__((noinline)) static long noise(unsigned long *x)
{
    long s = 0;
    for (int i = 0; i < NOISE; i++) {
        *x = *x * 6364136223846793005ul + 1442695040888963407ul;
        s += array[(*x >> 33) & (ARRAY - 1)];
    }
    return s;
}

static void build(void)
{
    unsigned order[LISTS * NODES];
    unsigned long x = 12345;
    for (unsigned i = 0; i < ARRAY; i++) array[i] = (long)(i * 7u);
    for (unsigned i = 0; i < LISTS * NODES; i++) order[i] = i;
    for (unsigned i = LISTS * NODES - 1; i > 0; i--) { /* Fisher-Yates */
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        unsigned j = (unsigned)((x >> 33) % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (unsigned l = 0; l < LISTS; l++) {
        for (unsigned k = 0; k < NODES; k++) {
            node *n = &pool[order[l * NODES + k]];
            n->val = (long)(l * 100 + k);
            n->next = k + 1 < NODES ? &pool[order[l * NODES + k + 1]] : NULL;
        }
        head[l] = &pool[order[l * NODES]];
    }
}

static long g_rounds;

static void *run(void *arg)
{
    unsigned long x = 99 + (unsigned long)(size_t)arg;
    long s = 0;
    for (long r = 0; r < g_rounds; r++) {
        s += walk(head[0]) + noise(&x);
        s += walk(head[1]) + noise(&x);
        s += walk(head[0]) + noise(&x);
        s += walk(head[2]) + noise(&x);
    }
    sink = s;
    return NULL;
}

int main(int argc, char **argv)
{
    static const int per_round[LISTS] = {2, 1, 1};
    long threads = argc > 2 ? atol(argv[2]) : 1;
    pthread_t tid[16];
    g_rounds = argc > 1 ? atol(argv[1]) : 20000;
    if (threads < 1 || threads > 16) threads = 1;
    build();
    for (unsigned l = 0; l < LISTS; l++) {
        printf("expect_stream %ld", per_round[l] * g_rounds * threads);
        for (const node *n = head[l]; n; n = n->next) printf(" %p", (const void *)n);
        printf("\n");
    }
    fflush(stdout);
    for (long i = 1; i < threads; i++) pthread_create(&tid[i], NULL, run, (void *)(size_t)i);
    run(NULL);
    for (long i = 1; i < threads; i++) pthread_join(tid[i], NULL);
    return 0;
}

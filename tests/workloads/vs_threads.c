/* vs_threads.c — timer-mode test workload: ROUNDS (default 10) times, 16 threads are created,
 * each burns CPU, and all are joined. Prints a checksum that does not depend on scheduling. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 16

static void *work(void *arg)
{
    long id = (long)arg;
    volatile double s = 0;
    for (long i = 0; i < 3000000; i++) s += (double)(i % 7 + id);
    return (void *)(long)((long)s % 1000);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
        pthread_t t[NTHREADS];
        for (long i = 0; i < NTHREADS; i++)
            if (pthread_create(&t[i], NULL, work, (void *)i) != 0) return 3;
        for (int i = 0; i < NTHREADS; i++) {
            void *v;
            pthread_join(t[i], &v);
            sum += (long)v;
        }
    }
    printf("sum %ld\n", sum);
    return 0;
}

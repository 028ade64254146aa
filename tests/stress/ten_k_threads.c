/* Creates and joins COUNT threads (default 10000), 64 alive at a time; each
 * takes two global locks in order and a heap lock of its own, which it
 * destroys and frees. Nothing reported, every thread joined. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER, inner = PTHREAD_MUTEX_INITIALIZER;
static long done;

static void *worker(void *arg)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(&outer);
    pthread_mutex_lock(m);
    pthread_mutex_lock(&inner);
    done++;
    pthread_mutex_unlock(&inner);
    pthread_mutex_unlock(m);
    pthread_mutex_unlock(&outer);
    pthread_mutex_destroy(m);
    free(m);
    return arg;
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 10000;
    pthread_t t[64];
    long joined = 0;
    for (long i = 0; i < count; i += 64) {
        int n = 0;
        for (; n < 64 && i + n < count; n++)
            if (pthread_create(&t[n], NULL, worker, (void *)(i + n))) {
                perror("pthread_create");
                return 1;
            }
        for (int k = 0; k < n; k++) {
            void *r;
            pthread_join(t[k], &r);
            joined += (long)r == i + k;
        }
    }
    printf("ten_k_threads: %ld created, %ld joined, %ld ran\n", count, joined, done);
    return !(joined == count && done == count);
}

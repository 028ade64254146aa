/* Eight threads free a lock they hold at the same moment, from eight
 * different functions: eight reports, none of their lines mixed. */
// expect: active-lock-freed active-lock-freed active-lock-freed active-lock-freed active-lock-freed active-lock-freed active-lock-freed active-lock-freed
#include <pthread.h>
#include <stdlib.h>

static pthread_barrier_t go;

#define FREER(n)                                                  \
    __attribute__((noinline)) static void free_##n(void *p) { free(p); }
FREER(0) FREER(1) FREER(2) FREER(3) FREER(4) FREER(5) FREER(6) FREER(7)
static void (*const freers[8])(void *) = { free_0, free_1, free_2, free_3, free_4, free_5, free_6, free_7 };

static void *worker(void *arg)
{
    long i = (long)arg;
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    pthread_barrier_wait(&go);
    freers[i](m);
    return NULL;
}

int main(void)
{
    pthread_t t[8];
    pthread_barrier_init(&go, NULL, 8);
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    return 0;
}

/* Regression (found by the stress suite): after an active-lock-freed report
 * the freed lock stays in the thread's held set; a later lock by that thread
 * was reported as a lock-order-inversion whose cycle named a different lock
 * at each end: the freed lock's recycled record stood for another lock. */
// expect: active-lock-freed
#include <pthread.h>
#include <stdlib.h>
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
__attribute__((noinline)) static void leak_free(void *p) { free(p); }
static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        pthread_mutex_t *m = malloc(sizeof *m);
        pthread_mutex_init(m, NULL);
        pthread_mutex_lock(&shared);
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
        pthread_mutex_unlock(&shared);
        pthread_mutex_destroy(m);
        free(m);
    }
    return NULL;
}
int main(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    leak_free(m);                 /* active-lock-freed: the one true report */
    pthread_t t;
    pthread_create(&t, NULL, churn, NULL);
    pthread_join(t, NULL);
    pthread_mutex_lock(&shared);  /* a second, spurious report here? */
    pthread_mutex_unlock(&shared);
    return 0;
}

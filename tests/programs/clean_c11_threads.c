/* C11 threads: mtx_* and cnd_* (glibc runs them without passing through
 * pthread_mutex_lock). */
// expect: none
#include <threads.h>
static mtx_t m;
static cnd_t c;
static int ready, count;
static int worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        mtx_lock(&m);
        count++;
        mtx_unlock(&m);
    }
    mtx_lock(&m);
    ready = 1;
    cnd_signal(&c);
    mtx_unlock(&m);
    return 0;
}
int main(void)
{
    thrd_t t;
    mtx_init(&m, mtx_plain);
    cnd_init(&c);
    thrd_create(&t, worker, NULL);
    mtx_lock(&m);
    while (!ready)
        cnd_wait(&c, &m);
    mtx_unlock(&m);
    thrd_join(t, NULL);
    if (mtx_trylock(&m) == thrd_success)
        mtx_unlock(&m);
    mtx_destroy(&m);
    return count == 10000 ? 0 : 1;
}

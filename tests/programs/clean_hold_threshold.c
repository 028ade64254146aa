/* hold_threshold_ms with locks held briefly: many short critical sections
 * on two threads, a recursive mutex taken three deep for a moment, and a
 * condition wait of 400 ms (the wait releases the mutex: that is not
 * holding it). Nothing is held past the threshold: nothing to report. */
// options: hold_threshold_ms=200
// expect: none
// exit: 0
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int counter, go;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    usleep(400 * 1000);
    pthread_mutex_lock(&m);
    go = 1;
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &a);
    for (int i = 0; i < 3; i++)
        pthread_mutex_lock(&rec);
    usleep(20 * 1000);
    for (int i = 0; i < 3; i++)
        pthread_mutex_unlock(&rec);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&m);
    while (!go)
        pthread_cond_wait(&ready, &m);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    return counter == 10000 ? 0 : 1;
}

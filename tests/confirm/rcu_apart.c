/* synchronize_rcu() under cfg_lock, and a reader that takes cfg_lock inside
 * its read section, 200 ms apart: the grace period waits for the reader,
 * the reader for the lock. Never at once in a natural run; steered, the
 * reader holds its section at the lock call until the updater is in its
 * grace period, and the cycle closes. */
#include <rtdd/rcu.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static int config;

static void *reader(void *arg)
{
    (void)arg;
    rcu_register_thread();
    rcu_read_lock();
    pthread_mutex_lock(&cfg_lock);
    config++;
    pthread_mutex_unlock(&cfg_lock);
    rcu_read_unlock();
    rcu_unregister_thread();
    return NULL;
}

static void *updater(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 200 * 1000000L };
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&cfg_lock);
    synchronize_rcu();
    config++;
    pthread_mutex_unlock(&cfg_lock);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, reader, NULL);
    pthread_create(&b, NULL, updater, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("config %d\n", config);
    return 0;
}

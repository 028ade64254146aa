/* Three updaters serialize with a binary semaphore used as a mutex
 * (sem_wait ... sem_post) and replace an RCU pointer while a reader walks
 * it: the semaphore orders the updates. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <semaphore.h>
#include <stdlib.h>
struct config { int gen; };
static struct config *current;
static sem_t update_sem;
static volatile int stop;
#define ROUNDS 200

static void *reader(void *arg)
{
    long sum = 0;
    test_rcu_online();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        rcu_read_lock();
        struct config *c = rcu_dereference(current);
        sum += c ? c->gen : 0;
        rcu_read_unlock();
    }
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

static void *updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct config *fresh = malloc(sizeof *fresh);
        fresh->gen = i;
        sem_wait(&update_sem);
        struct config *old = rcu_dereference(current);
        rcu_assign_pointer(current, fresh);
        sem_post(&update_sem);
        synchronize_rcu();
        free(old);
    }
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r, u[3];
    sem_init(&update_sem, 0, 1);
    test_rcu_online();
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < 3; i++)
        pthread_create(&u[i], NULL, updater, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    free(current);
    sem_destroy(&update_sem);
    test_rcu_offline();
    return 0;
}

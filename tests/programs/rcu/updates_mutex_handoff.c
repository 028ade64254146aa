/* Three updaters pass a turn around through a plain mutex, with no
 * condition variable: each polls the turn under the mutex, replaces an RCU
 * pointer holding no lock once it is its own, then hands the turn on under
 * the mutex. The mutex orders the updates (an unlock, then the lock that
 * reads the new turn), so they are not concurrent. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
struct config { int gen; };
static struct config *current;
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static int turn;
static volatile int stop;
#define UPDATERS 3
#define ROUNDS 150

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

static int my_turn(int me)
{
    pthread_mutex_lock(&turn_lock);
    int mine = turn == me;
    pthread_mutex_unlock(&turn_lock);
    return mine;
}

static void *updater(void *arg)
{
    int me = (int)(intptr_t)arg;
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        while (!my_turn(me))
            sched_yield();
        struct config *fresh = malloc(sizeof *fresh), *old = rcu_dereference(current);
        fresh->gen = i * UPDATERS + me;
        rcu_assign_pointer(current, fresh);
        synchronize_rcu();
        free(old);
        pthread_mutex_lock(&turn_lock);
        turn = (me + 1) % UPDATERS;
        pthread_mutex_unlock(&turn_lock);
    }
    test_rcu_offline();
    return NULL;
}

int main(void)
{
    pthread_t r, u[UPDATERS];
    test_rcu_online();
    pthread_create(&r, NULL, reader, NULL);
    for (intptr_t i = 0; i < UPDATERS; i++)
        pthread_create(&u[i], NULL, updater, (void *)i);
    for (int i = 0; i < UPDATERS; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    free(current);
    test_rcu_offline();
    return 0;
}

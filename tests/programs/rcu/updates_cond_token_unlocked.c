/* Two updaters take turns through a condition-variable token and replace
 * an RCU pointer holding no lock, while a reader walks it. Each round
 * releases the token's mutex before the update (the usual shape): an
 * updater that finds its turn already set when it takes the mutex never
 * waits, and the handoff went through the mutex alone (the other's
 * unlock, then its lock). Either way the updates are ordered, so they are
 * not concurrent. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <stdint.h>
#include <stdlib.h>
struct config { int gen; };
static struct config *current;
static pthread_mutex_t token_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t token_moved = PTHREAD_COND_INITIALIZER;
static int turn;
static volatile int stop;
#define ROUNDS 400

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

/* Holds the token: the only updater now. Odd rounds swap, even ones assign. */
static void replace(int gen)
{
    struct config *fresh = malloc(sizeof *fresh), *old;
    fresh->gen = gen;
    if ((gen >> 2) & 1) {
        old = rcu_xchg_pointer(&current, fresh);
    } else {
        old = rcu_dereference(current);
        rcu_assign_pointer(current, fresh);
    }
    synchronize_rcu();
    free(old);
}

static void *updater(void *arg)
{
    int me = (int)(intptr_t)arg;
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&token_lock);
        while (turn != me)
            pthread_cond_wait(&token_moved, &token_lock);
        pthread_mutex_unlock(&token_lock);
        replace(i * 4 + me);
        pthread_mutex_lock(&token_lock);
        turn = 1 - me;
        pthread_cond_signal(&token_moved);
        pthread_mutex_unlock(&token_lock);
    }
    test_rcu_offline();
    return NULL;
}

int main(void)
{
    pthread_t r, u[2];
    test_rcu_online();
    pthread_create(&r, NULL, reader, NULL);
    for (intptr_t i = 0; i < 2; i++)
        pthread_create(&u[i], NULL, updater, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    free(current);
    test_rcu_offline();
    return 0;
}

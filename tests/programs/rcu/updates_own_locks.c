/* Two updaters replace the same RCU pointer at the same time, each under
 * a mutex of its own, and nothing orders them: a lock taken by only one of
 * them orders nothing for the other (its releases reach only its own later
 * acquisitions). The updates do not exclude each other. */
// expect: rcu-unlocked-update
// log: WARNING: RCU pointer updated by concurrent updaters with no lock in common
// log: updates the RCU pointer current
// log: with rcu_assign_pointer() holding lock_of
#include "rcu_api.h"
#include <sched.h>
#include <stdint.h>
struct config { int gen; };
static struct config *current;
static struct config pool[2][64];
static pthread_mutex_t lock_of[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static unsigned writes[2], done; /* atomics: they order nothing rtdd follows */

static void update(int me, int i)
{
    pthread_mutex_lock(&lock_of[me]);
    rcu_assign_pointer(current, &pool[me][i % 64]);
    pthread_mutex_unlock(&lock_of[me]);
    __atomic_fetch_add(&writes[me], 1, __ATOMIC_RELEASE);
}

static void *updater(void *arg)
{
    int me = (int)(intptr_t)arg, i = 0;
    test_rcu_online();
    /* Until the other has written too, then once more: the two threads'
     * writes interleave in every run. */
    do
        update(me, i++);
    while (!__atomic_load_n(&writes[1 - me], __ATOMIC_ACQUIRE));
    update(me, i);
    /* Both stay alive until both are through (an exited thread races with nobody). */
    __atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2)
        sched_yield();
    test_rcu_offline();
    return NULL;
}

int main(void)
{
    pthread_t u[2];
    test_rcu_online();
    for (intptr_t i = 0; i < 2; i++)
        pthread_create(&u[i], NULL, updater, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(u[i], NULL);
    test_rcu_offline();
    return 0;
}

/* Three updaters replace two RCU pointers, each update under the one
 * update lock, loading the old object with rcu_dereference() under it,
 * while two readers walk both pointers: correct. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <stdlib.h>
struct config { int gen; struct rcu_head rcu; };
static struct config *primary, *backup;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
#define ROUNDS 200

static void free_config(struct rcu_head *h) { free(container_of_head(h, struct config, rcu)); }

static void *reader(void *arg)
{
    long sum = 0;
    test_rcu_online();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        rcu_read_lock();
        struct config *a = rcu_dereference(primary), *b = rcu_dereference(backup);
        sum += (a ? a->gen : 0) + (b ? b->gen : 0);
        rcu_read_unlock();
    }
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

static void *updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct config *fresh = calloc(1, sizeof *fresh);
        fresh->gen = i;
        pthread_mutex_lock(&update_lock);
        struct config **pp = i % 2 ? &primary : &backup;
        struct config *old = rcu_dereference_protected(*pp, lockdep_is_held(&update_lock));
        rcu_assign_pointer(*pp, fresh);
        pthread_mutex_unlock(&update_lock);
        if (old && i % 4 < 2)
            call_rcu(&old->rcu, free_config);
        else if (old) {
            synchronize_rcu();
            free(old);
        }
    }
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r[2], u[3];
    test_rcu_online();
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    for (int i = 0; i < 3; i++)
        pthread_create(&u[i], NULL, updater, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    rcu_barrier_all();
    free(primary);
    free(backup);
    test_rcu_offline();
    return 0;
}

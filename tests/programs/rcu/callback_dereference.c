/* A call_rcu callback frees a retired object's inner object, loading the
 * inner pointer with rcu_dereference() (liburcu has no
 * rcu_dereference_protected()), for a few hundred retired objects, while
 * readers walk the current one: the object is unreachable when its
 * callback runs. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <stdlib.h>
struct limits { int max; };
struct policy { int gen; struct limits *limits; struct rcu_head rcu; };
static struct policy *active;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
#define ROUNDS 300

static void free_policy(struct rcu_head *h)
{
    struct policy *p = container_of_head(h, struct policy, rcu);
    free(rcu_dereference(p->limits));
    free(p);
}

static void *reader(void *arg)
{
    long sum = 0;
    test_rcu_online();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        rcu_read_lock();
        struct policy *p = rcu_dereference(active);
        struct limits *l = p ? rcu_dereference(p->limits) : NULL;
        sum += l ? l->max : 0;
        rcu_read_unlock();
    }
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

static void *updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct policy *fresh = calloc(1, sizeof *fresh);
        struct limits *l = calloc(1, sizeof *l);
        l->max = i;
        fresh->gen = i;
        pthread_mutex_lock(&update_lock);
        struct policy *old = rcu_dereference_protected(active, lockdep_is_held(&update_lock));
        rcu_assign_pointer(active, fresh);
        rcu_assign_pointer(fresh->limits, l); /* published under the lock, once the policy is */
        pthread_mutex_unlock(&update_lock);
        if (old)
            call_rcu(&old->rcu, free_policy);
    }
    rcu_barrier_all(); /* the callbacks run while the updaters are still there */
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r, u[2];
    test_rcu_online();
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&u[i], NULL, updater, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    rcu_barrier_all();
    free(active->limits);
    free(active);
    test_rcu_offline();
    return 0;
}

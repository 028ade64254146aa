/* Updates of an RCU pointer ordered by thread creation and joining alone:
 * main updates, starts a worker that updates, joins it, updates again,
 * and so on, while a reader walks the pointer. No two updates can
 * interleave. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <stdlib.h>
struct config { int gen; };
static struct config *current;
static volatile int stop;

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

/* The only updater at this time: a plain load of the pointer is enough. */
static void replace(int gen)
{
    struct config *fresh = malloc(sizeof *fresh), *old = __atomic_load_n(&current, __ATOMIC_RELAXED);
    fresh->gen = gen;
    rcu_assign_pointer(current, fresh);
    synchronize_rcu();
    free(old);
}

static void *worker(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < 3; i++)
        replace(i);
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r, w;
    test_rcu_online();
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < 40; i++) {
        replace(-i);
        pthread_create(&w, NULL, worker, NULL);
        pthread_join(w, NULL);
        replace(i);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    free(current);
    test_rcu_offline();
    return 0;
}

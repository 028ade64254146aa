/* A statistics thread reads 48 RCU pointers, each updated under the table
 * lock, with rcu_dereference() from one line, outside any read-side
 * critical section and holding no lock: one bug at one site, reported
 * once (not once per pointer). */
// expect: rcu-unprotected-dereference
// log: WARNING: suspicious RCU usage
// log: calls rcu_dereference() outside any read-side critical section, on the RCU pointer
// log: holding table_lock
// log: Hint: dereference inside rcu_read_lock()/rcu_read_unlock(), or hold the updaters' lock
#include "rcu_api.h"
#include <stdlib.h>
#define SLOTS 48
struct counter { long hits; };
static struct counter *table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t phase;

__attribute__((noinline)) static long read_counter(int i)
{
    struct counter *c = rcu_dereference(table[i]); /* BUG: no rcu_read_lock() */
    return c ? c->hits : 0;
}

static void *stats(void *arg)
{
    long sum = 0;
    test_rcu_online();
    rcu_read_lock(); /* a reader elsewhere: known to the runtime before the table is filled */
    rcu_read_unlock();
    pthread_barrier_wait(&phase);
    pthread_barrier_wait(&phase); /* the table is filled */
    for (int i = 0; i < SLOTS; i++)
        sum += read_counter(i);
    pthread_barrier_wait(&phase);
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

int main(void)
{
    pthread_t s;
    pthread_barrier_init(&phase, NULL, 2);
    test_rcu_online();
    pthread_create(&s, NULL, stats, NULL);
    pthread_barrier_wait(&phase);
    for (int i = 0; i < SLOTS; i++) {
        struct counter *c = calloc(1, sizeof *c);
        c->hits = i;
        pthread_mutex_lock(&table_lock);
        rcu_assign_pointer(table[i], c);
        pthread_mutex_unlock(&table_lock);
    }
    pthread_barrier_wait(&phase);
    pthread_barrier_wait(&phase); /* the statistics thread is done */
    pthread_join(s, NULL);
    for (int i = 0; i < SLOTS; i++)
        free(table[i]);
    test_rcu_offline();
    return 0;
}

/* The unprotected dereference comes before any update: it is remembered,
 * and reported when an updater that holds none of the reader's locks
 * changes the pointer (the reader holds an unrelated lock). */
// expect: rcu-unprotected-dereference
// log: WARNING: suspicious RCU usage
// log: calls rcu_dereference() outside any read-side critical section, on the RCU pointer current_stats
// log: updates it with rcu_assign_pointer() holding stats_lock
// log: was holding stats_print_lock
#include "rcu_api.h"
#include <stdlib.h>
struct stats { long hits; };
static struct stats *current_stats;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER, stats_print_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t peeked;

__attribute__((noinline)) static long peek_hits(void)
{
    pthread_mutex_lock(&stats_print_lock);
    struct stats *s = rcu_dereference(current_stats); /* BUG: no rcu_read_lock() */
    long hits = s ? s->hits : 0;
    pthread_mutex_unlock(&stats_print_lock);
    return hits;
}

static void *updater(void *arg)
{
    test_rcu_online();
    pthread_barrier_wait(&peeked);
    struct stats *fresh = calloc(1, sizeof *fresh), *old;
    pthread_mutex_lock(&stats_lock);
    old = current_stats;
    rcu_assign_pointer(current_stats, fresh);
    pthread_mutex_unlock(&stats_lock);
    synchronize_rcu();
    free(old);
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t u;
    pthread_barrier_init(&peeked, NULL, 2);
    struct stats *first = calloc(1, sizeof *first);
    rcu_assign_pointer(current_stats, first);
    pthread_create(&u, NULL, updater, NULL);
    long hits = peek_hits();
    pthread_barrier_wait(&peeked);
    pthread_join(u, NULL);
    free(current_stats);
    return (int)hits;
}

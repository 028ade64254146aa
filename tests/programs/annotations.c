/* Annotations: a named lock shows its name in reports; a lock excluded
 * from order checking is never part of a cycle. One thread makes every
 * edge: lockdep's rule reports its cycles. */
// options: lock_order_rule=lockdep
// expect: lock-order-inversion
// log: cycle: stats_lock -> config_lock -> stats_lock
#include <pthread.h>
#include <stdlib.h>
#include "../../include/rtdd/annotate.h"
int main(void)
{
    pthread_mutex_t *cfg = malloc(sizeof *cfg), *stats = malloc(sizeof *stats), *free_a = malloc(sizeof *free_a);
    pthread_mutex_init(cfg, NULL);
    pthread_mutex_init(stats, NULL);
    pthread_mutex_init(free_a, NULL);
    RTDD_LOCK_NAME(cfg, "config_lock");
    RTDD_LOCK_NAME(stats, "stats_lock");
    RTDD_LOCK_NO_ORDER(free_a);
    pthread_mutex_lock(free_a); pthread_mutex_lock(cfg); pthread_mutex_unlock(cfg); pthread_mutex_unlock(free_a);
    pthread_mutex_lock(cfg); pthread_mutex_lock(free_a); pthread_mutex_unlock(free_a); pthread_mutex_unlock(cfg);
    pthread_mutex_lock(cfg); pthread_mutex_lock(stats); pthread_mutex_unlock(stats); pthread_mutex_unlock(cfg);
    pthread_mutex_lock(stats); pthread_mutex_lock(cfg); pthread_mutex_unlock(cfg); pthread_mutex_unlock(stats);
    return 0;
}

/* A thread reads the configuration with rcu_dereference() outside any
 * read-side critical section and without the updaters' lock, while an
 * updater replaces it under that lock and frees the old one after a grace
 * period. Nothing is freed under the reader in this run: the dereference
 * itself is reported, as the kernel's lockdep-RCU does. */
// expect: rcu-unprotected-dereference
// log: WARNING: suspicious RCU usage
// log: calls rcu_dereference() outside any read-side critical section, on the RCU pointer config
// log: updates it with rcu_assign_pointer() holding config_lock
// log: in peek_timeout
#include "rcu_api.h"
#include <stdlib.h>
struct config { int timeout; };
static struct config *config;
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t updated, peeked;

__attribute__((noinline)) static void set_timeout(int timeout)
{
    struct config *fresh = calloc(1, sizeof *fresh), *old;
    fresh->timeout = timeout;
    pthread_mutex_lock(&config_lock);
    old = config;
    rcu_assign_pointer(config, fresh);
    pthread_mutex_unlock(&config_lock);
    synchronize_rcu();
    free(old);
}

__attribute__((noinline)) static int read_timeout(void)
{
    rcu_read_lock();
    struct config *c = rcu_dereference(config);
    int timeout = c ? c->timeout : -1;
    rcu_read_unlock();
    return timeout;
}

__attribute__((noinline)) static int peek_timeout(void)
{
    struct config *c = rcu_dereference(config); /* BUG: no rcu_read_lock() */
    return c ? c->timeout : -1;
}

static void *updater(void *arg)
{
    test_rcu_online();
    pthread_barrier_wait(&updated); /* the peeker has begun */
    set_timeout(2);
    pthread_barrier_wait(&updated);
    pthread_barrier_wait(&peeked);
    set_timeout(3);
    test_rcu_offline();
    return arg;
}

static void *peeker(void *arg)
{
    test_rcu_online();
    int t = read_timeout(); /* done right */
    pthread_barrier_wait(&updated);
    pthread_barrier_wait(&updated);
    t += peek_timeout();
    pthread_barrier_wait(&peeked);
    test_rcu_offline();
    return (void *)((long)t + (arg != NULL));
}

int main(void)
{
    pthread_t u, p;
    pthread_barrier_init(&updated, NULL, 2);
    pthread_barrier_init(&peeked, NULL, 2);
    config = calloc(1, sizeof *config);
    pthread_create(&u, NULL, updater, NULL);
    pthread_create(&p, NULL, peeker, NULL);
    pthread_join(u, NULL);
    pthread_join(p, NULL);
    free(config);
    return 0;
}

/* liburcu's QSBR flavour, used as its documentation says: readers are
 * registered and online, dereference without rcu_read_lock() and announce
 * quiescent states; updaters replace under a lock and wait with
 * synchronize_rcu(). Online QSBR readers are inside a read-side section
 * without saying so: nothing is reported. */
// expect: none
#include <pthread.h>
#include <stdlib.h>
#include <urcu-qsbr.h>
struct conf { int v; };
static struct conf *conf;
static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

static void *reader(void *arg)
{
    long sum = 0;
    rcu_register_thread();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        struct conf *c = rcu_dereference(conf);
        sum += c ? c->v : 0;
        rcu_quiescent_state();
    }
    rcu_unregister_thread();
    return (void *)(sum + (arg != NULL));
}

static void *updater(void *arg)
{
    for (int i = 0; i < 200; i++) {
        struct conf *fresh = calloc(1, sizeof *fresh), *old;
        fresh->v = i;
        pthread_mutex_lock(&conf_lock);
        old = conf;
        rcu_assign_pointer(conf, fresh);
        pthread_mutex_unlock(&conf_lock);
        synchronize_rcu();
        free(old);
    }
    return arg;
}

int main(void)
{
    pthread_t r[2], u[2];
    conf = calloc(1, sizeof *conf);
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&u[i], NULL, updater, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    free(conf);
    return 0;
}

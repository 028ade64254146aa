/* Correct RCU pointer handling, none of it reported: an updater that loads
 * under its lock with rcu_dereference_protected(); a single updater that
 * takes no lock; objects unpublished, then freed after synchronize_rcu()
 * or with call_rcu(); rcu_xchg_pointer() by several updaters at once; an
 * RCU list updated under a lock, traversed under it and by readers; and a
 * teardown that frees what is still published once no reader is left. */
// expect: none
#include "list_api.h"
#include <stdlib.h>

struct obj { int v; struct rcu_head rcu; };
struct node { int key; struct list_head link; struct rcu_head rcu; };
static struct obj *locked_ptr, *solo_ptr, *xchg_ptr;
static struct list_head nodes;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER, list_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
#define ROUNDS 200

static void free_obj(struct rcu_head *h) { free(container_of_head(h, struct obj, rcu)); }
static void free_node(struct rcu_head *h) { free(container_of_head(h, struct node, rcu)); }

static struct obj *make(int v)
{
    struct obj *o = calloc(1, sizeof *o);
    o->v = v;
    return o;
}

static int read_all(void)
{
    int sum = 0;
    rcu_read_lock();
    struct obj *a = rcu_dereference(locked_ptr), *b = rcu_dereference(solo_ptr), *c = rcu_dereference(xchg_ptr);
    sum += (a ? a->v : 0) + (b ? b->v : 0) + (c ? c->v : 0);
    struct node *n;
    list_for_each_rcu(n, &nodes, link)
        sum += n->key;
    rcu_read_unlock();
    return sum;
}

static void *reader(void *arg)
{
    test_rcu_online();
    long sum = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        sum += read_all();
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

/* Loads under the lock, as updaters do; replaces, waits, frees. */
static void *locked_updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&update_lock);
        struct obj *old = rcu_dereference_protected(locked_ptr, lockdep_is_held(&update_lock));
        rcu_assign_pointer(locked_ptr, make(old ? old->v + 1 : 0));
        pthread_mutex_unlock(&update_lock);
        if (i % 2)
            call_rcu(&old->rcu, free_obj);
        else {
            synchronize_rcu();
            free(old);
        }
    }
    test_rcu_offline();
    return arg;
}

/* The only updater of solo_ptr: no lock needed, its own loads are safe. */
static void *solo_updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct obj *old = rcu_dereference(solo_ptr);
        rcu_assign_pointer(solo_ptr, make(i));
        synchronize_rcu();
        free(old);
    }
    test_rcu_offline();
    return arg;
}

/* Each swap retires exactly what it replaced. */
static void *xchg_updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct obj *old = rcu_xchg_pointer(&xchg_ptr, make(i));
        if (old)
            call_rcu(&old->rcu, free_obj);
    }
    test_rcu_offline();
    return arg;
}

static void *list_updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < ROUNDS; i++) {
        struct node *n = calloc(1, sizeof *n), *pos, *victim = NULL;
        n->key = i;
        pthread_mutex_lock(&list_lock);
        list_add_rcu(&n->link, &nodes);
        int count = 0;
        list_for_each_check(pos, &nodes, link, lockdep_is_held(&list_lock))
            if (++count > 4)
                victim = pos;
        if (victim)
            list_del_rcu(&victim->link);
        pthread_mutex_unlock(&list_lock);
        if (victim)
            call_rcu(&victim->rcu, free_node);
    }
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r[2], u[6];
    test_rcu_online();
    list_init(&nodes);
    rcu_assign_pointer(solo_ptr, make(0)); /* set up before the updater starts */
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    pthread_create(&u[0], NULL, locked_updater, NULL);
    pthread_create(&u[1], NULL, locked_updater, NULL);
    pthread_create(&u[2], NULL, solo_updater, NULL);
    pthread_create(&u[3], NULL, xchg_updater, NULL);
    pthread_create(&u[4], NULL, xchg_updater, NULL);
    pthread_create(&u[5], NULL, list_updater, NULL);
    for (int i = 0; i < 6; i++)
        pthread_join(u[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    rcu_barrier_all();
    /* Teardown: no reader is left, what is still published goes. */
    free(locked_ptr);
    free(solo_ptr);
    free(xchg_ptr);
    struct node *n, *next;
    for (n = container_of_head(nodes.next, struct node, link); &n->link != &nodes; n = next) {
        next = container_of_head(n->link.next, struct node, link);
        free(n);
    }
    test_rcu_offline();
    return 0;
}

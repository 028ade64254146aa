/* The classic RCU list update by copy: the updater replaces a node by a
 * copy of it (*n = *old; rcu_assign_pointer(*pp, n)) and frees the old one
 * after synchronize_rcu() or through call_rcu(), while two readers walk
 * the list in nested read sections. A copy replaced earlier, retired but
 * not yet freed, still points at its successor, and malloc hands freed
 * node addresses out again: neither is a published pointer to freed
 * memory. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <stdlib.h>
struct node { int key, val; struct node *next; struct rcu_head rcu; };
static struct node *list;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
#define NODES 8
#define ROUNDS 3000

static void free_node(struct rcu_head *h) { free(container_of_head(h, struct node, rcu)); }

static long walk(void)
{
    long sum = 0;
    rcu_read_lock();
    for (struct node *n = rcu_dereference(list); n; n = rcu_dereference(n->next)) {
        rcu_read_lock(); /* nested, as a helper called per node would */
        sum += n->val;
        rcu_read_unlock();
    }
    rcu_read_unlock();
    return sum;
}

static void *reader(void *arg)
{
    long sum = 0;
    test_rcu_online();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        sum += walk();
    test_rcu_offline();
    return (void *)(sum + (arg != NULL));
}

/* Replaces the node with key by an updated copy. */
static void update(int key, int round)
{
    pthread_mutex_lock(&update_lock);
    struct node **pp = &list, *old;
    while ((old = rcu_dereference_protected(*pp, lockdep_is_held(&update_lock))) && old->key != key)
        pp = &old->next;
    struct node *n = malloc(sizeof *n);
    *n = *old;
    n->val = round;
    rcu_assign_pointer(*pp, n);
    pthread_mutex_unlock(&update_lock);
    if (round % 2)
        call_rcu(&old->rcu, free_node);
    else {
        synchronize_rcu();
        free(old);
    }
}

int main(void)
{
    pthread_t r[2];
    test_rcu_online();
    for (int k = NODES; k-- > 0;) {
        struct node *n = calloc(1, sizeof *n);
        n->key = k;
        n->next = list;
        rcu_assign_pointer(list, n);
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    unsigned seed = 1;
    for (int i = 0; i < ROUNDS; i++)
        update((int)(rand_r(&seed) % NODES), i);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    rcu_barrier_all();
    while (list) {
        struct node *next = list->next;
        free(list);
        list = next;
    }
    test_rcu_offline();
    return 0;
}

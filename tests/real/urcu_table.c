/* A liburcu workload for check-real (Debian's liburcu, memb flavour):
 * a lock-free hash table (cds_lfht, with resizing) and an RCU-protected list
 * updated under a pthread mutex; readers traverse both inside
 * rcu_read_lock(), updaters free through call_rcu() and synchronize_rcu(),
 * and rcu_barrier() drains the callbacks. Prints deterministic totals.
 * Usage: urcu_table */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>
#include <urcu/rculfhash.h>
#include <urcu/rculist.h>

#define NUPD 2
#define NREAD 2
#define KEYS 2000
#define ROUNDS 3

struct node {
    unsigned long key, val;
    struct cds_lfht_node ht;
    struct cds_list_head list;
    struct rcu_head rcu;
};

static struct cds_lfht *ht;
static CDS_LIST_HEAD(list);
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stat_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long freed, inserted;
static int stop;

static int match(struct cds_lfht_node *n, const void *key)
{
    return caa_container_of(n, struct node, ht)->key == *(const unsigned long *)key;
}

static unsigned long hash(unsigned long k)
{
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33;
    return k;
}

static void free_node(struct rcu_head *h)
{
    free(caa_container_of(h, struct node, rcu));
    pthread_mutex_lock(&stat_lock);
    freed++;
    pthread_mutex_unlock(&stat_lock);
}

static void *updater(void *arg)
{
    unsigned long id = (unsigned long)arg;
    rcu_register_thread();
    for (int r = 0; r < ROUNDS; r++) {
        for (unsigned long k = id; k < KEYS; k += NUPD) {
            struct node *n = malloc(sizeof *n);
            n->key = k;
            n->val = k * 3 + (unsigned long)r;
            cds_lfht_node_init(&n->ht);
            rcu_read_lock();
            struct cds_lfht_node *old = cds_lfht_add_replace(ht, hash(k), match, &k, &n->ht);
            rcu_read_unlock();
            pthread_mutex_lock(&stat_lock);
            inserted++;
            pthread_mutex_unlock(&stat_lock);
            if (old)
                call_rcu(&caa_container_of(old, struct node, ht)->rcu, free_node);
            if (k % 16 == id) {
                struct node *l = malloc(sizeof *l);
                l->key = k;
                l->val = (unsigned long)r;
                pthread_mutex_lock(&list_lock);
                cds_list_add_rcu(&l->list, &list);
                pthread_mutex_unlock(&list_lock);
            }
        }
        /* trim the list: remove entries of older rounds */
        pthread_mutex_lock(&list_lock);
        struct node *p, *tmp;
        cds_list_for_each_entry_safe(p, tmp, &list, list) {
            if (p->val < (unsigned long)r && p->key % NUPD == id) {
                cds_list_del_rcu(&p->list);
                pthread_mutex_unlock(&list_lock);
                synchronize_rcu();
                free(p);
                pthread_mutex_lock(&stat_lock);
                freed++;
                pthread_mutex_unlock(&stat_lock);
                pthread_mutex_lock(&list_lock);
                break;
            }
        }
        pthread_mutex_unlock(&list_lock);
    }
    rcu_unregister_thread();
    return NULL;
}

static void *reader(void *arg)
{
    unsigned long *sum = arg;
    rcu_register_thread();
    int last;
    do {
        /* at least one full pass after the updaters finished */
        last = CMM_LOAD_SHARED(stop);
        struct cds_lfht_iter it;
        struct node *n;
        rcu_read_lock();
        for (unsigned long k = 0; k < KEYS; k += 7) {
            cds_lfht_lookup(ht, hash(k), match, &k, &it);
            struct cds_lfht_node *hn = cds_lfht_iter_get_node(&it);
            if (hn)
                *sum += caa_container_of(hn, struct node, ht)->val % 3;
        }
        cds_list_for_each_entry_rcu(n, &list, list)
            *sum += n->key & 1;
        rcu_read_unlock();
    } while (!last);
    rcu_unregister_thread();
    return NULL;
}

int main(void)
{
    pthread_t u[NUPD], rd[NREAD];
    unsigned long sums[NREAD] = {0};
    rcu_register_thread();
    ht = cds_lfht_new(8, 8, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
    for (int i = 0; i < NREAD; i++)
        pthread_create(&rd[i], NULL, reader, &sums[i]);
    for (unsigned long i = 0; i < NUPD; i++)
        pthread_create(&u[i], NULL, updater, (void *)i);
    for (int i = 0; i < NUPD; i++)
        pthread_join(u[i], NULL);
    CMM_STORE_SHARED(stop, 1);
    for (int i = 0; i < NREAD; i++)
        pthread_join(rd[i], NULL);

    unsigned long count = 0, total = 0, listed = 0;
    struct cds_lfht_iter it;
    struct node *n, *tmp;
    rcu_read_lock();
    cds_lfht_for_each_entry(ht, &it, n, ht) {
        count++;
        total += n->val;
    }
    rcu_read_unlock();
    cds_list_for_each_entry(n, &list, list)
        listed++;
    /* tear down: remove every node, free after a grace period */
    rcu_read_lock();
    cds_lfht_for_each_entry(ht, &it, n, ht)
        if (!cds_lfht_del(ht, &n->ht))
            call_rcu(&n->rcu, free_node);
    rcu_read_unlock();
    rcu_barrier();
    cds_list_for_each_entry_safe(n, tmp, &list, list) {
        cds_list_del(&n->list);
        free(n);
        freed++;
    }
    if (cds_lfht_destroy(ht, NULL))
        fprintf(stderr, "cds_lfht_destroy failed\n");
    printf("keys %lu total %lu listed %lu inserted %lu freed %lu\n", count, total, listed, inserted, freed);
    printf("readers ran: %s\n", sums[0] && sums[1] ? "yes" : "no");
    rcu_unregister_thread();
    return 0;
}

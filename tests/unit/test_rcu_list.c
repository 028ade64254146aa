/* rculist.h: list and hlist helpers, single-threaded semantics and a
 * concurrent traversal against an updater that deletes, replaces and frees
 * entries through call_rcu(). */
#include "check_main.h"

#include <rtdd/rcu.h>
#include <rtdd/rculist.h>

#include <pthread.h>
#include <stdlib.h>

struct item {
    int key;
    int live;
    struct rcu_list_head node;
    struct rcu_hlist_node hnode;
    struct rcu_head rh;
};

static int keys_of(struct rcu_list_head *head, int *out, int max)
{
    int n = 0;
    struct item *it;
    rcu_read_lock();
    rcu_list_for_each_entry(it, head, node)
        if (n < max)
            out[n++] = it->key;
    rcu_read_unlock();
    return n;
}

START_TEST(list_add_add_tail_del_replace)
{
    RCU_LIST_HEAD(head);
    struct item a = {.key = 1}, b = {.key = 2}, c = {.key = 3}, d = {.key = 4};
    int k[8];
    ck_assert(rcu_list_empty(&head));
    ck_assert_int_eq(keys_of(&head, k, 8), 0);
    rcu_list_add(&b.node, &head);      /* 2 */
    rcu_list_add(&a.node, &head);      /* 1 2 */
    rcu_list_add_tail(&c.node, &head); /* 1 2 3 */
    ck_assert(!rcu_list_empty(&head));
    ck_assert_int_eq(keys_of(&head, k, 8), 3);
    ck_assert_int_eq(k[0], 1);
    ck_assert_int_eq(k[1], 2);
    ck_assert_int_eq(k[2], 3);
    rcu_list_replace(&b.node, &d.node); /* 1 4 3 */
    ck_assert_int_eq(keys_of(&head, k, 8), 3);
    ck_assert_int_eq(k[1], 4);
    ck_assert_ptr_eq(b.node.prev, RCU_LIST_POISON);
    ck_assert_ptr_eq(b.node.next, &c.node); /* a reader on b can still move on */
    rcu_list_del(&a.node); /* 4 3 */
    ck_assert_ptr_eq(a.node.next, &d.node);
    ck_assert_int_eq(keys_of(&head, k, 8), 2);
    ck_assert_int_eq(k[0], 4);
    ck_assert_int_eq(k[1], 3);
    struct rcu_list_head *pos;
    int count = 0;
    rcu_read_lock();
    rcu_list_for_each(pos, &head)
        count++;
    rcu_read_unlock();
    ck_assert_int_eq(count, 2);
    rcu_list_del(&d.node);
    rcu_list_del(&c.node);
    ck_assert(rcu_list_empty(&head));
}
END_TEST

START_TEST(hlist_add_del_replace)
{
    struct rcu_hlist_head head = RCU_HLIST_HEAD_INIT;
    struct item a = {.key = 1}, b = {.key = 2}, c = {.key = 3}, d = {.key = 4};
    ck_assert(rcu_hlist_empty(&head));
    rcu_hlist_add_head(&a.hnode, &head);   /* 1 */
    rcu_hlist_add_head(&b.hnode, &head);   /* 2 1 */
    rcu_hlist_add_behind(&c.hnode, &b.hnode); /* 2 3 1 */
    int k[8], n = 0;
    struct item *it;
    rcu_read_lock();
    rcu_hlist_for_each_entry(it, &head, hnode)
        k[n++] = it->key;
    rcu_read_unlock();
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(k[0], 2);
    ck_assert_int_eq(k[1], 3);
    ck_assert_int_eq(k[2], 1);
    rcu_hlist_replace(&c.hnode, &d.hnode); /* 2 4 1 */
    rcu_hlist_del(&b.hnode);               /* 4 1 */
    ck_assert_ptr_eq(b.hnode.next, &d.hnode);
    n = 0;
    rcu_read_lock();
    rcu_hlist_for_each_entry(it, &head, hnode)
        k[n++] = it->key;
    rcu_read_unlock();
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(k[0], 4);
    ck_assert_int_eq(k[1], 1);
    rcu_hlist_del(&a.hnode); /* the tail */
    rcu_hlist_del(&d.hnode);
    ck_assert(rcu_hlist_empty(&head));
}
END_TEST

static RCU_LIST_HEAD(shared_list);
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static int stop_readers;
static int bad_reads;

static void *list_reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop_readers, __ATOMIC_RELAXED)) {
        struct item *it;
        rcu_read_lock();
        rcu_list_for_each_entry(it, &shared_list, node)
            if (__atomic_load_n(&it->live, __ATOMIC_RELAXED) != 1)
                __atomic_fetch_add(&bad_reads, 1, __ATOMIC_RELAXED);
        rcu_read_unlock();
    }
    return NULL;
}

static void free_item(struct rcu_head *rh)
{
    struct item *it = rcu_container_of(rh, struct item, rh);
    it->live = 0; /* poison: a reader that sees it would count it */
    free(it);
}

static struct item *new_item(int key)
{
    struct item *it = calloc(1, sizeof(*it));
    it->key = key;
    it->live = 1;
    return it;
}

START_TEST(concurrent_readers_never_see_reclaimed_entries)
{
    pthread_t r[2];
    for (int i = 0; i < 8; i++)
        rcu_list_add_tail(&new_item(i)->node, &shared_list);
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, list_reader, NULL);
    for (int round = 0; round < 20000; round++) {
        pthread_mutex_lock(&update_lock);
        struct item *first = rcu_list_entry(shared_list.next, struct item, node);
        if (round % 2) {
            rcu_list_del(&first->node);
            rcu_list_add_tail(&new_item(round)->node, &shared_list);
        } else {
            rcu_list_replace(&first->node, &new_item(round)->node);
        }
        pthread_mutex_unlock(&update_lock);
        call_rcu(&first->rh, free_item);
    }
    __atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    ck_assert_int_eq(bad_reads, 0);
    struct rcu_list_head *pos = shared_list.next;
    while (pos != &shared_list) {
        struct item *it = rcu_list_entry(pos, struct item, node);
        pos = pos->next;
        rcu_list_del(&it->node);
        call_rcu(&it->rh, free_item);
    }
    rcu_barrier();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rcu_list");
    TCase *tc1 = tcase_create("list_add_add_tail_del_replace");
    TCase *tc2 = tcase_create("hlist_add_del_replace");
    TCase *tc3 = tcase_create("concurrent_readers_never_see_reclaimed_entries");
    tcase_add_test(tc1, list_add_add_tail_del_replace);
    tcase_add_test(tc2, hlist_add_del_replace);
    tcase_add_test(tc3, concurrent_readers_never_see_reclaimed_entries);
    tcase_set_timeout(tc3, 30);
    suite_add_tcase(s, tc1);
    suite_add_tcase(s, tc2);
    suite_add_tcase(s, tc3);
    Suite *suites[] = {s};
    return rtdd_check_run("rcu", suites, 1);
}

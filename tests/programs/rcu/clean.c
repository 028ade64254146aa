/* Correct RCU use under load: nested readers, readers in signal handlers,
 * call_rcu inside a reader, a reader taking the update lock, list updates
 * with call_rcu and synchronize_rcu, rcu_barrier. Nothing to report. */
// expect: none
#include "rcu_api.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
struct item { int key; struct item *next; struct rcu_head rcu; };
static struct item *head;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static void free_item(struct rcu_head *h) { free(container_of_head(h, struct item, rcu)); }
static int lookup(int key)
{
    int found = 0;
    rcu_read_lock();
    rcu_read_lock(); /* nested */
    for (struct item *i = rcu_dereference(head); i; i = rcu_dereference(i->next))
        if (i->key == key)
            found = 1;
    rcu_read_unlock();
    rcu_read_unlock();
    return found;
}
static void on_alarm(int sig) { (void)sig; lookup(3); }
static void *reader(void *arg)
{
    test_rcu_online();
    for (int n = 0; !stop; n++) {
        lookup(n % 16);
        if (n % 64 == 0) { /* a reader that takes the update lock */
            rcu_read_lock();
            pthread_mutex_lock(&update_lock);
            pthread_mutex_unlock(&update_lock);
            rcu_read_unlock();
        }
    }
    test_rcu_offline();
    return arg;
}
static void push(int key)
{
    struct item *i = calloc(1, sizeof *i);
    i->key = key;
    pthread_mutex_lock(&update_lock);
    i->next = head;
    rcu_assign_pointer(head, i);
    pthread_mutex_unlock(&update_lock);
}
static void pop(int deferred)
{
    pthread_mutex_lock(&update_lock);
    struct item *i = head;
    if (i)
        rcu_assign_pointer(head, i->next);
    pthread_mutex_unlock(&update_lock);
    if (!i)
        return;
    if (deferred) {
        rcu_read_lock();
        call_rcu(&i->rcu, free_item); /* legal inside a reader */
        rcu_read_unlock();
    } else {
        synchronize_rcu();
        free(i);
    }
}
int main(void)
{
    pthread_t t[2];
    test_rcu_online();
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    for (int k = 0; k < 16; k++)
        push(k);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    for (int round = 0; round < 300; round++) {
        pop(round & 1);
        push(round % 16);
    }
    stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    while (head)
        pop(1);
    rcu_barrier_all();
    test_rcu_offline();
    return 0;
}

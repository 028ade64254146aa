/* A statistics thread walks an RCU list with no read-side critical section
 * and no lock while an updater adds and deletes entries under the list's
 * lock and frees deleted ones after a grace period. The list traversal's
 * dereferences are checked like any other. */
// expect: rcu-unprotected-dereference
// log: WARNING: suspicious RCU usage
// log: calls rcu_dereference() outside any read-side critical section
// log: holding sessions_lock
// log: count_sessions+
#include "list_api.h"
#include <stdlib.h>
struct session { int id; struct list_head link; };
static struct list_head sessions;
static pthread_mutex_t sessions_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t step;

__attribute__((noinline)) static int count_sessions(void)
{
    int n = 0;
    struct session *s;
    list_for_each_rcu(s, &sessions, link) /* BUG: no rcu_read_lock() */
        n++;
    return n;
}

static void *updater(void *arg)
{
    test_rcu_online();
    for (int i = 0; i < 3; i++) {
        struct session *s = calloc(1, sizeof *s);
        s->id = i;
        pthread_mutex_lock(&sessions_lock);
        list_add_rcu(&s->link, &sessions);
        pthread_mutex_unlock(&sessions_lock);
    }
    pthread_barrier_wait(&step);
    pthread_barrier_wait(&step); /* counted */
    struct session *first = container_of_head(sessions.next, struct session, link);
    pthread_mutex_lock(&sessions_lock);
    list_del_rcu(&first->link);
    pthread_mutex_unlock(&sessions_lock);
    synchronize_rcu();
    free(first);
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t u;
    list_init(&sessions);
    pthread_barrier_init(&step, NULL, 2);
    pthread_create(&u, NULL, updater, NULL);
    pthread_barrier_wait(&step);
    int n = count_sessions();
    pthread_barrier_wait(&step);
    pthread_join(u, NULL);
    while (sessions.next != &sessions) {
        struct session *s = container_of_head(sessions.next, struct session, link);
        sessions.next = s->link.next;
        free(s);
    }
    return n == 3 ? 0 : 1;
}

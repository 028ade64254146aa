/* knotd's shutdown, in small: the event scheduler thread runs each event's
 * callback under the scheduler's heap_lock, and the callback takes the
 * zone's events lock (heap_lock -> zone_mx). At shutdown main stops the
 * scheduler and joins it, and only then frees the zone, cancelling its
 * event under the zone lock (zone_mx -> heap_lock). The orders invert, but
 * the thread that made the first had ended, joined by main, before main
 * made the second: no interleaving can deadlock. Latent (INFO, exit 0),
 * not a lock-order-inversion WARNING; abba_before_join.c is the same
 * code with the zone freed while the scheduler still runs. */
// expect: latent-lock-order
// log: INFO: latent circular locking dependency: 2 threads would have to run these paths at once
// log: 2 distinct threads made its 2 edges, but not at the same time
// log: joined it (pthread_join orders the joined thread's whole life before what the joiner does next)
// exit: 0
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER, zone_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notify = PTHREAD_COND_INITIALIZER;
static bool stop;
static int events_run, zone_events;

static void zone_event_dispatch(void)
{
    pthread_mutex_lock(&zone_mx);
    zone_events++;
    pthread_mutex_unlock(&zone_mx);
}

static void *scheduler(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&heap_lock);
    while (!stop) {
        if (events_run < 5) {
            events_run++;
            zone_event_dispatch(); /* the callback runs under heap_lock */
            continue;
        }
        pthread_cond_wait(&notify, &heap_lock);
    }
    pthread_mutex_unlock(&heap_lock);
    return NULL;
}

static void zone_events_deinit(void)
{
    pthread_mutex_lock(&zone_mx);
    pthread_mutex_lock(&heap_lock); /* cancel the zone's event */
    events_run = 0;
    pthread_mutex_unlock(&heap_lock);
    pthread_mutex_unlock(&zone_mx);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, scheduler, NULL);
    pthread_mutex_lock(&heap_lock);
    while (events_run < 5) {
        pthread_mutex_unlock(&heap_lock);
        sched_yield();
        pthread_mutex_lock(&heap_lock);
    }
    stop = true;
    pthread_cond_signal(&notify);
    pthread_mutex_unlock(&heap_lock);
    pthread_join(t, NULL);
    zone_events_deinit();
    return zone_events == 5 ? 0 : 1;
}

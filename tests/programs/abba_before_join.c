/* knotd's zone removal at reload, in small: as latent_join_shutdown.c, but
 * main frees the zone (zone_mx -> heap_lock) while the scheduler thread,
 * which ran callbacks under heap_lock (heap_lock -> zone_mx), still runs.
 * Had an event come due at that moment, both would wait forever: a
 * potential deadlock, a WARNING, whatever the timing of this run. */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// exit: 66
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
    events_run = 5;
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
    pthread_mutex_unlock(&heap_lock);
    zone_events_deinit(); /* the scheduler still runs */
    pthread_mutex_lock(&heap_lock);
    stop = true;
    pthread_cond_signal(&notify);
    pthread_mutex_unlock(&heap_lock);
    pthread_join(t, NULL);
    return zone_events == 5 ? 0 : 1;
}

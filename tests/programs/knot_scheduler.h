/* knotd's event scheduler and zone events, in small (knot 3.2's
 * evsched.c and events.c): the scheduler thread runs each event's callback
 * under heap_lock, and the callback takes the zone's lock (heap_lock ->
 * zone_mx); freeing a zone cancels its event under the zone's lock
 * (zone_mx -> heap_lock). Shared by latent_join_shutdown.c and
 * abba_before_join.c, which differ in when main frees the zone. */
#ifndef KNOT_SCHEDULER_H
#define KNOT_SCHEDULER_H
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

/* Main waits until the scheduler has run its five events. */
static void wait_for_events(void)
{
    pthread_mutex_lock(&heap_lock);
    while (events_run < 5) {
        pthread_mutex_unlock(&heap_lock);
        sched_yield();
        pthread_mutex_lock(&heap_lock);
    }
    pthread_mutex_unlock(&heap_lock);
}

static void stop_scheduler(pthread_t t)
{
    pthread_mutex_lock(&heap_lock);
    stop = true;
    pthread_cond_signal(&notify);
    pthread_mutex_unlock(&heap_lock);
    pthread_join(t, NULL);
}
#endif

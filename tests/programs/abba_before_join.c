/* knotd's zone removal at reload, in small: as latent_join_shutdown.c, but
 * main frees the zone (zone_mx -> heap_lock) while the scheduler thread,
 * which ran callbacks under heap_lock (heap_lock -> zone_mx), still runs.
 * Had an event come due at that moment, both would wait forever: a
 * potential deadlock, a WARNING, whatever the timing of this run. */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// exit: 66
#include "knot_scheduler.h"

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, scheduler, NULL);
    wait_for_events();
    zone_events_deinit(); /* the scheduler still runs */
    stop_scheduler(t);
    return zone_events == 5 ? 0 : 1;
}

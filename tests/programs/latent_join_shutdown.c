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
#include "knot_scheduler.h"

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, scheduler, NULL);
    wait_for_events();
    stop_scheduler(t); /* joins it */
    zone_events_deinit();
    return zone_events == 5 ? 0 : 1;
}
